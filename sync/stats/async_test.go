package stats_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// asyncRun pulls the span through asynchronous jobs: Run records the jobs
// (the enqueuer only collects their ids, as River would get them), then
// drive advances each until done, moving the fake's clock by every wait
// instead of sleeping.
func (b *testBundle) asyncRun(t *testing.T, req stats.Request) (stats.Report, []int64) {
	t.Helper()
	runID, err := store.CreateRun(context.Background(), b.pool, stats.Pipeline, "test", map[string]any{})
	require.NoError(t, err)
	var ids []int64
	b.runner.RunID = runID
	b.runner.Enqueue = func(_ context.Context, _ pgx.Tx, got []int64) error {
		ids = append(ids, got...)
		return nil
	}
	rep, err := b.runner.Run(context.Background(), req)
	require.NoError(t, err)
	return rep, ids
}

// drive advances every job until done and returns the waits it saw.
func (b *testBundle) drive(t *testing.T, ids []int64) []time.Duration {
	t.Helper()
	var waits []time.Duration
	for _, id := range ids {
		for i := 0; ; i++ {
			require.Less(t, i, 200, "job %d never finished", id)
			step, err := b.runner.Advance(context.Background(), id)
			require.NoError(t, err)
			if step.Done {
				break
			}
			waits = append(waits, step.Wait)
			b.fake.Srv.SetClockOffset(b.fake.Srv.ClockOffset() + step.Wait)
		}
	}
	return waits
}

func (b *testBundle) serviceJobs(t *testing.T, account string) []stats.ServiceJob {
	t.Helper()
	jobs, err := stats.ListJobs(context.Background(), b.runner.Client, account, nil)
	require.NoError(t, err)
	return jobs
}

// loseNextPostAnswer drops the connection of the next job POST: before
// the service handles it (FaultReset) or after (FaultResetAfter).
func (b *testBundle) loseNextPostAnswer(kind fixtures.FaultKind) {
	b.fake.Srv.AddFault(fixtures.FaultRule{Path: "**/stats/jobs/accounts/*", Method: "POST", Kind: kind, Times: 1})
}

// serviceJobOf is the service job stats_jobs row id records.
func (b *testBundle) serviceJobOf(t *testing.T, id int64) string {
	t.Helper()
	var sj *string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT service_job_id FROM stats_jobs WHERE id = $1`, id).Scan(&sj))
	require.NotNil(t, sj, "row %d has no service job", id)
	return *sj
}

func (b *testBundle) firstAccount(t *testing.T) stats.Account {
	t.Helper()
	return b.accounts(t)[0]
}

func asyncSetup(t *testing.T, jobs fixtures.StatsJobOptions) *testBundle {
	return setup(t, func(o *fixtures.Options) {
		o.Accounts = 1
		o.StatsJobs = jobs
	})
}

// twentyDays asks for a span only asynchronous jobs take in one request.
func (b *testBundle) twentyDays(a stats.Account) stats.Request {
	return stats.Request{Start: stats.Bound{T: a.LocalDate(b.now).AddDate(0, 0, -20), Date: true},
		Entities: []string{stats.EntityCampaign}}
}

func (b *testBundle) requireCampaignTruth(t *testing.T, a stats.Account) {
	t.Helper()
	from, to := a.LocalDate(b.now).AddDate(0, 0, -20), a.LocalDate(b.now).AddDate(0, 0, 1)
	want := b.truth(t, a.ID, []string{stats.EntityCampaign}, from, to)
	require.NotEmpty(t, want)
	require.Equal(t, want, b.stored(t, a.ID, from, to))
}

func TestSpansBeyondSevenDaysGoThroughJobsAndEqualTheFakesTotals(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 6 * time.Second})
	a := b.firstAccount(t)
	rep, ids := b.asyncRun(t, b.twentyDays(a))
	require.Positive(t, rep.Jobs)
	require.Len(t, ids, rep.Jobs)
	require.Zero(t, rep.Requests, "no synchronous request for a 21-day span")
	waits := b.drive(t, ids)
	require.NotEmpty(t, waits, "jobs are polled by waiting, not by sleeping")
	b.requireCampaignTruth(t, a)
	require.Len(t, b.serviceJobs(t, a.ID), rep.Jobs, "one service job per request")
	open, rows, missing, err := stats.JobsStatus(context.Background(), b.pool, b.runner.RunID)
	require.NoError(t, err)
	require.Zero(t, open)
	require.Positive(t, rows)
	require.Empty(t, missing)
}

func TestALostPostAnswerResumesTheSameServiceJob(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 4 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	// The service creates the first job, then the connection drops before
	// its answer.
	b.loseNextPostAnswer(fixtures.FaultResetAfter)
	_, err := b.runner.Advance(context.Background(), ids[0])
	require.Error(t, err)
	posted := b.serviceJobs(t, a.ID)[0]

	b.drive(t, ids)
	jobs := b.serviceJobs(t, a.ID)
	require.Len(t, jobs, len(ids), "the lost answer's job was found again, not created twice")
	require.Equal(t, posted.ID, b.serviceJobOf(t, ids[0]))
	b.requireCampaignTruth(t, a)
}

func TestFailedJobsAreRetriedThenReportedMissing(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	b.fake.Srv.FailNextStatsJobs(1)
	b.drive(t, ids)
	b.requireCampaignTruth(t, a)
	require.Len(t, b.serviceJobs(t, a.ID), len(ids)+1, "the failed job was created again")

	// A request whose jobs keep failing is given up and named.
	b2 := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a2 := b2.firstAccount(t)
	_, ids2 := b2.asyncRun(t, b2.twentyDays(a2))
	b2.fake.Srv.FailNextStatsJobs(stats.MaxJobFailures)
	b2.drive(t, ids2[:1])
	open, _, missing, err := stats.JobsStatus(context.Background(), b2.pool, b2.runner.RunID)
	require.NoError(t, err)
	require.Equal(t, len(ids2)-1, open)
	require.Len(t, missing, 1)
	require.Regexp(t, fmt.Sprintf(`^account %s CAMPAIGN [0-9a-z,]+ on (ALL_ON_SVC|PUBLISHER_NETWORK), \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$`, a2.ID), missing[0])
}

func TestAResultURLNotReadyYetIsWaitedFor(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second, FileUnready: 20 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	waits := b.drive(t, ids)
	require.Contains(t, waits, 5*time.Second, "the file's 404 after SUCCESS is waited out")
	b.requireCampaignTruth(t, a)
	require.Len(t, b.serviceJobs(t, a.ID), len(ids), "an unready file is not a reason to create the job again")
}

func TestTooManyJobsWaitsForAFreeSlot(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: time.Hour})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	var raw []byte
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT query FROM stats_jobs WHERE id = $1`, ids[0]).Scan(&raw))
	q := stats.QueryFromJSON(t, raw)
	// Another tool holds every slot of the account.
	var theirs []string
	for range stats.MaxActiveJobs {
		sj, err := stats.CreateJob(context.Background(), b.runner.Client, q, b.now)
		require.NoError(t, err)
		theirs = append(theirs, sj.ID)
	}
	step, err := b.runner.Advance(context.Background(), ids[0])
	require.NoError(t, err)
	require.Equal(t, 30*time.Second, step.Wait, "TOO_MANY_JOBS waits")
	var state string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT state FROM stats_jobs WHERE id = $1`, ids[0]).Scan(&state))
	require.Equal(t, stats.StatePending, state)

	for _, id := range theirs {
		_, err := b.runner.Client.Do(context.Background(), &api.Request{Method: "DELETE", Base: api.BaseAds,
			Path: "/12/stats/jobs/accounts/" + a.ID + "/" + id, Auth: api.AuthUser})
		require.NoError(t, err)
	}
	b.fake.Srv.SetStatsJobs(fixtures.StatsJobOptions{Delay: 2 * time.Second})
	b.drive(t, ids)
	b.requireCampaignTruth(t, a)
}

func TestEveryWorkerSharesTheAccountsHundredJobsThroughPostgres(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	// Rows of other workers' runs hold every slot.
	_, err := b.pool.Exec(context.Background(), `INSERT INTO stats_jobs (run_id, account_id, query, state, service_job_id)
        SELECT 0, $1, '{}', 'waiting', 'other' || g FROM generate_series(1, $2) g`, a.ID, stats.MaxActiveJobs)
	require.NoError(t, err)
	step, err := b.runner.Advance(context.Background(), ids[0])
	require.NoError(t, err)
	require.Equal(t, 30*time.Second, step.Wait)
	require.Empty(t, b.serviceJobs(t, a.ID), "no POST while Postgres says the slots are taken")
}

func TestSegmentedPullsGoThroughJobsAndTheirSegmentsSumToTheFakesTotals(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	from, to := a.LocalDate(b.now).AddDate(0, 0, -5), a.LocalDate(b.now).AddDate(0, 0, 1)
	rep, ids := b.asyncRun(t, stats.Request{Start: stats.Bound{T: from, Date: true}, Entities: []string{stats.EntityCampaign},
		Segmentation: "regions:" + fixtures.CountryKeys["US"]})
	require.Zero(t, rep.Requests, "a segmented request is never synchronous, however short")
	require.Positive(t, rep.Jobs)
	b.drive(t, ids)

	rows, err := b.pool.Query(context.Background(), `SELECT entity_type, entity_id, placement, bucket_date::text,
        sum(impressions), sum(engagements), sum(billed_charge_local_micro), count(DISTINCT segment_value)
    FROM ad_stats WHERE account_id = $1 AND segment_type = 'REGIONS:' || $2 GROUP BY 1, 2, 3, 4`, a.ID, fixtures.CountryKeys["US"])
	require.NoError(t, err)
	got := map[totalsKey]totals{}
	segments := 0
	for rows.Next() {
		k := totalsKey{account: a.ID}
		var v totals
		var imp, eng, charge *int64
		var n int
		require.NoError(t, rows.Scan(&k.entity, &k.id, &k.placement, &k.date, &imp, &eng, &charge, &n))
		for _, p := range []struct {
			src *int64
			dst *int64
		}{{imp, &v.impressions}, {eng, &v.engagements}, {charge, &v.charge}} {
			if p.src != nil {
				*p.dst = *p.src
			}
		}
		got[k] = v
		segments = max(segments, n)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, b.truth(t, a.ID, []string{stats.EntityCampaign}, from, to), got)
	require.Greater(t, segments, 1, "rows are per segment")
	require.Empty(t, b.stored(t, a.ID, from, to), "only the asked segmentation was pulled")
}

func TestSegmentationsThatNeedACountryOrPlatformSayHow(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"age": "AGE", "regions:96683cc9126741d1": "REGIONS:96683cc9126741d1", "PLATFORM_VERSIONS:1": "PLATFORM_VERSIONS:1",
	} {
		got, err := stats.NormalizeSegmentation(in)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	for in, want := range map[string]string{
		"REGIONS": "needs a country", "AGE:US": "takes no value", "": "want a segmentation_type",
	} {
		_, err := stats.NormalizeSegmentation(in)
		require.ErrorContains(t, err, want)
	}
}
