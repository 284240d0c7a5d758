package hashing

import (
	"fmt"
	"io"

	"github.com/adsync/adsync/hashing/bound"
)

// DefaultMaxInvalid is how many invalid rows a file may hold before hashing
// or uploading it fails: 1% of its rows. A few bad rows in a CRM export are
// normal (they are listed and left out); more usually mean the wrong file
// or a wrong column.
var DefaultMaxInvalid = bound.Percent(1)

// TooManyInvalidError is a file with more invalid rows than its bound
// allows. Nothing of such a file is written or sent.
type TooManyInvalidError struct {
	Invalid, Read int
	Max           bound.Max
}

func (e *TooManyInvalidError) Error() string {
	return fmt.Sprintf("%d of %d rows invalid, more than --max-invalid %s", e.Invalid, e.Read, e.Max.Describe(int64(e.Read)))
}

// CheckInvalid returns a *TooManyInvalidError when the invalid rows are more
// than limit (unset: DefaultMaxInvalid) allows of the rows read. Every command
// that reads a file of users applies this one rule.
func (r *Report) CheckInvalid(limit bound.Max) error {
	limit = limit.Or(DefaultMaxInvalid)
	if limit.Allows(int64(r.RowsInvalid), int64(r.RowsRead)) {
		return nil
	}
	return &TooManyInvalidError{Invalid: r.RowsInvalid, Read: r.RowsRead, Max: limit}
}

// DefaultMaxInvalidListed is how many invalid rows a Report lists unless told
// otherwise; the counts always cover all of them.
const DefaultMaxInvalidListed = 100

// Report counts what HashRecords did with a file.
type Report struct {
	RowsRead    int // rows with content, including bad ones
	RowsEmitted int // rows turned into users (each user once)
	RowsInvalid int // rows rejected: unreadable or with an invalid value
	RowsSkipped int // rows whose values were all empty
	// RowsDuplicate counts valid rows whose user (the same identifiers,
	// once normalized and hashed) an earlier row of the file already was:
	// each user is emitted once.
	RowsDuplicate int

	// Valid counts, per type, the identifiers of emitted users (after
	// deduplication); Invalid counts the values rejected by normalization.
	Valid   map[Type]int
	Invalid map[Type]int

	// InvalidRows lists the first MaxInvalidListed rejected rows.
	InvalidRows []RowError
	// MaxInvalidListed caps InvalidRows; zero means DefaultMaxInvalidListed,
	// a negative value lists none.
	MaxInvalidListed int

	// valid counts into Valid without a map update per row; foldValid
	// moves it there when a pipeline returns.
	valid [numTypes]int
	// rows names records for Where; nil names them by line.
	rows *RowNames
}

// Where names record n of the input for people: "line 12" for a text file,
// "row 12" for Parquet files or a query's result (see RowNumbered).
func (r *Report) Where(n int) string {
	if r.rows == nil {
		return fmt.Sprintf("line %d", n)
	}
	return r.rows.Name(n)
}

// foldValid adds the counts kept in r.valid to r.Valid.
func (r *Report) foldValid() {
	for i, n := range r.valid {
		if n > 0 {
			r.count(&r.Valid, types[i], n)
		}
	}
	r.valid = [numTypes]int{}
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
	if r.RowsDuplicate > 0 {
		p.printf("%s\n", r.DuplicatesLine())
	}
	for _, t := range types {
		v, i := r.Valid[t], r.Invalid[t]
		if v == 0 && i == 0 {
			continue
		}
		p.printf("%s: %d valid, %d invalid\n", t, v, i)
	}
	for _, e := range r.InvalidRows {
		p.printf("invalid: %s: %s\n", r.Where(e.Line), e.Reason)
	}
	if n := r.RowsInvalid - len(r.InvalidRows); n > 0 {
		p.printf("invalid: %d more rows not listed\n", n)
	}
	return p.err
}

// DuplicatesLine says how many rows repeat a user, for people.
func (r *Report) DuplicatesLine() string {
	rows := "rows repeat"
	if r.RowsDuplicate == 1 {
		rows = "row repeats"
	}
	return fmt.Sprintf("duplicates: %d %s a user already in the file (each user is sent once)", r.RowsDuplicate, rows)
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
