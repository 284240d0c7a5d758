package hashing

import (
	"errors"
	"io"
	"slices"
	"strings"
)

// HashRecords reads every record of r, normalizes and hashes its values with
// n and calls emit with each valid row, in file order. A row with any
// invalid value is rejected whole and never emitted (the service would
// otherwise get a partial user); a row with only empty values is skipped;
// equal values of one type in a row are sent once; a row whose identifiers
// an earlier row already had, the same user, is counted as a duplicate and
// not emitted again (see userSet for what that costs). emit must not keep the
// HashedUser it is given: it is reused for the next row. Counts and the first
// invalid rows go to report. HashRecords stops at the first error of r that
// is not a *RowError, or of emit.
func HashRecords(r RecordReader, n *Normalizer, emit func(HashedUser) error, report *Report) error {
	defer report.foldValid()
	report.rows = rowNamesOf(r)
	var res rowResult
	var seen userSet
	defer seen.close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		var rowErr *RowError
		if errors.As(err, &rowErr) {
			report.RowsRead++
			report.addInvalid(rowErr.Line, rowErr.Reason)
			continue
		}
		if err != nil {
			return err
		}
		res.hash(n, rec.Line, func(i int) []string { return rec.Values[types[i]] })
		if err := res.apply(report, &seen, emit); err != nil {
			return err
		}
	}
}

// rowResult is what one row became: a user, or why it was rejected.
type rowResult struct {
	user     HashedUser
	reasons  strings.Builder
	badTypes [numTypes]int
}

// begin readies res for the row at line.
func (res *rowResult) begin(line int) {
	res.user.Line = line
	res.reasons.Reset()
	res.badTypes = [numTypes]int{}
}

// hash fills res from the raw values of the row at line; values(i) returns
// those of types[i].
func (res *rowResult) hash(n *Normalizer, line int, values func(i int) []string) {
	u := &res.user
	u.Line = line
	u.json = nil
	u.keyed = false
	res.reasons.Reset()
	res.badTypes = [numTypes]int{}
	for i, t := range types {
		u.values[i] = u.values[i][:0]
		for _, raw := range values(i) {
			h, skipped, err := n.Hash(t, raw)
			if skipped {
				continue
			}
			if err != nil {
				res.badTypes[i]++
				if res.reasons.Len() > 0 {
					res.reasons.WriteString("; ")
				}
				res.reasons.WriteString(err.Error())
				continue
			}
			u.values[i] = append(u.values[i], h)
		}
	}
	if res.reasons.Len() > 0 {
		return
	}
	for i := range u.values {
		if len(u.values[i]) > 1 {
			slices.Sort(u.values[i])
			u.values[i] = slices.Compact(u.values[i])
		}
	}
}

// apply counts res in report and emits its user when the row is valid
// and its user not in seen yet.
func (res *rowResult) apply(report *Report, seen *userSet, emit func(HashedUser) error) error {
	report.RowsRead++
	if res.reasons.Len() > 0 {
		for i, c := range res.badTypes {
			if c > 0 {
				report.count(&report.Invalid, types[i], c)
			}
		}
		report.addInvalid(res.user.Line, res.reasons.String())
		return nil
	}
	if res.user.Len() == 0 {
		report.RowsSkipped++
		return nil
	}
	isNew, err := seen.add(&res.user)
	if err != nil {
		return err
	}
	if !isNew {
		report.RowsDuplicate++
		return nil
	}
	for i, v := range res.user.values {
		if len(v) > 0 {
			report.valid[i] += len(v)
		}
	}
	report.RowsEmitted++
	return emit(res.user)
}
