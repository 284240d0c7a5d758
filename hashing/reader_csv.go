package hashing

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// CSVReader reads records from CSV with a header row naming identifier types.
// It frames the input into physical lines itself (bounded by MaxLineBytes)
// and parses one line at a time with encoding/csv, so a bad row is reported
// with its exact line and reading resumes on the next line. Quoted fields
// spanning lines are therefore rejected; identifiers never contain newlines.
type CSVReader struct {
	lines *lineReader
	feed  lineFeed
	cr    *csv.Reader
	cols  []int // identifier type index per column, -1 for an ignored column
	rec   Record
}

// NewCSVReader reads the header from r and returns a reader of its rows. It
// fails on a header with an unknown column (unless opts.IgnoreUnknown) or
// without any identifier column.
func NewCSVReader(r io.Reader, opts ReaderOptions) (*CSVReader, error) {
	c := &CSVReader{lines: newLineReader(r, opts.MaxLineBytes), rec: Record{Values: map[Type][]string{}}}
	c.cr = csv.NewReader(&c.feed)
	c.cr.FieldsPerRecord = -1 // counts are checked per row, to report and go on
	c.cr.ReuseRecord = true
	header, line, err := c.header()
	if err != nil {
		return nil, err
	}
	res := newResolver(opts)
	identifiers := 0
	for i, name := range header {
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // spreadsheet exports start with a BOM
		}
		t, ok := res.resolve(name)
		if !ok || t.index() < 0 {
			if !opts.IgnoreUnknown {
				return nil, fmt.Errorf("csv header (line %d): unknown column %q (column %d): map it with an alias or ignore unknown columns", line, name, i+1)
			}
			c.cols = append(c.cols, -1)
			continue
		}
		c.cols = append(c.cols, t.index())
		identifiers++
	}
	if identifiers == 0 {
		return nil, fmt.Errorf("csv header (line %d): no identifier column (want one of %s, or an alias)", line, typeList())
	}
	return c, nil
}

// header returns the fields of the first non-empty line.
func (c *CSVReader) header() ([]string, int, error) {
	for {
		b, num, tooLong, err := c.lines.next()
		if err == io.EOF {
			return nil, num, errors.New("csv: no header: the file is empty")
		}
		if err != nil {
			return nil, num, fmt.Errorf("csv header: %w", err)
		}
		if tooLong {
			return nil, num, fmt.Errorf("csv header (line %d): longer than %d bytes", num, c.lines.max)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		fields, reason := c.parse(b)
		if reason != "" {
			return nil, num, fmt.Errorf("csv header (line %d): %s", num, reason)
		}
		return append([]string(nil), fields...), num, nil
	}
}

// Next returns the next row; see RecordReader.
func (c *CSVReader) Next() (Record, error) {
	for {
		b, num, tooLong, err := c.lines.next()
		if err != nil {
			return Record{}, err
		}
		if tooLong {
			return Record{}, &RowError{Line: num, Reason: fmt.Sprintf("line longer than %d bytes", c.lines.max)}
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		fields, reason := c.parse(b)
		if reason != "" {
			return Record{}, &RowError{Line: num, Reason: reason}
		}
		if len(fields) != len(c.cols) {
			return Record{}, &RowError{Line: num, Reason: fmt.Sprintf("%d fields, the header has %d", len(fields), len(c.cols))}
		}
		resetValues(c.rec.Values)
		c.rec.Line = num
		for i, k := range c.cols {
			if k >= 0 {
				c.rec.Values[types[k]] = append(c.rec.Values[types[k]], fields[i])
			}
		}
		return c.rec, nil
	}
}

// parse splits one line into fields, or says why it cannot.
func (c *CSVReader) parse(b []byte) ([]string, string) {
	if !utf8.Valid(b) {
		return nil, fmt.Sprintf("invalid UTF-8 at byte %d", invalidUTF8At(b)+1)
	}
	c.feed.set(b)
	fields, err := c.cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if errors.Is(pe.Err, csv.ErrQuote) && c.feed.exhausted() {
				return nil, fmt.Sprintf("unclosed quote (column %d): quoted fields cannot span lines", pe.Column)
			}
			return nil, fmt.Sprintf("stray quote at column %d: %v", pe.Column, pe.Err)
		}
		return nil, fmt.Sprintf("malformed CSV: %v", err)
	}
	return fields, ""
}

// invalidUTF8At returns the offset of the first invalid UTF-8 sequence in b.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// lineFeed serves one line (with a newline) to the csv.Reader, then io.EOF
// until the next line is set: one csv.Reader and its buffers serve every row.
type lineFeed struct {
	data  []byte
	off   int
	eofed bool
}

func (f *lineFeed) set(line []byte) {
	f.data = append(append(f.data[:0], line...), '\n')
	f.off = 0
	f.eofed = false
}

func (f *lineFeed) exhausted() bool { return f.eofed }

func (f *lineFeed) Read(p []byte) (int, error) {
	if f.off >= len(f.data) {
		f.eofed = true
		return 0, io.EOF
	}
	n := copy(p, f.data[f.off:])
	f.off += n
	return n, nil
}
