package bound_test

import (
	"math"
	"testing"

	"github.com/adsync/adsync/hashing/bound"
	"github.com/stretchr/testify/require"
)

func TestParseAndAllows(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in        string
		n, whole  int64
		allows    bool
		limit     int64
		limited   bool
		canonical string
	}{
		{"0", 0, 100, true, 0, true, "0"},
		{"0", 1, 100, false, 0, true, "0"},
		{"5", 5, 10, true, 5, true, "5"},
		{"5", 6, 1000, false, 5, true, "5"},
		{"10%", 961, 9609, false, 960, true, "10%"},
		{"10%", 960, 9609, true, 960, true, "10%"},
		{"10%", 0, 0, true, 0, true, "10%"},
		{"29%", 29, 100, true, 29, true, "29%"}, // fixed point: not 28.999...
		{"0.5%", 5, 1000, true, 5, true, "0.5%"},
		{"0.25%", 3, 1000, false, 2, true, "0.25%"},
		{"1%", 30, 3003, true, 30, true, "1%"},
		{"1%", 31, 3003, false, 30, true, "1%"},
		{"100%", 9609, 9609, true, 9609, true, "100%"},
		{" 7 ", 7, 0, true, 7, true, "7"},
		{"-1", 1 << 40, 1, true, 0, false, "-1"},
		{"50%", 0, math.MaxInt64, true, math.MaxInt64 / 2, true, "50%"},
	} {
		m, err := bound.Parse(tt.in)
		require.NoError(t, err, tt.in)
		require.True(t, m.IsSet())
		require.Equal(t, tt.allows, m.Allows(tt.n, tt.whole), "%q allows %d of %d", tt.in, tt.n, tt.whole)
		limit, ok := m.Limit(tt.whole)
		require.Equal(t, tt.limited, ok, tt.in)
		require.Equal(t, tt.limit, limit, tt.in)
		require.Equal(t, tt.canonical, m.String())
		again, err := bound.Parse(m.String())
		require.NoError(t, err)
		require.Equal(t, m, again, "String round-trips")
	}
}

func TestParseRefusesWhatIsNotACountOrAPercentage(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "x", "-2", "1.5", "101%", "%", "-5%", "+5%", "0.125%", "1e3", "10 %", "5%%"} {
		_, err := bound.Parse(in)
		require.Error(t, err, "%q", in)
	}
}

func TestUnsetTakesTheDefault(t *testing.T) {
	t.Parallel()
	var m bound.Max
	require.False(t, m.IsSet())
	require.Equal(t, bound.Percent(10), m.Or(bound.Percent(10)))
	require.Equal(t, bound.Count(0), bound.Count(0).Or(bound.Percent(10)), "a count of 0 is a value, not unset")
	require.Equal(t, "10% (960)", bound.Percent(10).Describe(9609))
	require.Equal(t, "3", bound.Count(3).Describe(9609))
	require.Equal(t, "none", bound.None().Describe(9609))
}

func TestFlagValueSetsAndNamesItsType(t *testing.T) {
	t.Parallel()
	var m bound.Max
	require.NoError(t, m.Set("25%"))
	require.Equal(t, bound.Percent(25), m)
	require.ErrorContains(t, m.Set("lots"), `"lots"`)
	require.Equal(t, "N|P%", m.Type())
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "10%", "0.5%", "100%", "-1", "9223372036854775807", "99.99%", "1e3", "%", "-0%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := bound.Parse(s)
		if err != nil {
			return
		}
		again, err := bound.Parse(m.String())
		require.NoError(t, err, "%q prints as %q", s, m.String())
		require.Equal(t, m, again, "%q", s)
		// Allowing a count allows every smaller one, of any whole.
		for _, whole := range []int64{0, 1, 99, 3003, 1 << 40, math.MaxInt64} {
			limit, ok := m.Limit(whole)
			if !ok {
				require.True(t, m.Allows(whole, whole))
				continue
			}
			require.GreaterOrEqual(t, limit, int64(0), "%q of %d", s, whole)
			require.True(t, m.Allows(limit, whole), "%q of %d", s, whole)
			if limit < math.MaxInt64 {
				require.False(t, m.Allows(limit+1, whole), "%q of %d", s, whole)
			}
		}
	})
}
