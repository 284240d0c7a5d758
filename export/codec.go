package export

import (
	"runtime"
	"sync/atomic"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdCodec compresses every Parquet page the export writes.
var zstdCodec = newKeptEncoders(runtime.GOMAXPROCS(0))

// pageWindow is the zstd window of the export's encoders. Each Parquet page
// is compressed on its own and parquet-go cuts pages at 256 KiB, so no
// match reaches further back than this; for pages up to this size the
// compressed bytes are those of zstd's default window (8 MiB), frame header
// included. parquet-go's own codec keeps the default window, and each of
// its encoders a history buffer of twice that, 16 MiB, live for the whole
// run: the largest part of an export's memory, for nothing a page can use.
const pageWindow = 1 << 20

// keptEncoders is parquet-go's zstd codec (the same level, SpeedDefault,
// about zstd's level 3 and DuckDB's default, and frame options) with a
// window of pageWindow and its encoders kept in a bounded free list
// instead of a sync.Pool. A sync.Pool is emptied by every second garbage collection,
// and a table of many small pages then built a new encoder (its match
// tables, about a megabyte each, allocated and cleared) for a good share
// of its pages; a kept encoder is reset, not rebuilt. The list holds at
// most one encoder per core: pages are compressed by at most that many
// goroutines at once, and one more is built, used and dropped.
type keptEncoders struct {
	zstd.Codec // decoding, the codec's name and id
	free       chan *kzstd.Encoder
	built      atomic.Int64 // encoders built, for the tests
}

func newKeptEncoders(n int) *keptEncoders {
	return &keptEncoders{Codec: zstd.Codec{Level: zstd.SpeedDefault}, free: make(chan *kzstd.Encoder, max(n, 1))}
}

// CompressionCodec is Parquet's id of zstd.
func (c *keptEncoders) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Encode compresses src into dst's storage as one zstd frame, as
// parquet-go's codec does.
func (c *keptEncoders) Encode(dst, src []byte) ([]byte, error) {
	var e *kzstd.Encoder
	select {
	case e = <-c.free:
	default:
		c.built.Add(1)
		var err error
		e, err = kzstd.NewWriter(nil, kzstd.WithEncoderConcurrency(1), kzstd.WithEncoderLevel(c.Level),
			kzstd.WithWindowSize(pageWindow), kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
		if err != nil {
			return nil, err
		}
	}
	out := e.EncodeAll(src, dst[:0])
	select {
	case c.free <- e:
	default:
	}
	return out, nil
}
