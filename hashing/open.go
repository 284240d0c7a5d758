package hashing

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Format is an input file format.
type Format string

// Input formats.
const (
	FormatCSV    Format = "csv"
	FormatNDJSON Format = "ndjson"
)

var gzipMagic = []byte{0x1f, 0x8b}

// Open opens the file at path for reading records. A gzip file is
// decompressed transparently, recognized by its magic bytes whatever its
// name. The format comes from the extension (.csv, .ndjson or .jsonl, each
// optionally followed by .gz), else from the content: a first non-blank
// character '{' means NDJSON, anything else CSV.
func Open(path string) (io.ReadCloser, Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	rc, format, err := Detect(f, path)
	if err != nil {
		_ = f.Close()
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return rc, format, nil
}

// Detect is Open for a stream already open: name only serves to guess the
// format. Closing the result closes r when r is an io.Closer.
func Detect(r io.Reader, name string) (io.ReadCloser, Format, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	var closers []io.Closer
	if c, ok := r.(io.Closer); ok {
		closers = append(closers, c)
	}
	if magic, _ := br.Peek(len(gzipMagic)); bytes.Equal(magic, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", fmt.Errorf("gzip: %w", err)
		}
		closers = append([]io.Closer{zr}, closers...)
		src = zr
	}
	format := formatFromName(name)
	sniff := bufio.NewReaderSize(src, 64<<10)
	if format == "" {
		format = sniffFormat(sniff)
	}
	return &readCloser{Reader: sniff, closers: closers}, format, nil
}

// NewReader returns the record reader for format over r.
func NewReader(r io.Reader, format Format, opts ReaderOptions) (RecordReader, error) {
	switch format {
	case FormatCSV:
		return NewCSVReader(r, opts)
	case FormatNDJSON:
		return NewNDJSONReader(r, opts), nil
	}
	return nil, fmt.Errorf("unknown input format %q", format)
}

func formatFromName(name string) Format {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == ".gz" {
		ext = strings.ToLower(filepath.Ext(strings.TrimSuffix(name, filepath.Ext(name))))
	}
	switch ext {
	case ".csv":
		return FormatCSV
	case ".ndjson", ".jsonl":
		return FormatNDJSON
	}
	return ""
}

// sniffFormat looks at the first non-blank byte without consuming it.
func sniffFormat(br *bufio.Reader) Format {
	head, _ := br.Peek(4096)
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(head) > 0 && head[0] == '{' {
		return FormatNDJSON
	}
	return FormatCSV
}

type readCloser struct {
	io.Reader
	closers []io.Closer
}

func (r *readCloser) Close() error {
	var first error
	for _, c := range r.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
