package hashing_test

import (
	"errors"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

// row is a record or a row error, copied out of the reader.
type row struct {
	Line   int
	Values map[hashing.Type][]string
	Err    string
}

// readAll drains r, copying every record (readers reuse them).
func readAll(t *testing.T, r hashing.RecordReader) []row {
	t.Helper()
	var rows []row
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return rows
		}
		var re *hashing.RowError
		if errors.As(err, &re) {
			rows = append(rows, row{Line: re.Line, Err: re.Reason})
			continue
		}
		require.NoError(t, err)
		vals := map[hashing.Type][]string{}
		for k, v := range maps.All(rec.Values) {
			if len(v) > 0 {
				vals[k] = slices.Clone(v)
			}
		}
		rows = append(rows, row{Line: rec.Line, Values: vals})
	}
}
