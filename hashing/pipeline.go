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
// equal values of one type in a row are sent once. emit must not keep the
// HashedUser it is given: it is reused for the next row. Counts and the first
// invalid rows go to report. HashRecords stops at the first error of r that
// is not a *RowError, or of emit.
func HashRecords(r RecordReader, n *Normalizer, emit func(HashedUser) error, report *Report) error {
	var u HashedUser
	var reasons strings.Builder
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
		report.RowsRead++
		u.Line = rec.Line
		reasons.Reset()
		var badTypes [numTypes]int
		for i, t := range types {
			u.values[i] = u.values[i][:0]
			for _, raw := range rec.Values[t] {
				h, skipped, err := n.Hash(t, raw)
				if skipped {
					continue
				}
				if err != nil {
					badTypes[i]++
					if reasons.Len() > 0 {
						reasons.WriteString("; ")
					}
					reasons.WriteString(err.Error())
					continue
				}
				u.values[i] = append(u.values[i], h)
			}
		}
		if reasons.Len() > 0 {
			for i, c := range badTypes {
				if c > 0 {
					report.count(&report.Invalid, types[i], c)
				}
			}
			report.addInvalid(rec.Line, reasons.String())
			continue
		}
		for i := range u.values {
			if len(u.values[i]) > 1 {
				slices.Sort(u.values[i])
				u.values[i] = slices.Compact(u.values[i])
			}
		}
		if u.Len() == 0 {
			report.RowsSkipped++
			continue
		}
		for i, v := range u.values {
			if len(v) > 0 {
				report.count(&report.Valid, types[i], len(v))
			}
		}
		report.RowsEmitted++
		if err := emit(u); err != nil {
			return err
		}
	}
}
