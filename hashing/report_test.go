package hashing_test

import (
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/stretchr/testify/require"
)

func TestCheckInvalidBoundsInvalidRowsOfTheRowsRead(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name          string
		read, invalid int
		max           bound.Max
		want          string // "" passes
	}{
		{"default: 1% of 3,003 rows", 3003, 3, bound.Max{}, ""},
		{"default: 1% of 3,003 rows is 30", 3003, 31, bound.Max{}, "31 of 3003 rows invalid, more than --max-invalid 1% (30)"},
		{"default on a small file tolerates none", 4, 1, bound.Max{}, "1 of 4 rows invalid, more than --max-invalid 1% (0)"},
		{"a count", 4, 2, bound.Count(2), ""},
		{"above a count", 4, 2, bound.Count(1), "2 of 4 rows invalid, more than --max-invalid 1"},
		{"a percentage", 4, 2, bound.Percent(50), ""},
		{"no bound", 4, 4, bound.None(), ""},
		{"an empty file", 0, 0, bound.Count(0), ""},
	} {
		r := hashing.Report{RowsRead: tt.read, RowsInvalid: tt.invalid}
		err := r.CheckInvalid(tt.max)
		if tt.want == "" {
			require.NoError(t, err, tt.name)
			continue
		}
		var tm *hashing.TooManyInvalidError
		require.ErrorAs(t, err, &tm, tt.name)
		require.EqualError(t, err, tt.want, tt.name)
	}
}
