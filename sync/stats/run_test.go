package stats_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

type testBundle struct {
	fake   *synctest.Fake
	pool   *pgxpool.Pool
	runner *stats.Runner
	now    time.Time
}

// setup serves a fake whose clock stands still at fixtures.SuiteNow (so the
// ground truth cannot move between a pull and the comparison; tests move it
// with SetClockOffset). What these tests assert holds at any instant
// ADSYNC_TEST_NOW names: the generator keeps it on every date
// (fixtures' calendar walk).
func setup(t *testing.T, tweak func(*fixtures.Options)) *testBundle {
	t.Helper()
	now, err := fixtures.SuiteNow()
	require.NoError(t, err)
	return setupAt(t, now, tweak)
}

// setupAt is setup with the clock pinned at now, for a test that needs a
// date of its own (a daylight-saving change in the lookback).
func setupAt(t *testing.T, now time.Time, tweak func(*fixtures.Options)) *testBundle {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, func(o *fixtures.Options) {
		o.Now = func() time.Time { return now }
		o.TimestampWindow = max(o.TimestampWindow, time.Since(now).Abs()+time.Hour)
		if tweak != nil {
			tweak(o)
		}
	})
	b := &testBundle{fake: fake, pool: pool, now: now}
	b.runner = &stats.Runner{Client: fake.Client(t, pool), Pool: pool, Now: fake.Srv.Now}
	return b
}

// totalsKey is one entity, placement and local day.
type totalsKey struct {
	account, entity, id, placement, date string
}

type totals struct{ impressions, engagements, charge int64 }

// stored sums the stored DAY rows per entity, placement and local date
// within [from, to) local dates.
func (b *testBundle) stored(t *testing.T, account string, from, to time.Time) map[totalsKey]totals {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT entity_type, entity_id, placement, bucket_date::text,
        coalesce(sum(impressions), 0), coalesce(sum(engagements), 0), coalesce(sum(billed_charge_local_micro), 0)
    FROM ad_stats WHERE account_id = $1 AND granularity = 'DAY' AND segment_type = ''
        AND bucket_date >= $2::date AND bucket_date < $3::date
    GROUP BY 1, 2, 3, 4`, account, from.Format(time.DateOnly), to.Format(time.DateOnly))
	require.NoError(t, err)
	defer rows.Close()
	out := map[totalsKey]totals{}
	for rows.Next() {
		k := totalsKey{account: account}
		var v totals
		require.NoError(t, rows.Scan(&k.entity, &k.id, &k.placement, &k.date, &v.impressions, &v.engagements, &v.charge))
		if v != (totals{}) {
			out[k] = v
		}
	}
	require.NoError(t, rows.Err())
	return out
}

// truth is the fake's ground truth for the same days and entity types.
func (b *testBundle) truth(t *testing.T, account string, entities []string, from, to time.Time) map[totalsKey]totals {
	t.Helper()
	out := map[totalsKey]totals{}
	for _, e := range entities {
		rows, err := b.fake.Srv.AnalyticsTruth(fixtures.AnalyticsTruthFilter{AccountID: account, Entity: e,
			Start: from.Format(time.DateOnly), End: to.AddDate(0, 0, -1).Format(time.DateOnly)})
		require.NoError(t, err)
		for _, r := range rows {
			v := totals{r.Impressions, r.Engagements, r.BilledChargeLocalMicro}
			if v != (totals{}) {
				out[totalsKey{r.AccountID, r.Entity, r.EntityID, r.Placement, r.Date}] = v
			}
		}
	}
	return out
}

func (b *testBundle) accounts(t *testing.T) []stats.Account {
	t.Helper()
	accts, err := stats.Accounts(context.Background(), b.runner.Client, nil)
	require.NoError(t, err)
	require.NotEmpty(t, accts)
	return accts
}

// requireTruth checks the stored daily totals of the accounts (all when
// none are named) against the ground truth over each one's span.
func (b *testBundle) requireTruth(t *testing.T, spanOf func(stats.Account) stats.Span, only ...string) {
	t.Helper()
	for _, a := range b.accounts(t) {
		if len(only) > 0 && !slices.Contains(only, a.ID) {
			continue
		}
		s := spanOf(a)
		want := b.truth(t, a.ID, stats.DefaultEntities, s.Start, s.End)
		require.NotEmpty(t, want, "account %s has no delivery in the span", a.ID)
		require.Equal(t, want, b.stored(t, a.ID, s.Start, s.End), "account %s, %s to %s", a.ID,
			s.Start.Format(time.DateOnly), s.End.Format(time.DateOnly))
	}
}

func TestStoredDailyTotalsEqualTheFakesOverTheLookback(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	rep, err := b.runner.Run(context.Background(), stats.Request{})
	require.NoError(t, err)
	require.Positive(t, rep.Rows)
	b.requireTruth(t, func(a stats.Account) stats.Span { return a.Lookback(stats.Day, stats.DefaultLookback, b.now) })
	// Buckets where every metric is zero or null are not stored (the totals
	// above cannot tell: they sum to zero either way), and a metric the
	// answer leaves null stays NULL rather than 0.
	var empty, nulls int
	allZero := make([]string, 0, len(stats.ColumnNames()))
	for _, c := range stats.ColumnNames() {
		allZero = append(allZero, "coalesce("+c+", 0) = 0")
	}
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM ad_stats WHERE `+strings.Join(allZero, " AND ")).Scan(&empty))
	require.Zero(t, empty, "no stored bucket is all zeros and nulls")
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM ad_stats WHERE impressions IS NOT NULL AND video_views_100 IS NULL`).Scan(&nulls))
	require.Positive(t, nulls, "metrics absent from an answer are NULL")

	// A second run replaces: nothing is counted twice.
	rep2, err := b.runner.Run(context.Background(), stats.Request{})
	require.NoError(t, err)
	require.Equal(t, rep.Rows, rep2.Rows)
	b.requireTruth(t, func(a stats.Account) stats.Span { return a.Lookback(stats.Day, stats.DefaultLookback, b.now) })
}

func TestDaysAcrossADaylightSavingChangeEqualTheFakes(t *testing.T) {
	t.Parallel()
	// The generated accounts are in New York, Berlin (Los Angeles before
	// their switch) and Tokyo; each instant puts a change of New York's or
	// Berlin's offset inside the trailing 14 days, on the side of midnight
	// where the requested midnight's offset differs from the day's.
	for _, now := range []time.Time{
		time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC), // New York springs forward on March 8
		time.Date(2026, 4, 1, 22, 30, 0, 0, time.UTC), // Berlin springs forward on March 29
		time.Date(2026, 11, 3, 3, 45, 0, 0, time.UTC), // Berlin falls back on October 25, New York on November 1
	} {
		t.Run(now.Format(time.DateOnly), func(t *testing.T) {
			t.Parallel()
			b := setupAt(t, now, nil)
			_, err := b.runner.Run(context.Background(), stats.Request{})
			require.NoError(t, err)
			b.requireTruth(t, func(a stats.Account) stats.Span { return a.Lookback(stats.Day, stats.DefaultLookback, b.now) })
		})
	}
}

func TestDaysBeforeATimeZoneSwitchAreTheAccountsDaysOfThen(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *fixtures.Options) { o.Accounts = 2 }) // the second account changed zones 20 days ago
	accts := b.accounts(t)
	var switched stats.Account
	for _, a := range accts {
		if !a.SwitchDate.IsZero() && a.SwitchDate.After(a.LocalDate(b.now).AddDate(0, 0, -30)) {
			switched = a
		}
	}
	require.NotEmpty(t, switched.ID, "no account switched zones within 30 days")
	start := switched.LocalDate(b.now).AddDate(0, 0, -28)
	_, err := b.runner.Run(context.Background(), stats.Request{AccountIDs: []string{switched.ID},
		Start: stats.Bound{T: start, Date: true}})
	require.NoError(t, err)
	b.requireTruth(t, func(a stats.Account) stats.Span {
		return stats.Span{Start: start, End: a.LocalDate(b.now).AddDate(0, 0, 1)}
	}, switched.ID)
}

func TestLateChangesArePickedUpByTheLookback(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *fixtures.Options) { o.Accounts = 1 })
	_, err := b.runner.Run(context.Background(), stats.Request{})
	require.NoError(t, err)
	a := b.accounts(t)[0]
	lookback := func(stats.Account) stats.Span { return a.Lookback(stats.Day, stats.DefaultLookback, b.now) }
	before := b.stored(t, a.ID, lookback(a).Start, lookback(a).End)

	two := 2
	_, err = b.fake.Srv.AdjustMetrics(fixtures.MetricAdjustment{AccountID: a.ID, Metric: fixtures.AdjustBilling, DaysAgo: &two, Percent: -40})
	require.NoError(t, err)
	b.fake.Srv.SetClockOffset(time.Second) // the change lands after the first pull
	_, err = b.runner.Run(context.Background(), stats.Request{})
	require.NoError(t, err)
	b.requireTruth(t, lookback)
	require.NotEqual(t, before, b.stored(t, a.ID, lookback(a).Start, lookback(a).End), "the late change is in the second pull")
}

func TestHourlyRowsSumToTheFakesLocalDays(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *fixtures.Options) { o.Accounts = 1 })
	a := b.accounts(t)[0]
	from, to := a.LocalDate(b.now).AddDate(0, 0, -3), a.LocalDate(b.now).AddDate(0, 0, -1)
	rep, err := b.runner.Run(context.Background(), stats.Request{Granularity: stats.Hour, Entities: []string{stats.EntityLineItem},
		Start: stats.Bound{T: from, Date: true}, End: stats.Bound{T: to, Date: true}})
	require.NoError(t, err)
	require.Positive(t, rep.Rows)

	rows, err := b.pool.Query(context.Background(), `SELECT entity_type, entity_id, placement, bucket_date::text,
        coalesce(sum(impressions), 0), coalesce(sum(engagements), 0), coalesce(sum(billed_charge_local_micro), 0),
        bool_and(bucket_start = date_trunc('hour', bucket_start))
    FROM ad_stats WHERE account_id = $1 AND granularity = 'HOUR' GROUP BY 1, 2, 3, 4`, a.ID)
	require.NoError(t, err)
	got := map[totalsKey]totals{}
	for rows.Next() {
		k := totalsKey{account: a.ID}
		var v totals
		var whole bool
		require.NoError(t, rows.Scan(&k.entity, &k.id, &k.placement, &k.date, &v.impressions, &v.engagements, &v.charge, &whole))
		require.True(t, whole, "buckets start on whole UTC hours")
		if v != (totals{}) {
			got[k] = v
		}
	}
	require.NoError(t, rows.Err())
	require.Equal(t, b.truth(t, a.ID, []string{stats.EntityLineItem}, from, to), got)
}

func TestAResumedRunGoesOnFromTheFirstAccountNotDone(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	var checkpoints []stats.Report
	b.runner.Checkpoint = func(_ context.Context, _ pgx.Tx, rep stats.Report) error {
		checkpoints = append(checkpoints, rep)
		return nil
	}
	req := stats.Request{}
	full, err := b.runner.Run(context.Background(), req)
	require.NoError(t, err)
	require.True(t, full.Planned)
	require.Len(t, checkpoints, full.Accounts, "one checkpoint per account")
	require.Len(t, full.Done, full.Accounts)

	// The run stopped (a rate-limit snooze, a crash) after its first account.
	first := checkpoints[0]
	first.Planned = false
	req.Resume = first
	resumed, err := b.runner.Run(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, full.Accounts, resumed.Accounts)
	require.Equal(t, full.Requests, resumed.Requests, "the first account is not pulled again")
	require.Equal(t, full.Rows, resumed.Rows)
	b.requireTruth(t, func(a stats.Account) stats.Span { return a.Lookback(stats.Day, stats.DefaultLookback, b.now) })
}

// An account whose span can never be pulled is done at once with the
// reason, and the others are pulled: at the pinned instant it is already
// 11 March in Tokyo, and still 10 March in New York and Berlin.
func TestARunEndsTheAccountsWhoseSpanIsEmptyAndPullsTheOthers(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	b := setupAt(t, now, func(o *fixtures.Options) { o.Accounts = 3 })
	zones := map[string]string{}
	for _, a := range b.accounts(t) {
		zones[a.Zone.String()] = a.ID
	}
	require.Len(t, zones, 3)
	tokyo := zones["Asia/Tokyo"]
	require.NotEmpty(t, tokyo)
	var done []string
	b.runner.Checkpoint = func(_ context.Context, _ pgx.Tx, rep stats.Report) error {
		done = rep.Done
		return nil
	}
	rep, err := b.runner.Run(context.Background(), stats.Request{Entities: []string{stats.EntityCampaign},
		Start: stats.Bound{T: time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC), Date: true}})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Accounts, "Tokyo only")
	require.Equal(t, 1, rep.AccountDays)
	require.ElementsMatch(t, []string{
		"account " + zones["America/New_York"] + ": the span starts 2026-03-11, after today there (2026-03-10 in America/New_York): it has no data yet",
		"account " + zones["Europe/Berlin"] + ": the span starts 2026-03-11, after today there (2026-03-10 in Europe/Berlin): it has no data yet",
	}, rep.Empty)
	require.Len(t, done, 3, "every account is done, the empty ones at once")
	outcome, reason := rep.Outcome()
	require.Equal(t, "partial", outcome)
	require.Contains(t, reason, zones["Europe/Berlin"])
	require.Positive(t, rep.ActiveRequests)
	var others int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM ad_stats WHERE account_id <> $1`, tokyo).Scan(&others))
	require.Zero(t, others, "nothing asked for the empty accounts")
}

// A run from 1900 to 2100, as a queued or scheduled run carries it (no
// command checked it), pulls each account's life only: one active entities
// request per account and entity type (the fake's accounts are 30 to 60
// days old), not one per 90 days of two centuries.
func TestARunFrom1900To2100PullsOnlyTheAccountsLives(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	accts := b.accounts(t)
	rep, err := b.runner.Run(context.Background(), stats.Request{Entities: []string{stats.EntityCampaign},
		Start: stats.Bound{T: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), Date: true},
		End:   stats.Bound{T: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), Date: true}})
	require.NoError(t, err)
	require.Equal(t, len(accts), rep.ActiveRequests)
	require.Equal(t, len(accts), b.fake.Srv.Stats().Family("GET /12/stats/accounts/{account_id}/active_entities").Requests)
	most := 0
	for _, a := range accts {
		most += int(a.LocalDate(b.now).Sub(a.LocalDate(a.Created))/(24*time.Hour)) + 2
	}
	require.LessOrEqual(t, rep.AccountDays, most, "the days from each account's creation through today")
	require.Positive(t, rep.Rows)
}

// A run over its share of the active entities window fails before its
// first request, with the figure, whoever queued it.
func TestARunOverItsBudgetShareFailsBeforeItsFirstRequest(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	accts := b.accounts(t)
	b.runner.Settings.MaxBudgetShare = 0.001 // two requests
	_, err := b.runner.Run(context.Background(), stats.Request{})
	var be *stats.BudgetError
	require.ErrorAs(t, err, &be)
	require.Equal(t, len(accts)*len(stats.DefaultEntities), be.Requests, "the lookback: one request per account and entity type")
	require.Zero(t, b.fake.Srv.Stats().Family("GET /12/stats/accounts/{account_id}/active_entities").Requests)
}
