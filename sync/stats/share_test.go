package stats_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// intentOf is row id's intent: the service's clock and the jobs it saw.
func (b *testBundle) intentOf(t *testing.T, id int64) (time.Time, []string) {
	t.Helper()
	var at *time.Time
	var seen []string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT intent_service_at, intent_seen_jobs FROM stats_jobs WHERE id = $1`, id).
		Scan(&at, &seen))
	require.NotNil(t, at, "row %d has no intent", id)
	return *at, seen
}

func TestOneListingIsTheIntentOfEveryPostOfAnAccount(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *fixtures.Options) {
		o.Accounts = 2
		o.StatsJobs = fixtures.StatsJobOptions{Delay: 4 * time.Second}
	})
	calls := b.countCalls(t)
	lookback := func(a stats.Account) stats.Span { return a.Lookback(stats.Day, stats.DefaultLookback, b.now) }
	gets := func() int { return b.fake.Srv.Stats().Family("GET /12/stats/jobs/accounts/{account_id}").Requests }
	posts := func() int { return b.fake.Srv.Stats().Family("POST /12/stats/jobs/accounts/{account_id}").Requests }

	rep, ids := b.asyncRun(t, stats.Request{})
	require.Greater(t, rep.Jobs, 2*2, "several jobs per account")
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireTruth(t, lookback)
	// Counted by the fake: a POST per job, and besides the polls one
	// listing per account for all its POSTs' intents.
	require.Equal(t, rep.Jobs, posts())
	require.Equal(t, 2, gets()-int(calls.polls.Load()), "one listing per account for %d POSTs", rep.Jobs)
	intents := map[string]time.Time{}
	for _, id := range ids {
		at, _ := b.intentOf(t, id)
		var account string
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT account_id FROM stats_jobs WHERE id = $1`, id).Scan(&account))
		if first, ok := intents[account]; ok {
			require.Equal(t, first, at, "every row of account %s has its listing's intent", account)
		}
		intents[account] = at
	}
	require.Len(t, intents, 2)

	// Seconds later, a second run: its rows were recorded after those
	// listings, which serve none of them.
	before, polls := gets(), calls.polls.Load()
	rep, ids = b.asyncRun(t, stats.Request{})
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireTruth(t, lookback)
	require.Equal(t, 2, gets()-before-int(calls.polls.Load()-polls), "a listing per account for the second run's %d POSTs", rep.Jobs)
}

// A crash between a listing and a later POST it serves (or that POST's
// answer) still finds the POST's job: the listing is on the row, in
// Postgres, and the job is younger than it.
func TestALostPostAnswerWhoseIntentWasAnEarlierPostsListingIsAdopted(t *testing.T) {
	t.Parallel()
	for _, kind := range []fixtures.FaultKind{fixtures.FaultReset, fixtures.FaultResetAfter} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := fixedAsyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
			a := b.firstAccount(t)
			calls := b.countCalls(t)
			_, ids := b.asyncRun(t, b.twentyDays(a))
			require.GreaterOrEqual(t, len(ids), 2)
			step, err := b.runner.Advance(ctx, ids[0]) // lists the account's jobs, then posts
			require.NoError(t, err)
			require.False(t, step.Done)
			require.EqualValues(t, 1, calls.lists.Load())

			// Half a minute on, another process (nothing of the first in
			// memory) posts the second row's job, and the answer is lost.
			b.tick(30 * time.Second)
			other := &stats.Runner{Client: b.runner.Client, Pool: b.pool, Now: b.fake.Srv.Now}
			b.loseNextPostAnswer(kind)
			_, err = other.Advance(ctx, ids[1])
			require.Error(t, err, "the POST's answer is lost")
			require.EqualValues(t, 1, calls.lists.Load(), "no listing before the second POST")
			first, _ := b.intentOf(t, ids[0])
			second, _ := b.intentOf(t, ids[1])
			require.Equal(t, first, second, "the second POST's intent is the first's listing")
			posted := b.serviceJobs(t, a.ID)

			_, err = other.Advance(ctx, ids[1])
			require.NoError(t, err)
			if kind == fixtures.FaultResetAfter {
				require.Len(t, posted, 2, "the lost answer's POST created its job")
				require.Equal(t, posted[0].ID, b.serviceJobOf(t, ids[1]), "and it is adopted")
			} else {
				require.Len(t, posted, 1, "the lost POST created nothing")
				require.NotEqual(t, posted[0].ID, b.serviceJobOf(t, ids[1]), "the first row's job is not taken")
			}
			b.drive(t, ids)
			b.requireCampaignTruth(t, a)
			require.Len(t, b.serviceJobs(t, a.ID), len(ids), "no job created twice")
		})
	}
}

// A listing serves only rows recorded before it was asked for: a job
// another tool created after an earlier run's listing, before a late
// change, is not adopted by a row of a later run whose POST was lost,
// however young that listing still is.
func TestAListingOlderThanARowNeverServesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := fixedAsyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	req := b.twentyDays(a)
	_, first := b.asyncRun(t, req)
	_, err := b.runner.Advance(ctx, first[0]) // takes the account's listing and posts
	require.NoError(t, err)
	var raw []byte
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT query FROM stats_jobs WHERE id = $1`, first[0]).Scan(&raw))
	b.tick(time.Second)
	// Another tool asks for the same job, recorded by no row.
	theirs, err := stats.CreateJob(ctx, b.runner.Client, stats.QueryFromJSON(t, raw), b.fake.Srv.Now())
	require.NoError(t, err)
	b.tick(time.Second)
	two := 2
	_, err = b.fake.Srv.AdjustMetrics(fixtures.MetricAdjustment{AccountID: a.ID, Metric: fixtures.AdjustBilling, DaysAgo: &two, Percent: -40})
	require.NoError(t, err)
	b.tick(time.Second)

	_, ids := b.asyncRun(t, req)
	var mine int64
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT id FROM stats_jobs WHERE run_id = $1 AND query = $2::jsonb`, b.runner.RunID, raw).
		Scan(&mine))
	// The POST never reaches the service: their job is the only one of its
	// parameters since the first run's listing.
	b.loseNextPostAnswer(fixtures.FaultReset)
	_, err = b.runner.Advance(ctx, mine)
	require.Error(t, err)
	b.drive(t, ids)

	require.NotEqual(t, theirs.ID, b.serviceJobOf(t, mine), "their job, older than the row, is not adopted")
	require.Zero(t, b.rowsOfJobs(t, []string{theirs.ID}))
	b.requireCampaignTruth(t, a)
}

// A row sent back to pending (its job FAILED) is a new need: a listing
// taken before serves its next POST no more, however young.
func TestARowCreatedAgainTakesAListingAfterItWasSentBack(t *testing.T) {
	t.Parallel()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	calls := b.countCalls(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	b.fake.Srv.FailNextStatsJobs(1)
	runLikeRiver(t, b.runner, b.fake.Srv, ids)
	b.requireCampaignTruth(t, a)
	var again int64
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT id FROM stats_jobs WHERE failures = 1`).Scan(&again))
	require.EqualValues(t, 2, calls.lists.Load(), "the run's listing, and one after the failure")
	other := ids[0]
	if other == again {
		other = ids[1]
	}
	shared, _ := b.intentOf(t, other)
	own, _ := b.intentOf(t, again)
	require.True(t, own.After(shared), "the row created again has an intent of its own: %s after %s", own, shared)
}
