package hashing

import (
	"fmt"
	"io"
)

// DefaultMaxInvalidListed is how many invalid rows a Report lists unless told
// otherwise; the counts always cover all of them.
const DefaultMaxInvalidListed = 100

// Report counts what HashRecords did with a file.
type Report struct {
	RowsRead    int // rows with content, including bad ones
	RowsEmitted int // rows turned into users
	RowsInvalid int // rows rejected: unreadable or with an invalid value
	RowsSkipped int // rows whose values were all empty

	// Valid counts, per type, the identifiers of emitted users (after
	// deduplication); Invalid counts the values rejected by normalization.
	Valid   map[Type]int
	Invalid map[Type]int

	// InvalidRows lists the first MaxInvalidListed rejected rows.
	InvalidRows []RowError
	// MaxInvalidListed caps InvalidRows; zero means DefaultMaxInvalidListed,
	// a negative value lists none.
	MaxInvalidListed int
}

func (r *Report) addInvalid(line int, reason string) {
	r.RowsInvalid++
	limit := r.MaxInvalidListed
	if limit == 0 {
		limit = DefaultMaxInvalidListed
	}
	if len(r.InvalidRows) < limit {
		r.InvalidRows = append(r.InvalidRows, RowError{Line: line, Reason: reason})
	}
}

func (r *Report) count(m *map[Type]int, t Type, n int) {
	if *m == nil {
		*m = map[Type]int{}
	}
	(*m)[t] += n
}

// WriteText writes the report for people: totals, per-type counts and the
// listed invalid rows.
func (r *Report) WriteText(w io.Writer) error {
	p := &errWriter{w: w}
	p.printf("rows read: %d\nrows emitted: %d\nrows invalid: %d\nrows skipped (no values): %d\n",
		r.RowsRead, r.RowsEmitted, r.RowsInvalid, r.RowsSkipped)
	for _, t := range types {
		v, i := r.Valid[t], r.Invalid[t]
		if v == 0 && i == 0 {
			continue
		}
		p.printf("%s: %d valid, %d invalid\n", t, v, i)
	}
	for _, e := range r.InvalidRows {
		p.printf("invalid: line %d: %s\n", e.Line, e.Reason)
	}
	if n := r.RowsInvalid - len(r.InvalidRows); n > 0 {
		p.printf("invalid: %d more rows not listed\n", n)
	}
	return p.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (p *errWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
