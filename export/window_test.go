package export

import (
	"fmt"
	"runtime"
	"testing"

	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/stretchr/testify/require"
)

// pageOf is n bytes of JSON records like the campaigns' raw column.
func pageOf(n int) []byte {
	var b []byte
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, `{"id":"c%d","name":"Campaign %d","daily_budget_amount_local_micro":%d,"currency":"USD"}`, i, i, i*1000)
	}
	return b[:n]
}

// A page compresses to the bytes parquet-go's zstd codec (the default
// 8 MiB window) writes, frame header included, for every page size
// parquet-go cuts (256 KiB) and beyond, up to the smaller window: the
// files are the same byte for byte.
func TestAPageCompressesToTheBytesOfTheDefaultWindow(t *testing.T) {
	def := &pqzstd.Codec{Level: pqzstd.SpeedDefault}
	for _, n := range []int{0, 1, 100, 1024, 1025, 4096, 65536, 256 << 10, 300 << 10, pageWindow} {
		page := pageOf(n)
		got, err := zstdCodec.Encode(nil, page)
		require.NoError(t, err)
		want, err := def.Encode(nil, page)
		require.NoError(t, err)
		require.Equal(t, want, got, "a page of %d bytes", n)
		back, err := zstdCodec.Decode(nil, got)
		require.NoError(t, err)
		require.Equal(t, string(page), string(back), "a page of %d bytes reads back", n)
	}
}

// An encoder holds a few MiB, not the 16 MiB history of zstd's default
// window: the export keeps one per core for the whole run, so that history
// set the largest part of its memory. Not parallel: no other test
// allocates while it measures.
func TestAnEncoderHoldsAFewMiB(t *testing.T) {
	c := newKeptEncoders(1)
	page := pageOf(256 << 10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.Encode(nil, page)
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	require.Less(t, allocated, uint64(8<<20), "an encoder and its first page allocate %d bytes", allocated)
}
