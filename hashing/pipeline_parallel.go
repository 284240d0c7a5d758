package hashing

import (
	"errors"
	"io"
)

// chunkRows is how many rows travel together between the reader, the
// workers and the emitter: enough to make the hand-over cheap.
const chunkRows = 1024

// chunk is a run of consecutive rows: their raw values on the way in, their
// results on the way out.
type chunk struct {
	lines   []int
	rowErrs []*RowError // per row; nil for a record
	values  [][numTypes][]string
	results []rowResult
	hashArena
}

func (c *chunk) reset() {
	c.lines = c.lines[:0]
	c.rowErrs = c.rowErrs[:0]
	c.values = c.values[:0]
}

// add copies rec's values: the reader reuses its slices, while the strings
// themselves are fresh per row and shared safely.
func (c *chunk) add(rec Record) {
	c.lines = append(c.lines, rec.Line)
	c.rowErrs = append(c.rowErrs, nil)
	i := len(c.values)
	if i < cap(c.values) {
		c.values = c.values[:i+1]
	} else {
		c.values = append(c.values, [numTypes][]string{})
	}
	for k, t := range types {
		c.values[i][k] = append(c.values[i][k][:0], rec.Values[t]...)
	}
}

func (c *chunk) addRowError(e *RowError) {
	c.lines = append(c.lines, e.Line)
	c.rowErrs = append(c.rowErrs, e)
	i := len(c.values)
	if i < cap(c.values) {
		c.values = c.values[:i+1]
	} else {
		c.values = append(c.values, [numTypes][]string{})
	}
}

// work hashes every record of c into its arena, as a CSV worker does.
func (c *chunk) work(n *Normalizer) {
	for len(c.results) < len(c.lines) {
		c.results = append(c.results, rowResult{})
	}
	c.hashArena.reset()
	for i, line := range c.lines {
		c.addRow()
		if c.rowErrs[i] != nil {
			continue
		}
		res := &c.results[i]
		res.begin(line)
		first := len(c.spans)
		for t := range numTypes {
			for _, raw := range c.values[i][t] {
				c.hashValue(n, res, t, raw)
			}
			c.typeEnds[i][t] = (len(c.spans) - first) / 2
		}
		c.rowSpans[i] = [2]int{first, len(c.spans)}
	}
	c.finish(c.results[:len(c.lines)], c.rowErrs)
}

// HashRecordsParallel is HashRecords with normalization and hashing spread
// over workers goroutines (at least one). Output, order and report are the
// same as HashRecords'; emit and report are only touched by the calling
// goroutine. Memory stays bounded: at most a few chunks of rows per worker
// are in flight. From a *CSVReader only the framing of lines stays on one
// goroutine: the workers parse the lines too (see hashCSVParallel).
func HashRecordsParallel(r RecordReader, n *Normalizer, workers int, emit func(HashedUser) error, report *Report) error {
	workers = max(workers, 1)
	defer report.foldValid()
	report.rows = rowNamesOf(r)
	if c, ok := r.(*CSVReader); ok {
		return hashCSVParallel(c, n, workers, emit, report)
	}
	fill := func(c *chunk) (has, end bool, err error) {
		c.reset()
		for len(c.lines) < chunkRows {
			rec, err := r.Next()
			if err == io.EOF {
				return len(c.lines) > 0, true, nil
			}
			var rowErr *RowError
			if errors.As(err, &rowErr) {
				c.addRowError(rowErr)
				continue
			}
			if err != nil {
				return len(c.lines) > 0, true, err
			}
			c.add(rec)
		}
		return true, false, nil
	}
	var seen userSet
	defer seen.close()
	emitChunk := func(c *chunk) error { return applyRows(c.lines, c.rowErrs, c.results, report, &seen, emit) }
	newWork := func() func(*chunk) { return func(c *chunk) { c.work(n) } }
	return inOrder(workers, func() *chunk { return &chunk{} }, newWork, fill, emitChunk)
}

// applyRows counts and emits the rows of a chunk in order: a row error
// where there is one, else the row's result (a user in seen already is a
// duplicate).
func applyRows(lines []int, rowErrs []*RowError, results []rowResult, report *Report, seen *userSet, emit func(HashedUser) error) error {
	for i, line := range lines {
		if e := rowErrs[i]; e != nil {
			report.RowsRead++
			report.addInvalid(line, e.Reason)
			continue
		}
		if err := results[i].apply(report, seen, emit); err != nil {
			return err
		}
	}
	return nil
}
