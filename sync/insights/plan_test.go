package insights_test

import (
	"os"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/insights"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

var t0 = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

func TestWindowsSplitAtSevenDays(t *testing.T) {
	t.Parallel()
	day, hour := 24*time.Hour, time.Hour
	for _, tc := range []struct {
		name       string
		start, end time.Time
		step       time.Duration
		want       []insights.Window
	}{
		{"exactly seven days is one window", t0, t0.Add(7 * day), day,
			[]insights.Window{{t0, t0.Add(7 * day)}}},
		{"seven days and an hour is two windows", t0, t0.Add(7*day + hour), hour,
			[]insights.Window{{t0, t0.Add(7 * day)}, {t0.Add(7 * day), t0.Add(7*day + hour)}}},
		{"fifteen days is three windows", t0, t0.Add(15 * day), day,
			[]insights.Window{{t0, t0.Add(7 * day)}, {t0.Add(7 * day), t0.Add(14 * day)}, {t0.Add(14 * day), t0.Add(15 * day)}}},
		{"a short range is one window", t0, t0.Add(3 * hour), hour,
			[]insights.Window{{t0, t0.Add(3 * hour)}}},
		{"DAY start rounds down to UTC midnight", t0.Add(10*hour + 30*time.Minute), t0.Add(2 * day), day,
			[]insights.Window{{t0, t0.Add(2 * day)}}},
		{"HOUR start rounds down to the UTC hour", t0.Add(10*hour + 30*time.Minute), t0.Add(12 * hour), hour,
			[]insights.Window{{t0.Add(10 * hour), t0.Add(12 * hour)}}},
		{"a start in another zone is aligned in UTC",
			time.Date(2026, 3, 8, 1, 30, 0, 0, time.FixedZone("PST", -8*3600)), time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), day,
			[]insights.Window{{time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := insights.Windows(tc.start, tc.end, tc.step)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			for _, w := range got {
				require.LessOrEqual(t, w.End.Sub(w.Start), insights.MaxSpan)
			}
		})
	}
}

func TestWindowsRefuseAnEmptyRange(t *testing.T) {
	t.Parallel()
	_, err := insights.Windows(t0, t0, time.Hour)
	require.ErrorContains(t, err, "is not after start")
}

func keywords(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + string(rune('a'+i))
	}
	return out
}

func TestGroupsSplitPositiveKeywordsAndCarryEveryNegative(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		kw, neg        int
		wantGroupSizes []int
	}{
		{"ten combined is one request", 8, 2, []int{8}},
		{"ten keywords without negatives is one request", 10, 0, []int{10}},
		{"eleven keywords are two requests", 11, 0, []int{10, 1}},
		{"twelve keywords and two negatives are 8 + 4", 12, 2, []int{8, 4}},
		{"nine negatives leave one keyword per request", 3, 9, []int{1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := insights.KeywordSet{Name: "s", Keywords: keywords(tc.kw, "k"), NegativeKeywords: keywords(tc.neg, "n")}.Normalize()
			require.NoError(t, err)
			groups, err := set.Groups()
			require.NoError(t, err)
			var sizes []int
			var union []string
			for _, g := range groups {
				sizes = append(sizes, len(g.Keywords))
				require.Equal(t, set.NegativeKeywords, g.NegativeKeywords)
				require.LessOrEqual(t, len(g.Keywords)+len(g.NegativeKeywords), insights.MaxKeywords)
				union = append(union, g.Keywords...)
			}
			require.Equal(t, tc.wantGroupSizes, sizes)
			require.Equal(t, set.Keywords, union)
		})
	}
}

func TestGroupsRejectASetWhoseNegativesLeaveNoRoom(t *testing.T) {
	t.Parallel()
	set, err := insights.KeywordSet{Name: "brand-safety", Keywords: []string{"coffee"}, NegativeKeywords: keywords(10, "n")}.Normalize()
	require.NoError(t, err)
	_, err = set.Groups()
	require.ErrorIs(t, err, insights.ErrSetRejected)
	require.ErrorContains(t, err, `keyword set "brand-safety" has 10 negative keywords`)
	require.ErrorContains(t, err, "would change the set's meaning")
}

func TestNormalizeNamesTheSetAndField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		set  insights.KeywordSet
		want string
	}{
		{insights.KeywordSet{Keywords: []string{"a"}}, "keyword set: name is empty"},
		{insights.KeywordSet{Name: "s", Keywords: []string{" ", ""}}, `keyword set "s": keywords is empty`},
		{insights.KeywordSet{Name: "s", Keywords: []string{"a,b"}}, `keyword set "s": keywords: "a,b" contains a comma`},
		{insights.KeywordSet{Name: "s", Keywords: []string{"a"}, NegativeKeywords: []string{"x,y"}}, `keyword set "s": negative_keywords: "x,y" contains a comma`},
		{insights.KeywordSet{Name: "s", Keywords: []string{"a"}, Granularity: "WEEK"}, `keyword set "s": granularity "WEEK": must be DAY or HOUR`},
		{insights.KeywordSet{Name: "s", Keywords: []string{"a"}, Location: "US,GB"}, `keyword set "s": location "US,GB": one country-level value only`},
	} {
		_, err := tc.set.Normalize()
		require.EqualError(t, err, tc.want)
	}
}

func TestNormalizeDropsDuplicatesAndDefaultsToDay(t *testing.T) {
	t.Parallel()
	set, err := insights.KeywordSet{Name: " s ", Keywords: []string{"Coffee", " coffee", "tea", ""}, Granularity: "hour"}.Normalize()
	require.NoError(t, err)
	require.Equal(t, "s", set.Name)
	require.Equal(t, []string{"Coffee", "tea"}, set.Keywords)
	require.Equal(t, insights.Hour, set.Granularity)
	set, err = insights.KeywordSet{Name: "d", Keywords: []string{"x"}}.Normalize()
	require.NoError(t, err)
	require.Equal(t, insights.Day, set.Granularity)
}

func TestGroupHashIgnoresCaseButNotMembership(t *testing.T) {
	t.Parallel()
	a := insights.Group{Keywords: []string{"Coffee", "tea"}}
	b := insights.Group{Keywords: []string{"coffee", "TEA"}}
	c := insights.Group{Keywords: []string{"coffee"}, NegativeKeywords: []string{"tea"}}
	require.Equal(t, a.Hash(), b.Hash())
	require.NotEqual(t, a.Hash(), c.Hash())
}

func TestPlanSetsRefusesDuplicateNames(t *testing.T) {
	t.Parallel()
	_, err := insights.PlanSets([]insights.KeywordSet{{Name: "s", Keywords: []string{"a"}}, {Name: "s", Keywords: []string{"b"}}})
	require.EqualError(t, err, `keyword set "s": the name is used twice`)
	_, err = insights.PlanSets([]insights.KeywordSet{{Name: "ok", Keywords: []string{"a"}}, {Name: "bad", Keywords: []string{"a"}, NegativeKeywords: keywords(10, "n")}})
	require.ErrorIs(t, err, insights.ErrSetRejected)
	require.ErrorContains(t, err, `keyword set "bad"`)
}
