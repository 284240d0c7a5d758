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
// Fields are separated by ReaderOptions.Delimiter (a comma by default).
type CSVReader struct {
	lines *LineReader
	p     *csvLineParser
	comma rune
	cols  []int // identifier type index per column, -1 for an ignored column
	rec   Record
}

// NewCSVReader reads the header from r and returns a reader of its rows. It
// fails on a header with an unknown column (unless opts.IgnoreUnknown) or
// without any identifier column.
func NewCSVReader(r io.Reader, opts ReaderOptions) (*CSVReader, error) {
	comma := opts.Delimiter
	if comma == 0 {
		comma = ','
	}
	if err := checkDelimiter(comma); err != nil {
		return nil, err
	}
	c := &CSVReader{lines: NewLineReader(r, opts.MaxLineBytes), p: newCSVLineParser(comma), comma: comma, rec: Record{Values: map[Type][]string{}}}
	header, line, err := c.header()
	if err != nil {
		return nil, err
	}
	res := newResolver(opts)
	if err := delimiterHint(header, line, comma, res); err != nil {
		return nil, err
	}
	identifiers := 0
	for i, name := range header {
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // spreadsheet exports start with a BOM
		}
		t, ok := res.resolve(name)
		if !ok || t.index() < 0 {
			if !opts.IgnoreUnknown {
				return nil, InputErrorf("csv header (line %d): unknown column %q (column %d): map it with an alias or ignore unknown columns", line, name, i+1)
			}
			c.cols = append(c.cols, -1)
			continue
		}
		c.cols = append(c.cols, t.index())
		identifiers++
	}
	if identifiers == 0 {
		return nil, InputErrorf("csv header (line %d): no identifier column (want one of %s, or an alias)", line, typeList())
	}
	return c, nil
}

// header returns the fields of the first non-empty line.
func (c *CSVReader) header() ([]string, int, error) {
	for {
		b, num, tooLong, err := c.lines.Next()
		if err == io.EOF {
			return nil, num, InputErrorf("csv: no header: the file is empty")
		}
		if err != nil {
			return nil, num, fmt.Errorf("csv header: %w", err)
		}
		if tooLong {
			return nil, num, InputErrorf("csv header (line %d): longer than %d bytes", num, c.lines.max)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		fields, reason := c.p.parse(b)
		if reason != "" {
			return nil, num, InputErrorf("csv header (line %d): %s", num, reason)
		}
		return append([]string(nil), fields...), num, nil
	}
}

// Next returns the next row; see RecordReader.
func (c *CSVReader) Next() (Record, error) {
	for {
		b, num, tooLong, err := c.lines.Next()
		if err != nil {
			return Record{}, err
		}
		if tooLong {
			return Record{}, &RowError{Line: num, Reason: fmt.Sprintf("line longer than %d bytes", c.lines.max)}
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		fields, reason := c.p.parse(b)
		if reason != "" {
			return Record{}, &RowError{Line: num, Reason: reason}
		}
		if len(fields) != len(c.cols) {
			return Record{}, &RowError{Line: num, Reason: fieldCountReason(len(fields), len(c.cols))}
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

func fieldCountReason(got, want int) string {
	return fmt.Sprintf("%d fields, the header has %d", got, want)
}

// csvLineParser parses one physical line at a time with encoding/csv: one
// csv.Reader and its buffers serve every row.
type csvLineParser struct {
	feed lineFeed
	cr   *csv.Reader
}

func newCSVLineParser(comma rune) *csvLineParser {
	p := &csvLineParser{}
	p.cr = csv.NewReader(&p.feed)
	p.cr.Comma = comma
	p.cr.FieldsPerRecord = -1 // counts are checked per row, to report and go on
	p.cr.ReuseRecord = true
	return p
}

// parse splits one line into fields, or says why it cannot. The fields are
// valid until the next call.
func (p *csvLineParser) parse(b []byte) ([]string, string) {
	if !utf8.Valid(b) {
		return nil, fmt.Sprintf("invalid UTF-8 at byte %d", invalidUTF8At(b)+1)
	}
	p.feed.set(b)
	fields, err := p.cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if errors.Is(pe.Err, csv.ErrQuote) && p.feed.exhausted() {
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

// ParseDelimiter reads a --delimiter value: one character, or "tab" or
// "\t" for a tab.
func ParseDelimiter(s string) (rune, error) {
	switch strings.ToLower(s) {
	case "tab", `\t`:
		return '\t', nil
	}
	r, size := utf8.DecodeRuneInString(s)
	if s == "" || size != len(s) {
		return 0, fmt.Errorf("delimiter %q: want one character (or tab)", s)
	}
	if err := checkDelimiter(r); err != nil {
		return 0, err
	}
	return r, nil
}

func checkDelimiter(r rune) error {
	if r == '"' || r == '\r' || r == '\n' || r == utf8.RuneError || !utf8.ValidRune(r) {
		return fmt.Errorf("delimiter %q: cannot be a quote, a line break or an invalid character", r)
	}
	return nil
}

// delimiterNames are the delimiters a hint may suggest, by name.
var delimiterNames = []struct {
	r    rune
	name string
	flag string
}{{',', "comma", ","}, {';', "semicolon", ";"}, {'\t', "tab", "tab"}, {'|', "pipe", "|"}}

// delimiterHint explains a header read as one column that names no
// identifier type but holds another delimiter: the file most likely uses
// that delimiter.
func delimiterHint(header []string, line int, comma rune, res resolver) error {
	if len(header) != 1 {
		return nil
	}
	name := strings.TrimPrefix(header[0], "\ufeff")
	if t, ok := res.resolve(name); ok && t.index() >= 0 {
		return nil
	}
	best, most := -1, 0
	for i, d := range delimiterNames {
		if d.r == comma {
			continue
		}
		if n := strings.Count(name, string(d.r)); n > most {
			best, most = i, n
		}
	}
	if best < 0 {
		return nil
	}
	d := delimiterNames[best]
	flag := "'" + d.flag + "'"
	if d.r == '\t' {
		flag = d.flag
	}
	return InputErrorf("line %d: the header has one column %q; the file looks %s-delimited: use --delimiter %s", line, name, d.name, flag)
}
