package export

import (
	gosync "sync"

	"github.com/klauspost/compress/zstd"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// pageWindow is the zstd window of the export's encoders. Each Parquet page
// is compressed on its own and parquet-go cuts pages at 256 KiB, so no
// match reaches further back than this; for pages up to this size the
// compressed bytes are those of zstd's default window (8 MiB), frame header
// included.
const pageWindow = 1 << 20

// pageCodec is zstd at SpeedDefault (about zstd's level 3, DuckDB's
// default) with a window of pageWindow. parquet-go's own zstd codec keeps
// the default window, and each of its encoders a history buffer of twice
// that, 16 MiB, live for the whole run: one per core, the largest part of
// an export's memory, for nothing a page can use.
type pageCodec struct {
	pqzstd.Codec // its name, its codec id and its decoder

	encoders gosync.Pool // *zstd.Encoder
}

var zstdCodec = pageCodec{Codec: pqzstd.Codec{Level: pqzstd.SpeedDefault}}

// Encode compresses src, one page, into dst.
func (c *pageCodec) Encode(dst, src []byte) ([]byte, error) {
	e, _ := c.encoders.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(c.Level),
			zstd.WithWindowSize(pageWindow),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
		)
		if err != nil {
			return nil, err
		}
	}
	defer c.encoders.Put(e)
	return e.EncodeAll(src, dst[:0]), nil
}
