package hashing

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// A CSV chunk holds at most csvChunkRows lines or about csvChunkBytes of
// text (one line more may pass it): large enough that handing it over
// costs nothing per row, small enough that the chunks in flight stay a few
// megabytes whatever the file.
const (
	csvChunkRows  = 2048
	csvChunkBytes = 128 << 10
)

// csvChunk is a run of consecutive non-blank physical lines of a CSV file:
// their bytes on the way in, their users on the way out. Workers parse
// them as well as hash them, so the only serial work left is framing
// lines (and reading) on one side and emitting users on the other.
type csvChunk struct {
	text    []byte      // the lines, back to back, without line endings
	ends    []int       // end of each line in text
	lines   []int       // line number of each line
	rowErrs []*RowError // per line: why it is no record, or nil
	results []rowResult

	// Worker scratch, kept across uses of the chunk.
	fields []string
	hashArena
}

func (c *csvChunk) reset() {
	c.text = c.text[:0]
	c.ends = c.ends[:0]
	c.lines = c.lines[:0]
	c.rowErrs = c.rowErrs[:0]
}

// csvWorker parses and hashes chunks of one CSV file.
type csvWorker struct {
	n      *Normalizer
	comma  rune
	byType [numTypes][]int // columns of each type, in column order
	ncols  int
	parser *csvLineParser
}

// work fills c.results and c.rowErrs for every line of c.
func (w *csvWorker) work(c *csvChunk) {
	// The fields are substrings of the chunk's text, viewed in place: no
	// row costs an allocation or a copy of its own. This is safe because
	// nothing keeps a field: AppendHash copies what it keeps into the arena,
	// errors hold only redacted hints, and the reader writes c.text again
	// only once the chunk has been emitted and handed back.
	text := unsafe.String(unsafe.SliceData(c.text), len(c.text))
	for len(c.results) < len(c.lines) {
		c.results = append(c.results, rowResult{})
	}
	c.hashArena.reset()
	start := 0
	for i, line := range c.lines {
		c.addRow()
		end := c.ends[i]
		s := text[start:end]
		start = end
		if c.rowErrs[i] != nil {
			continue
		}
		fields, reason := w.split(s, c.text[end-len(s):end], c.fields[:0])
		c.fields = fields[:0]
		if reason == "" && len(fields) != w.ncols {
			reason = fieldCountReason(len(fields), w.ncols)
		}
		if reason != "" {
			c.rowErrs[i] = &RowError{Line: line, Reason: reason}
			continue
		}
		w.hashRow(c, i, line, fields)
	}
	c.finish(c.results[:len(c.lines)], c.rowErrs)
}

// split returns the fields of line s (b holds the same bytes). Lines
// without quotes or carriage returns are split directly, like encoding/csv
// would; any other goes through encoding/csv.
func (w *csvWorker) split(s string, b []byte, fields []string) ([]string, string) {
	if w.comma < utf8.RuneSelf && strings.IndexByte(s, '"') < 0 && strings.IndexByte(s, '\r') < 0 && utf8.ValidString(s) {
		sep := byte(w.comma)
		for {
			i := strings.IndexByte(s, sep)
			if i < 0 {
				return append(fields, s), ""
			}
			fields = append(fields, s[:i])
			s = s[i+1:]
		}
	}
	parsed, reason := w.parser.parse(b)
	if reason != "" {
		return fields, reason
	}
	return append(fields, parsed...), ""
}

// hashRow hashes the fields of line i of c into c's arena, like
// rowResult.hash: types in user object order, columns in file order.
func (w *csvWorker) hashRow(c *csvChunk, i, line int, fields []string) {
	res := &c.results[i]
	res.begin(line)
	first := len(c.spans)
	for t := range types {
		for _, col := range w.byType[t] {
			c.hashValue(w.n, res, t, fields[col])
		}
		c.typeEnds[i][t] = (len(c.spans) - first) / 2
	}
	c.rowSpans[i] = [2]int{first, len(c.spans)}
}

// hashCSVParallel is HashRecordsParallel for a CSV file: a reader
// goroutine frames lines into chunks, workers parse and hash them, and the
// calling goroutine emits them in file order.
func hashCSVParallel(r *CSVReader, n *Normalizer, workers int, emit func(HashedUser) error, report *Report) error {
	newWork := func() func(*csvChunk) {
		w := &csvWorker{n: n, comma: r.comma, ncols: len(r.cols), parser: newCSVLineParser(r.comma)}
		for col, k := range r.cols {
			if k >= 0 {
				w.byType[k] = append(w.byType[k], col)
			}
		}
		return w.work
	}
	fill := func(c *csvChunk) (has, end bool, err error) {
		c.reset()
		for len(c.lines) < csvChunkRows && len(c.text) < csvChunkBytes {
			b, num, tooLong, err := r.lines.Next()
			if err == io.EOF {
				return len(c.lines) > 0, true, nil
			}
			if err != nil {
				return len(c.lines) > 0, true, err
			}
			var rowErr *RowError
			if tooLong {
				rowErr = &RowError{Line: num, Reason: fmt.Sprintf("line longer than %d bytes", r.lines.max)}
			} else if len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			c.text = append(c.text, b...)
			c.ends = append(c.ends, len(c.text))
			c.lines = append(c.lines, num)
			c.rowErrs = append(c.rowErrs, rowErr)
		}
		return len(c.lines) > 0, false, nil
	}
	var seen userSet
	defer seen.close()
	emitChunk := func(c *csvChunk) error { return applyRows(c.lines, c.rowErrs, c.results, report, &seen, emit) }
	return inOrder(workers, func() *csvChunk { return &csvChunk{} }, newWork, fill, emitChunk)
}
