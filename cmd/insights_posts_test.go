package adsynccmd

import (
	"context"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

func TestInsightsKeywordsPrintsATableAndStoresTheWindow(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	us := fixtures.CountryKeys["US"] // a country's location key, as the service takes it
	r := b.run(t, "insights", "keywords", "--keywords", "coffee,tea", "--negative", "decaf",
		"--start", "2026-03-02T09:30", "--end", "2026-03-05", "--granularity", "DAY", "--location", us)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "adhoc:coffee,tea  2026-03-02T00:00:00Z to 2026-03-05T00:00:00Z  DAY  location "+us+"\n")
	require.Contains(t, r.stdout, "keywords: coffee, tea  negative: decaf\n")
	require.Regexp(t, `BUCKET\s+VOLUME\s*\n\s*2026-03-02T00:00:00Z\s+\d+\s*\n\s*2026-03-03T00:00:00Z\s+\d+\s*\n\s*2026-03-04T00:00:00Z\s+\d+\s*\n`, r.stdout)
	require.Contains(t, r.stdout, "related keywords: ")
	require.Contains(t, r.stdout, "stored 1 windows (1 requests, 3 buckets)\n")
	b.requireNoSecrets(t, r.stdout+r.stderr)

	var n int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*) FROM keyword_volumes v
		JOIN keyword_insight_windows w USING (set_name, window_start, keywords_hash)
		WHERE set_name = 'adhoc:coffee,tea' AND w.location = $1 AND w.negative_keywords = '{decaf}'`, us).Scan(&n))
	require.Equal(t, 3, n)

	var outcome string
	var buckets int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT outcome, (counts->>'buckets')::int FROM sync_runs
		WHERE pipeline = 'insights' AND params->'sets' ? 'adhoc:coffee,tea'`).Scan(&outcome, &buckets))
	require.Equal(t, "succeeded", outcome, "the fetch is a recorded run like every pipeline's")
	require.Equal(t, 3, buckets)
}

func TestInsightsKeywordsBadInputIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--start", "2026-03-02"}, "insights keywords: --keywords is required"},
		{[]string{"--keywords", "a"}, "insights keywords: --start is required"},
		{[]string{"--keywords", "a", "--start", "March 2"}, `insights keywords: --start: "March 2" is not a time`},
		{[]string{"--keywords", "a", "--start", "2026-03-02", "--granularity", "WEEK"}, `granularity "WEEK": must be DAY or HOUR`},
		{[]string{"--keywords", "a", "--start", "2026-03-02", "--end", "2026-03-01"}, "is not after start"},
		{[]string{"--keywords", "a", "--start", "2026-03-02", "--negative", "1,2,3,4,5,6,7,8,9,10"},
			`keyword set "adhoc:a" has 10 negative keywords`},
	} {
		r := run(t, append([]string{"insights", "keywords"}, tc.args...)...)
		require.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want)
	}
}

func TestPostsFetchWaitPrintsASummary(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	truth := b.srv.V2Truth()
	ids := append(append([]string{}, truth.PostIDs[:2]...), truth.MissingIDs[0])
	r := b.run(t, "posts", "fetch", "--ids", strings.Join(ids, ","), "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^requested\s+3\nfound\s+2\nnot found\s+1\nmedia\s+\d+\nusers\s+[1-9]\d*\n`, r.stdout)
	require.Contains(t, r.stdout, "not found: "+truth.MissingIDs[0]+"\n")
	require.NotContains(t, r.stderr, "posts: fetched", "the summary is printed once, for people, not as a log line too")
	b.requireNoSecrets(t, r.stdout+r.stderr)
	var n int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*) FROM v2_posts`).Scan(&n))
	require.Equal(t, 2, n)
}

func TestPostsFetchWithoutWaitQueuesAJobNamingOnlyIDs(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	id := b.srv.V2Truth().PostIDs[0]
	r := b.run(t, "posts", "fetch", "--ids", id)
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `^queued posts fetch job \d+`, r.stdout)
	var kind, args string
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT kind, args::text FROM river_job`).Scan(&kind, &args))
	require.Equal(t, "posts_fetch", kind)
	require.JSONEq(t, `{"ids":["`+id+`"]}`, args)
	b.requireNoSecrets(t, args)
}

func TestPostsFetchFromAdsWithoutSyncedPostsFails(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	r := b.run(t, "posts", "fetch", "--from-ads", "--wait")
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "adsync: no synced advertising posts: run adsync sync first\n", r.stderr)
}

func TestPostsFetchNeedsExactlyOneSource(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"--ids", "1", "--from-ads"}} {
		r := run(t, append([]string{"posts", "fetch"}, args...)...)
		require.Equal(t, 2, r.code, r.stderr)
		require.Contains(t, r.stderr, "posts fetch: give exactly one of --ids or --from-ads")
	}
	r := run(t, "posts", "fetch", "--ids", "1,x2")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `posts fetch: --ids: post id "x2" (position 2): want 1 to 19 digits`)
}
