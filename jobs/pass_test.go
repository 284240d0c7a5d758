package jobs_test

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/insights"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// The pass runs its six steps in order, each through its job as a worker
// runs it (the keyword insights and the export included), each recorded as
// triggered by run; with no keyword set configured it looks up the
// keywords it was given.
func TestThePassRunsEachStepThroughItsJobInOrder(t *testing.T) {
	t.Parallel()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, func(o *fixtures.Options) {
		o.Accounts, o.CampaignsPerAccount, o.LineItemsPerCampaign, o.Locations = 1, 2, 1, 2000
	})
	deps := jobstest.Deps(t, fake, pool)
	deps.ExportOut = t.TempDir()
	deps.Stats.Lookback = 14 * 24 * time.Hour
	var out, errs bytes.Buffer
	l := &jobs.Local{Open: func(context.Context) (*jobs.Deps, error) { return deps, nil }, Out: &out, Err: &errs,
		Concurrency: map[string]int{jobs.QueueSync: 4, jobs.QueueAudience: 1, jobs.QueueExport: 1, jobs.QueueDefault: 1}}
	demo := insights.KeywordSet{Name: "demo", Keywords: []string{"running shoes"}, Granularity: insights.Day}

	require.NoError(t, l.Pass(context.Background(), jobs.Pass{Keywords: []insights.KeywordSet{demo}}), "stdout:\n%s\nstderr:\n%s", &out, &errs)

	steps := regexp.MustCompile(`(?m)^== (\d)/6 `).FindAllStringSubmatch(out.String(), -1)
	require.Len(t, steps, 6, out.String())
	for i, s := range steps {
		require.Equal(t, string(rune('1'+i)), s[1])
	}
	require.Contains(t, out.String(), "== 2/6 audience upload\nskipped: audience uploads change a real audience")
	require.Contains(t, out.String(), "== 5/6 pull performance analytics of the active entities (the trailing 14 days)\n")
	require.Regexp(t, `== 3/6 fetch keyword insights\n1 keyword sets, 1 windows, \d+ requests, \d+ volume buckets stored\n`, out.String())
	require.Regexp(t, `export run \d+: \d+ rows`, out.String())
	require.Equal(t, []string{"sync_run", "insights_keywords", "posts_fetch", "stats_sync", "export"},
		firstJobs(t, pool, "sync_run", "insights_keywords", "posts_fetch", "stats_sync", "export"), "each step's job, in the pass's order")
	var pipelines []string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT array_agg(pipeline ORDER BY id) FROM sync_runs
WHERE trigger = 'run' AND outcome = 'succeeded'`).Scan(&pipelines))
	require.Equal(t, []string{"sync", "insights", "posts", "stats", "export"}, pipelines)
	var sets []string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT array_agg(DISTINCT set_name) FROM keyword_insight_windows`).Scan(&sets))
	require.Equal(t, []string{"demo"}, sets)
}

// firstJobs lists the kinds among kinds of the completed River jobs, by
// the order of each kind's first job.
func firstJobs(t *testing.T, pool *pgxpool.Pool, kinds ...string) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT kind FROM river_job WHERE kind = ANY($1) AND state = 'completed'
GROUP BY kind ORDER BY min(id)`, kinds)
	require.NoError(t, err)
	var got []string
	for rows.Next() {
		var k string
		require.NoError(t, rows.Scan(&k))
		got = append(got, k)
	}
	require.NoError(t, rows.Err())
	return got
}
