package ads

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// parseStamp reads the service's form itself: it must read every string as
// time.Parse(time.RFC3339, s) in UTC does, refusing what it refuses.
func TestParseStampReadsEveryStringAsTimeParseDoes(t *testing.T) {
	inputs := []string{
		"2026-03-01T23:59:58Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2026-04-31T12:00:00Z",
		"2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z",
		"2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
		"2026-01-01T00:00:00+01:00", "2026-01-01T00:00:00.123456Z", "2026-01-01t00:00:00Z", "2026-01-01T00:00:00z",
		"2026-1-01T00:00:00Z", "20a6-01-01T00:00:00Z", "2026-01-01T00:00:0 Z", "2026-01-01 00:00:00Z",
		"-026-01-01T00:00:00Z", "+026-01-01T00:00:00Z", "", "null", "2026-01-01T00:00:00",
	}
	for _, s := range inputs {
		want, err := time.Parse(time.RFC3339, s)
		got, ok := parseStamp(s)
		require.Equal(t, err == nil, ok, "%q", s)
		if ok {
			require.True(t, want.UTC().Equal(got), "%q", s)
			require.Equal(t, time.UTC, got.Location(), "%q", s)
			require.Equal(t, want.UTC(), got, "%q", s)
		}
	}
}

// A page's stamps share one slice: the records' times stay theirs.
func TestAPagesStampsAreEachRecordsOwn(t *testing.T) {
	c := new(canonicalizer)
	c.times = make([]time.Time, 0, 2)
	a, b := c.stampOf("2026-01-01T00:00:00Z"), c.stampOf("2026-01-02T00:00:00Z")
	over := c.stampOf("2026-01-03T00:00:00Z") // past the page's room
	require.Nil(t, c.stampOf("yesterday"))
	require.Equal(t, 1, a.Day())
	require.Equal(t, 2, b.Day())
	require.Equal(t, 3, over.Day())
}
