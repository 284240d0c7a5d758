package insights_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/insights"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

type testBundle struct {
	fake   *synctest.Fake
	pool   *pgxpool.Pool
	runner *insights.Runner
	now    time.Time
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, nil)
	b := &testBundle{fake: fake, pool: pool, now: time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)}
	b.runner = &insights.Runner{Client: fake.Client(t, pool), Pool: pool, Now: func() time.Time { return b.now }}
	return b
}

func (b *testBundle) requests() int {
	return b.fake.Srv.Stats().Family(insights.Endpoint).Requests
}

type storedWindow struct {
	Start, End time.Time
	Keywords   []string
	Related    []string
	FetchedAt  time.Time
}

func (b *testBundle) windows(t *testing.T, set string) []storedWindow {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT window_start, window_end, keywords, related_keywords, fetched_at
		FROM keyword_insight_windows WHERE set_name = $1 ORDER BY window_start, keywords[1]`, set)
	require.NoError(t, err)
	defer rows.Close()
	var out []storedWindow
	for rows.Next() {
		var w storedWindow
		require.NoError(t, rows.Scan(&w.Start, &w.End, &w.Keywords, &w.Related, &w.FetchedAt))
		w.Start, w.End, w.FetchedAt = w.Start.UTC(), w.End.UTC(), w.FetchedAt.UTC()
		out = append(out, w)
	}
	require.NoError(t, rows.Err())
	return out
}

func (b *testBundle) buckets(t *testing.T, set string, windowStart time.Time) []time.Time {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT bucket_start FROM keyword_volumes
		WHERE set_name = $1 AND window_start = $2 ORDER BY bucket_start`, set, windowStart)
	require.NoError(t, err)
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var ts time.Time
		require.NoError(t, rows.Scan(&ts))
		out = append(out, ts.UTC())
	}
	require.NoError(t, rows.Err())
	return out
}

func (b *testBundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

func TestHourBucketsOfSevenDaysAndAnHourFillTwoWindows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	set := insights.KeywordSet{Name: "hourly", Keywords: []string{"coffee"}, Granularity: "HOUR"}
	rep, err := b.runner.Run(context.Background(), []insights.KeywordSet{set}, t0, t0.Add(7*24*time.Hour+time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2, rep.Windows)
	require.Equal(t, 2, b.requests())

	ws := b.windows(t, "hourly")
	require.Len(t, ws, 2)
	require.Equal(t, t0, ws[0].Start)
	require.Equal(t, t0.Add(7*24*time.Hour), ws[0].End)
	require.Equal(t, t0.Add(7*24*time.Hour), ws[1].Start)
	require.Equal(t, t0.Add(7*24*time.Hour+time.Hour), ws[1].End)
	require.Equal(t, b.now, ws[0].FetchedAt)

	first := b.buckets(t, "hourly", ws[0].Start)
	require.Len(t, first, 168)
	for i, ts := range first {
		require.Equal(t, t0.Add(time.Duration(i)*time.Hour), ts)
	}
	require.Equal(t, []time.Time{t0.Add(7 * 24 * time.Hour)}, b.buckets(t, "hourly", ws[1].Start))
}

func TestDayBucketsStartAtUTCMidnightAcrossADaylightSavingChange(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// US clocks spring forward on 2026-03-08; UTC days stay 24 hours.
	start := time.Date(2026, 3, 6, 15, 45, 0, 0, time.UTC)
	end := time.Date(2026, 3, 13, 0, 0, 0, 0, time.UTC)
	set := insights.KeywordSet{Name: "daily", Keywords: []string{"tea", "coffee"}, Location: fixtures.CountryKeys["US"]}
	_, err := b.runner.Run(context.Background(), []insights.KeywordSet{set}, start, end)
	require.NoError(t, err)
	ws := b.windows(t, "daily")
	require.Len(t, ws, 1)
	require.Equal(t, time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC), ws[0].Start)
	got := b.buckets(t, "daily", ws[0].Start)
	require.Len(t, got, 7)
	for i, ts := range got {
		require.Equal(t, time.Date(2026, 3, 6+i, 0, 0, 0, 0, time.UTC), ts)
	}
	require.NotEmpty(t, ws[0].Related)
}

func TestASetOverTheKeywordLimitIsSplitAndTheUnionCoversEveryKeyword(t *testing.T) {
	t.Parallel()
	b := setup(t)
	set := insights.KeywordSet{Name: "wide", Keywords: keywords(15, "kw"), NegativeKeywords: []string{"free", "cheap"}}
	rep, err := b.runner.Run(context.Background(), []insights.KeywordSet{set}, t0, t0.Add(2*24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2, rep.Requests)
	fam := b.fake.Srv.Stats().Family(insights.Endpoint)
	require.Equal(t, 2, fam.Requests)
	require.Equal(t, map[int]int{200: 2}, fam.ByStatus, "every split request is valid")

	ws := b.windows(t, "wide")
	require.Len(t, ws, 2)
	var union []string
	for _, w := range ws {
		union = append(union, w.Keywords...)
	}
	slices.Sort(union)
	want := keywords(15, "kw")
	slices.Sort(want)
	require.Equal(t, want, union)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM keyword_insight_windows WHERE set_name = 'wide' AND negative_keywords = '{free,cheap}'`))
	require.Equal(t, 4, b.count(t, `SELECT count(*) FROM keyword_volumes WHERE set_name = 'wide'`), "two days for each of two groups")
}

func TestARejectedSetStopsTheRunBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sets := []insights.KeywordSet{
		{Name: "fine", Keywords: []string{"coffee"}},
		{Name: "too-negative", Keywords: []string{"coffee"}, NegativeKeywords: keywords(10, "n")},
	}
	_, err := b.runner.Run(context.Background(), sets, t0, t0.Add(24*time.Hour))
	require.ErrorIs(t, err, insights.ErrSetRejected)
	require.ErrorContains(t, err, `"too-negative"`)
	require.Equal(t, 0, b.requests())
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM keyword_insight_windows`))
}

func TestReRunningAWindowReplacesIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	set := insights.KeywordSet{Name: "again", Keywords: keywords(12, "kw")}
	ctx := context.Background()
	_, err := b.runner.Run(ctx, []insights.KeywordSet{set}, t0, t0.Add(3*24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM keyword_insight_windows`))
	require.Equal(t, 6, b.count(t, `SELECT count(*) FROM keyword_volumes`))

	b.now = b.now.Add(time.Hour)
	_, err = b.runner.Run(ctx, []insights.KeywordSet{set}, t0, t0.Add(3*24*time.Hour))
	require.NoError(t, err)
	ws := b.windows(t, "again")
	require.Len(t, ws, 2)
	for _, w := range ws {
		require.Equal(t, b.now, w.FetchedAt)
	}
	require.Equal(t, 6, b.count(t, `SELECT count(*) FROM keyword_volumes`))

	// The set shrank to one group: the window's old groups go too.
	set.Keywords = keywords(3, "kw")
	_, err = b.runner.Run(ctx, []insights.KeywordSet{set}, t0, t0.Add(3*24*time.Hour))
	require.NoError(t, err)
	ws = b.windows(t, "again")
	require.Len(t, ws, 1)
	require.Equal(t, keywords(3, "kw"), ws[0].Keywords)
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM keyword_volumes`))
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM keyword_volumes_latest`))
}

func TestLookbackEndsAtTheLastWholeBucket(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.now = time.Date(2026, 3, 20, 12, 34, 0, 0, time.UTC)
	sets := []insights.KeywordSet{
		{Name: "d", Keywords: []string{"coffee"}},
		{Name: "h", Keywords: []string{"coffee"}, Granularity: "HOUR"},
	}
	rep, err := b.runner.RunLookback(context.Background(), sets, 7*24*time.Hour)
	require.NoError(t, err)
	require.Equal(t, 2, rep.Windows)
	midnight := time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)
	d := b.windows(t, "d")
	require.Len(t, d, 1)
	require.Equal(t, storedWindow{Start: midnight.Add(-7 * 24 * time.Hour), End: midnight}, storedWindow{Start: d[0].Start, End: d[0].End})
	require.Len(t, b.buckets(t, "d", d[0].Start), 7)
	h := b.windows(t, "h")
	require.Len(t, h, 1)
	require.Equal(t, midnight.Add(12*time.Hour), h[0].End)
	require.Len(t, b.buckets(t, "h", h[0].Start), 168)

	_, err = b.runner.RunLookback(context.Background(), sets, 0)
	require.ErrorContains(t, err, "lookback 0s must be positive")
}
