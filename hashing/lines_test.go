package hashing

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// repeatReader yields n copies of b without holding them.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

func TestCSVReaderRejectsTenMegabyteLineWithoutHoldingIt(t *testing.T) {
	t.Parallel()
	const tenMB = 10 << 20
	src := io.MultiReader(strings.NewReader("email\n"), &repeatReader{b: 'a', n: tenMB}, strings.NewReader("\nz@y.co\n"))
	r, err := NewCSVReader(src, ReaderOptions{})
	require.NoError(t, err)

	_, err = r.Next()
	var re *RowError
	require.True(t, errors.As(err, &re), "%v", err)
	require.Equal(t, RowError{Line: 2, Reason: "line longer than 1048576 bytes"}, *re)
	require.LessOrEqual(t, cap(r.lines.buf), DefaultMaxLineBytes+128<<10, "the line buffer stays bounded by the limit")

	rec, err := r.Next()
	require.NoError(t, err)
	require.Equal(t, 3, rec.Line)
	require.Equal(t, []string{"z@y.co"}, rec.Values[TypeEmail])
}

func TestNDJSONReaderRejectsTenMegabyteLineWithoutHoldingIt(t *testing.T) {
	t.Parallel()
	src := io.MultiReader(strings.NewReader(`{"email":"`), &repeatReader{b: 'a', n: 10 << 20}, strings.NewReader("\"}\n{\"email\":\"z@y.co\"}"))
	r := NewNDJSONReader(src, ReaderOptions{})
	_, err := r.Next()
	var re *RowError
	require.True(t, errors.As(err, &re), "%v", err)
	require.Equal(t, 1, re.Line)
	require.LessOrEqual(t, cap(r.lines.buf), DefaultMaxLineBytes+128<<10)
	rec, err := r.Next()
	require.NoError(t, err)
	require.Equal(t, 2, rec.Line)
}

func TestLineReaderCountsLinesWithAndWithoutFinalNewline(t *testing.T) {
	t.Parallel()
	l := NewLineReader(strings.NewReader("a\r\n\nb"), 0)
	var got []string
	for {
		b, n, _, err := l.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, string(b)+"@"+string(rune('0'+n)))
	}
	require.Equal(t, []string{"a@1", "@2", "b@3"}, got)
}
