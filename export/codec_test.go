package export

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
)

// Pages compressed one after another reuse one encoder, and every page,
// from however many goroutines, reads back as written.
func TestPagesAreCompressedByKeptEncodersAndReadBackAsWritten(t *testing.T) {
	t.Parallel()
	c := newKeptEncoders(2)
	dec, err := kzstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	page := func(i int) []byte {
		return bytes.Repeat([]byte(fmt.Sprintf("campaign %d, ", i%7)), 50+i%300)
	}
	for i := range 500 {
		out, err := c.Encode(nil, page(i))
		require.NoError(t, err)
		back, err := dec.DecodeAll(out, nil)
		require.NoError(t, err)
		require.Equal(t, page(i), back)
	}
	require.EqualValues(t, 1, c.built.Load(), "pages written one after another reuse one encoder")

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			d, err := kzstd.NewReader(nil)
			if err != nil {
				errs <- err
				return
			}
			defer d.Close()
			buf := make([]byte, 0, 64)
			for i := range 200 {
				p := page(g*1000 + i)
				out, err := c.Encode(buf, p)
				if err == nil {
					var back []byte
					back, err = d.DecodeAll(out, nil)
					if err == nil && !bytes.Equal(back, p) {
						err = fmt.Errorf("goroutine %d page %d read back differs", g, i)
					}
				}
				if err != nil {
					errs <- err
					return
				}
				buf = out
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.LessOrEqual(t, len(c.free), 2, "at most one kept encoder per core")
}
