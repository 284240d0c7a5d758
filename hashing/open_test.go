package hashing_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func TestOpenDetectsGzipByMagicAndFormatByExtensionOrContent(t *testing.T) {
	t.Parallel()
	const csv = "email\na@b.co\n"
	const ndjson = `{"email":"a@b.co"}` + "\n"
	tests := []struct {
		name    string
		content []byte
		want    hashing.Format
	}{
		{"users.csv", []byte(csv), hashing.FormatCSV},
		{"users.csv.gz", gzipped(t, csv), hashing.FormatCSV},
		{"users.ndjson", []byte(ndjson), hashing.FormatNDJSON},
		{"users.jsonl.GZ", gzipped(t, ndjson), hashing.FormatNDJSON},
		{"gzip-without-extension", gzipped(t, ndjson), hashing.FormatNDJSON},
		{"gzip-named-plain.csv", gzipped(t, csv), hashing.FormatCSV},
		{"sniffed-csv.txt", []byte(csv), hashing.FormatCSV},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		path := filepath.Join(dir, tc.name)
		require.NoError(t, os.WriteFile(path, tc.content, 0o600))
		rc, format, err := hashing.Open(path)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, format, tc.name)
		r, err := hashing.NewReader(rc, format, hashing.ReaderOptions{})
		require.NoError(t, err)
		rec, err := r.Next()
		require.NoError(t, err, tc.name)
		require.Equal(t, []string{"a@b.co"}, rec.Values[hashing.TypeEmail], tc.name)
		_, err = r.Next()
		require.ErrorIs(t, err, io.EOF)
		require.NoError(t, rc.Close())
	}
}

func TestOpenNamesTheFileOnCorruptGzip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "broken.csv.gz")
	require.NoError(t, os.WriteFile(path, []byte{0x1f, 0x8b, 0, 0}, 0o600))
	_, _, err := hashing.Open(path)
	require.ErrorContains(t, err, path)
}
