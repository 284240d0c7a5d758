package stats_test

import (
	"testing"

	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// A segmentation is checked locally against the one list, so an unknown
// type or a missing country is refused before anything is queued rather
// than answered by a 400 per request.
func TestSegmentationIsCheckedAgainstTheKnownTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "age", want: "AGE"},
		{in: "AUDIENCES", want: "AUDIENCES"},
		// A country is a location key, case-sensitive: kept as given.
		{in: "regions:06ef846bfc783874", want: "REGIONS:06ef846bfc783874"},
		{in: " metros : 06ef846bfc783874 ", want: "METROS:06ef846bfc783874"},
		{in: "POSTAL_CODES:06EF846BFC783874", want: "POSTAL_CODES:06EF846BFC783874"},
		{in: "PLATFORM_VERSIONS:1", want: "PLATFORM_VERSIONS:1"},
		{in: "BOGUS", err: `segmentation "BOGUS": unknown segmentation_type BOGUS; want one of AGE, GENDER,`},
		{in: "age_range", err: "unknown segmentation_type AGE_RANGE"},
		{in: "BOGUS:US", err: "unknown segmentation_type BOGUS"},
		{in: "REGIONS", err: "segmentation REGIONS needs a country: write REGIONS:VALUE"},
		{in: "POSTAL_CODES:", err: "segmentation POSTAL_CODES needs a country"},
		{in: "PLATFORM_VERSIONS", err: "segmentation PLATFORM_VERSIONS needs a platform"},
		{in: "AGE:US", err: "takes no value"},
	} {
		got, err := stats.NormalizeSegmentation(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got)
	}
	// The worker checks its request through the same settings.
	_, err := stats.Settings{}.For(stats.Request{Segmentation: "BOGUS"})
	require.ErrorContains(t, err, "unknown segmentation_type BOGUS")
	_, err = stats.Settings{Segmentations: []string{"AGE", "TV_SHOWS"}}.Normalize()
	require.ErrorContains(t, err, "unknown segmentation_type TV_SHOWS")
}
