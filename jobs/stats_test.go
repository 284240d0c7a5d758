package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
)

func TestStatsJobWaitsForItsAsyncJobsBySnoozingAndStoresTheFakesTotals(t *testing.T) {
	t.Parallel()
	now, err := fixtures.SuiteNow()
	require.NoError(t, err)
	b := setupWorkerOn(t, func(o *fixtures.Options) { o.Now = fixtures.RunningFrom(now) }, nil)
	ctx := context.Background()
	accts, err := stats.Accounts(ctx, b.deps.API, nil)
	require.NoError(t, err)
	a := accts[0]
	from := a.LocalDate(now).AddDate(0, 0, -20)
	ev := b.runJob(t, jobs.StatsArgs{AccountIDs: []string{a.ID}, Entities: []string{stats.EntityCampaign},
		Start: from.Format(time.DateOnly)})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)

	run, err := stats.GetRun(ctx, b.pool, runOf(t, b, ev.Job.ID))
	require.NoError(t, err)
	require.Equal(t, "succeeded", run.Outcome, run.Error)
	require.Positive(t, run.Report.Jobs, "a 21-day span goes through asynchronous jobs")
	require.Positive(t, run.Report.Rows)
	require.GreaterOrEqual(t, run.Report.JobRequests, 3*run.Report.Jobs, "each job's POST, listings and download are in the report")
	require.Equal(t, run.Report.Jobs, b.count(t, `SELECT count(*) FROM stats_jobs WHERE state = 'stored'`))

	// Days before today: today's hours keep arriving while the test runs.
	yesterday := a.LocalDate(now).AddDate(0, 0, -1)
	truth, err := b.fake.Srv.AnalyticsTruth(fixtures.AnalyticsTruthFilter{AccountID: a.ID, Entity: stats.EntityCampaign,
		Start: from.Format(time.DateOnly), End: yesterday.Format(time.DateOnly)})
	require.NoError(t, err)
	var want int64
	for _, r := range truth {
		want += r.Impressions
	}
	var got int64
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT coalesce(sum(impressions), 0) FROM ad_stats WHERE account_id = $1
        AND entity_type = 'CAMPAIGN' AND bucket_date >= $2::date AND bucket_date <= $3::date`, a.ID, from.Format(time.DateOnly),
		yesterday.Format(time.DateOnly)).Scan(&got))
	require.Equal(t, want, got)
}

func runOf(t *testing.T, b *workerBundle, jobID int64) int64 {
	t.Helper()
	var id int64
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT id FROM sync_runs WHERE pipeline = 'stats'
        AND params->>'river_job_id' = $1::bigint::text`, jobID).Scan(&id))
	return id
}

// A queued run whose span can never be pulled for an account ends that
// account at once with the reason: one attempt, no request for it, and the
// run is not left running.
func TestStatsRunWithAnEmptySpanEndsAtOnceNamingTheAccountAndDays(t *testing.T) {
	t.Parallel()
	b := setupWorker(t, nil)
	ctx := context.Background()
	accts, err := stats.Accounts(ctx, b.deps.API, nil)
	require.NoError(t, err)
	a := accts[0]
	ev := b.runJob(t, jobs.StatsArgs{AccountIDs: []string{a.ID}, Entities: []string{stats.EntityCampaign},
		Start: "2026-03-05", End: "2026-03-05"})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)
	require.Equal(t, 1, ev.Job.Attempt, "not retried")

	run, err := stats.GetRun(ctx, b.pool, runOf(t, b, ev.Job.ID))
	require.NoError(t, err)
	require.Equal(t, "failed", run.Outcome, "no account could be pulled")
	require.Contains(t, run.Error, "account "+a.ID+": the span from 2026-03-05 to 2026-03-05 (exclusive, in "+a.Zone.String()+") is empty")
	require.Equal(t, []string{a.ID}, run.Report.Done)
	require.Zero(t, run.Report.ActiveRequests+run.Report.Requests, "nothing asked of the service")
	require.Zero(t, b.count(t, `SELECT count(*) FROM sync_runs WHERE outcome = 'running'`))
}

// A queued or scheduled run over its share of the active entities window
// ends failed at once, with the figure: one attempt, no request for
// analytics.
func TestStatsRunOverItsBudgetShareEndsFailedAtOnceWithTheFigure(t *testing.T) {
	t.Parallel()
	b := setupWorker(t, func(d *jobs.Deps, _ *synctest.Fake) { d.Stats.MaxBudgetShare = 0.001 })
	ctx := context.Background()
	ev := b.runJob(t, jobs.StatsArgs{Trigger: "schedule"})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	require.Equal(t, 1, ev.Job.Attempt, "not retried")

	run, err := stats.GetRun(ctx, b.pool, runOf(t, b, ev.Job.ID))
	require.NoError(t, err)
	require.Equal(t, "failed", run.Outcome)
	require.Regexp(t, `^this run needs at least \d+ active entities requests .*; stats\.max_budget_share 0\.001 allows 2 of the 2000`, run.Error)
	require.Zero(t, b.fake.Srv.Stats().Family("GET /12/stats/accounts/{account_id}/active_entities").Requests)
}
