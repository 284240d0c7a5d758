package stats_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// fixedNow is the instant the fake's clock stands at in these tests (moved
// only by the waits the tests drive), never today's date.
var fixedNow = time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)

// fixedAsyncSetup serves one account at fixedNow; the client signs with
// the real time, which the wide timestamp window accepts.
func fixedAsyncSetup(t *testing.T, jobs fixtures.StatsJobOptions) *testBundle {
	return setupAt(t, fixedNow, func(o *fixtures.Options) {
		o.Accounts = 1
		o.StatsJobs = jobs
		o.TimestampWindow = 24 * 365 * 10 * time.Hour
	})
}

func (b *testBundle) tick(d time.Duration) { b.fake.Srv.SetClockOffset(b.fake.Srv.ClockOffset() + d) }

// lateBillingChange stores a first run, then makes a late change of
// billing the first run's jobs do not hold, and returns those jobs.
func (b *testBundle) lateBillingChange(t *testing.T, a stats.Account, req stats.Request) []string {
	t.Helper()
	_, ids := b.asyncRun(t, req)
	b.drive(t, ids)
	var old []string
	for _, sj := range b.serviceJobs(t, a.ID) {
		old = append(old, sj.ID)
	}
	b.tick(time.Second)
	two := 2
	_, err := b.fake.Srv.AdjustMetrics(fixtures.MetricAdjustment{AccountID: a.ID, Metric: fixtures.AdjustBilling, DaysAgo: &two, Percent: -40})
	require.NoError(t, err)
	b.tick(time.Second)
	return old
}

func (b *testBundle) rowsOfJobs(t *testing.T, jobs []string) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM ad_stats WHERE job_id = ANY($1)`, jobs).Scan(&n))
	return n
}

func TestALostPostAnswerNeverAdoptsAnEarlierRunsJob(t *testing.T) {
	t.Parallel()
	for _, kind := range []fixtures.FaultKind{fixtures.FaultReset, fixtures.FaultResetAfter} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			b := fixedAsyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
			a := b.firstAccount(t)
			req := b.twentyDays(a)
			old := b.lateBillingChange(t, a, req)
			from, to := a.LocalDate(b.now).AddDate(0, 0, -20), a.LocalDate(b.now).AddDate(0, 0, 1)
			require.NotEqual(t, b.truth(t, a.ID, []string{stats.EntityCampaign}, from, to), b.stored(t, a.ID, from, to),
				"the late change is not in the first run's rows")

			_, ids := b.asyncRun(t, req)
			b.loseNextPostAnswer(kind)
			_, err := b.runner.Advance(context.Background(), ids[0])
			require.Error(t, err, "the POST's answer is lost")
			b.drive(t, ids)

			b.requireCampaignTruth(t, a)
			require.Zero(t, b.rowsOfJobs(t, old), "no row of the first run's jobs is left")
			require.NotContains(t, old, b.serviceJobOf(t, ids[0]))
			if kind == fixtures.FaultResetAfter {
				require.Len(t, b.serviceJobs(t, a.ID), len(old)+len(ids), "the lost answer's job was adopted, none created twice")
			}
		})
	}
}

func TestAFreshJobThatFailedIsAdoptedNotAnOlderSuccessBesideIt(t *testing.T) {
	t.Parallel()
	b := fixedAsyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	req := b.twentyDays(a)
	old := b.lateBillingChange(t, a, req)

	_, ids := b.asyncRun(t, req)
	b.fake.Srv.SetStatsJobs(fixtures.StatsJobOptions{}) // jobs end at once
	b.fake.Srv.FailNextStatsJobs(1)
	b.loseNextPostAnswer(fixtures.FaultResetAfter)
	_, err := b.runner.Advance(context.Background(), ids[0])
	require.Error(t, err)
	fresh := b.serviceJobs(t, a.ID)[0]
	require.Equal(t, stats.JobFailed, fresh.Status)
	require.Contains(t, old, b.serviceJobs(t, a.ID)[1].ID, "an older job of the same parameters is beside it")

	// The next attempt adopts the FAILED job, creates another and (jobs
	// being first looked at after the time they take) waits for it.
	b.drive(t, ids[:1])
	var failures int
	var past []string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT failures, past_job_ids FROM stats_jobs WHERE id = $1`, ids[0]).
		Scan(&failures, &past))
	require.Equal(t, 1, failures, "the fresh FAILED job counted as this attempt's failure")
	require.Equal(t, []string{fresh.ID}, past)
	require.NotContains(t, old, b.serviceJobOf(t, ids[0]))
	b.drive(t, ids)
	b.requireCampaignTruth(t, a)
	require.Zero(t, b.rowsOfJobs(t, old))
}

// waitingJobs advances the first two rows until each has its service job
// and returns those jobs.
func (b *testBundle) waitingJobs(t *testing.T, ids []int64) (string, string) {
	t.Helper()
	require.GreaterOrEqual(t, len(ids), 2)
	for _, id := range ids[:2] {
		step, err := b.runner.Advance(context.Background(), id)
		require.NoError(t, err)
		require.False(t, step.Done)
	}
	return b.serviceJobOf(t, ids[0]), b.serviceJobOf(t, ids[1])
}

func (b *testBundle) requireNoRows(t *testing.T) {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM ad_stats`).Scan(&n))
	require.Zero(t, n)
}

// advanceUntilError advances row id, moving the fake's clock by each wait,
// until it fails.
func (b *testBundle) advanceUntilError(t *testing.T, id int64) error {
	t.Helper()
	for i := 0; i < 50; i++ {
		step, err := b.runner.Advance(context.Background(), id)
		if err != nil {
			return err
		}
		require.False(t, step.Done, "row %d was stored", id)
		b.tick(step.Wait)
	}
	t.Fatalf("row %d never failed", id)
	return nil
}

func TestAJobAnsweringOtherParametersStoresNothingAndNamesBoth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		mixup func(mine, other string) fixtures.StatsMixups
		says  func(mine string) string
	}{
		{"record", func(mine, other string) fixtures.StatsMixups {
			return fixtures.StatsMixups{RecordOf: map[string]string{mine: other}}
		}, func(mine string) string { return "stats job " + mine }},
		{"file", func(mine, other string) fixtures.StatsMixups {
			return fixtures.StatsMixups{FileOf: map[string]string{mine: other}}
		}, func(mine string) string { return "the file of stats job " + mine }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := fixedAsyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
			a := b.firstAccount(t)
			_, ids := b.asyncRun(t, b.twentyDays(a))
			mine, other := b.waitingJobs(t, ids)
			require.NoError(t, b.fake.Srv.MixUpStats(tc.mixup(mine, other)))
			err := b.advanceUntilError(t, ids[0])
			var me *stats.MismatchError
			require.True(t, errors.As(err, &me), "%v", err)
			require.Contains(t, err.Error(), tc.says(mine))
			require.Contains(t, me.Asked, "account "+a.ID+" CAMPAIGN ")
			require.NotEqual(t, me.Asked, me.Got, "both are named")
			require.NotEmpty(t, me.Fields)
			b.requireNoRows(t)
		})
	}
}

func TestAnAnswerWithAnIDNotAskedForStoresNothing(t *testing.T) {
	t.Parallel()
	t.Run("synchronous", func(t *testing.T) {
		t.Parallel()
		b := setupAt(t, fixedNow, func(o *fixtures.Options) {
			o.Accounts = 1
			o.TimestampWindow = 24 * 365 * 10 * time.Hour
		})
		require.NoError(t, b.fake.Srv.MixUpStats(fixtures.StatsMixups{StrayID: "424242", StrayNext: 1}))
		_, err := b.runner.Run(context.Background(), stats.Request{})
		var me *stats.MismatchError
		require.True(t, errors.As(err, &me), "%v", err)
		require.Contains(t, err.Error(), "id 424242")
		b.requireNoRows(t)
	})
	t.Run("job file", func(t *testing.T) {
		t.Parallel()
		b := fixedAsyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
		a := b.firstAccount(t)
		_, ids := b.asyncRun(t, b.twentyDays(a))
		require.NoError(t, b.fake.Srv.MixUpStats(fixtures.StatsMixups{StrayID: "424242", StrayNext: 1}))
		err := b.advanceUntilError(t, ids[0])
		var me *stats.MismatchError
		require.True(t, errors.As(err, &me), "%v", err)
		require.Contains(t, err.Error(), "id 424242")
		b.requireNoRows(t)
	})
}

func TestARerunRemovesRowsOfIdsNotActiveInItsSpan(t *testing.T) {
	t.Parallel()
	b := setupAt(t, fixedNow, func(o *fixtures.Options) {
		o.Accounts = 1
		o.TimestampWindow = 24 * 365 * 10 * time.Hour
	})
	a := b.firstAccount(t)
	_, err := b.runner.Run(context.Background(), stats.Request{})
	require.NoError(t, err)
	lookback := func(stats.Account) stats.Span { return a.Lookback(stats.Day, stats.DefaultLookback, b.now) }
	span := lookback(a)
	// A bad run left rows of an id with no delivery in the span, and of an
	// active id on days it did not deliver; a row before the span and one
	// of another account are not the run's to judge.
	insert := func(account, id string, date time.Time) {
		_, err := b.pool.Exec(context.Background(), `INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity,
            bucket_date, fetched_at, job_id, impressions) VALUES ($1, 'CAMPAIGN', $2, 'ALL_ON_SVC', 'DAY', $3::date, now(), '', 7)`,
			account, id, date.Format(time.DateOnly))
		require.NoError(t, err)
	}
	insert(a.ID, "not-active", span.Start.AddDate(0, 0, 3))
	insert(a.ID, "not-active", span.Start.AddDate(0, 0, -3))
	insert("another-account", "not-active", span.Start.AddDate(0, 0, 3))
	require.NotEqual(t, b.truth(t, a.ID, stats.DefaultEntities, span.Start, span.End), b.stored(t, a.ID, span.Start, span.End))

	_, err = b.runner.Run(context.Background(), stats.Request{})
	require.NoError(t, err)
	b.requireTruth(t, lookback)
	var left []string
	rows, err := b.pool.Query(context.Background(), `SELECT account_id || ' ' || bucket_date::text FROM ad_stats
        WHERE entity_id = 'not-active' ORDER BY 1`)
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		left = append(left, s)
	}
	require.NoError(t, rows.Err())
	require.ElementsMatch(t, []string{a.ID + " " + span.Start.AddDate(0, 0, -3).Format(time.DateOnly),
		"another-account " + span.Start.AddDate(0, 0, 3).Format(time.DateOnly)}, left)
}

func TestTheReportCountsTheJobsRequestsAnd429sApart(t *testing.T) {
	t.Parallel()
	b := fixedAsyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	b.useFakeClock(t)
	a := b.firstAccount(t)
	rep, ids := b.asyncRun(t, b.twentyDays(a))
	b.fake.Srv.AddFault(fixtures.FaultRule{Path: "**/stats/jobs/accounts/*", Method: "GET", Kind: fixtures.Fault429, Times: 1})
	before := b.jobCalls()
	b.drive(t, ids)
	sent := b.jobCalls() - before

	requests, limited, err := stats.JobsRequests(context.Background(), b.pool, b.runner.RunID)
	require.NoError(t, err)
	require.Equal(t, 1, limited, "the 429 is counted apart")
	require.Equal(t, sent, requests+limited, "every request the service saw is counted once, its 429 apart")
	// At least a POST and a download per job, the listing their intents
	// share and a poll.
	require.GreaterOrEqual(t, requests, 2*rep.Jobs+2)
}

// useFakeClock gives the runner a client that reads the fake's clock and
// waits (for a rate-limit window, a backoff) by moving it, never sleeping.
func (b *testBundle) useFakeClock(t *testing.T) {
	t.Helper()
	now := func() time.Time { return b.now.Add(b.fake.Srv.ClockOffset()) }
	cfg := b.fake.Config(b.pool)
	cfg.Now = now
	cfg.Governor = api.NewGovernor(api.PGStore{Pool: b.pool})
	cfg.Governor.Now = now
	cfg.Governor.Sleep = func(_ context.Context, d time.Duration) error {
		b.tick(max(d, 0))
		return nil
	}
	c, err := api.NewClient(cfg)
	require.NoError(t, err)
	b.runner.Client = c
}

// jobCalls counts the requests the fake saw for jobs and their files.
func (b *testBundle) jobCalls() int {
	n := 0
	for name, f := range b.fake.Srv.Stats().Families {
		if strings.Contains(name, "/stats/jobs/") || name == fixtures.FamilyStatsFile {
			n += f.Requests
		}
	}
	return n
}

// The Date header and created_at have whole seconds: a job created by
// someone else in the very second of the intent, before it, is not
// adopted, and the fresh job of that same second is.
func TestTheIntentsSecondKeepsAnOlderJobOutAndTheFreshOneIn(t *testing.T) {
	t.Parallel()
	for _, kind := range []fixtures.FaultKind{fixtures.FaultReset, fixtures.FaultResetAfter} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			b := setupAt(t, fixedNow.Add(200*time.Millisecond), func(o *fixtures.Options) {
				o.Accounts = 1
				o.StatsJobs = fixtures.StatsJobOptions{Delay: 2 * time.Second}
				o.TimestampWindow = 24 * 365 * 10 * time.Hour
			})
			a := b.firstAccount(t)
			_, ids := b.asyncRun(t, b.twentyDays(a))
			var raw []byte
			require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT query FROM stats_jobs WHERE id = $1`, ids[0]).Scan(&raw))
			// Another tool asks for the same job, unrecorded by any row.
			theirs, err := stats.CreateJob(context.Background(), b.runner.Client, stats.QueryFromJSON(t, raw), b.now)
			require.NoError(t, err)
			b.tick(300 * time.Millisecond) // the same second

			b.loseNextPostAnswer(kind)
			_, err = b.runner.Advance(context.Background(), ids[0])
			require.Error(t, err)
			jobs := b.serviceJobs(t, a.ID)
			for _, sj := range jobs {
				require.Equal(t, theirs.CreatedAt, sj.CreatedAt, "every job is of the intent's second")
			}
			_, err = b.runner.Advance(context.Background(), ids[0])
			require.NoError(t, err)
			mine := b.serviceJobOf(t, ids[0])
			require.NotEqual(t, theirs.ID, mine, "the older job of the intent's second is not adopted")
			if kind == fixtures.FaultResetAfter {
				require.Equal(t, jobs[0].ID, mine, "the fresh job of the intent's second is adopted")
				require.Len(t, b.serviceJobs(t, a.ID), 2, "and none created again")
			}
		})
	}
}

func TestTheReportCountsTheSynchronousPulls429sApart(t *testing.T) {
	t.Parallel()
	b := fixedAsyncSetup(t, fixtures.StatsJobOptions{})
	b.useFakeClock(t)
	b.fake.Srv.AddFault(fixtures.FaultRule{Path: "**/stats/accounts/*", Method: "GET", Kind: fixtures.Fault429, Times: 2})
	rep, err := b.runner.Run(context.Background(), stats.Request{})
	require.NoError(t, err)
	require.Equal(t, 2, rep.RateLimited, "each 429 is counted, apart from the requests")
	sent := 0
	for name, f := range b.fake.Srv.Stats().Families {
		if strings.Contains(name, "/stats/accounts/") && !strings.Contains(name, "active_entities") {
			sent += f.Requests
		}
	}
	require.Equal(t, sent, rep.Requests+rep.RateLimited, "every synchronous request the service saw is counted once, its 429s apart")
}
