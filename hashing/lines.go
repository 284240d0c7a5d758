package hashing

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// DefaultMaxLineBytes is the longest line readers accept unless told
// otherwise: far more than any row of identifiers needs.
const DefaultMaxLineBytes = 1 << 20

// LineReader splits a stream into physical lines while holding at most
// max bytes of one line: the rest of a longer line is read and dropped, so a
// huge or newline-free input cannot exhaust memory, and the lines after it
// are still read. The record readers frame their lines with it, and so does
// any line-based input (auth add's tokens).
type LineReader struct {
	br   *bufio.Reader
	max  int
	buf  []byte
	line int
}

// NewLineReader reads the lines of r, each at most max bytes
// (DefaultMaxLineBytes when max is not positive).
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line without its line ending, its 1-based number,
// and whether it was longer than max (then the line is empty). The returned
// slice is valid until the next call. At the end it returns io.EOF.
func (l *LineReader) Next() (line []byte, num int, tooLong bool, err error) {
	l.buf = l.buf[:0]
	total := 0
	for {
		chunk, err := l.br.ReadSlice('\n')
		total += len(chunk)
		if !tooLong {
			if total > l.max+2 { // +2: the line ending does not count
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, l.line + 1, false, err
		}
		if err == io.EOF && total == 0 {
			return nil, l.line, false, io.EOF
		}
		l.line++
		if tooLong {
			return nil, l.line, true, nil
		}
		b := bytes.TrimSuffix(l.buf, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		if len(b) > l.max {
			return nil, l.line, true, nil
		}
		return b, l.line, false, nil
	}
}
