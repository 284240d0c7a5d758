package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// A unit that trusts its prints and finds its last page by its print ends
// in that round trip when it allows it (ads.Unit.EndsWithLastPage, as the
// sync unit job does): it has ended when Sync returns, and Finish returns
// that end. Without it, Finish ends the unit. A unit ended meanwhile by
// someone else is not ended again, and Finish says it had ended.
func TestAnUnchangedUnitEndsWithTheRoundTripOfItsLastPage(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, func(d *jobs.Deps, _ *synctest.Fake) { d.SyncPageSize = 5 })
	ctx := context.Background()
	full := jobs.SyncRunArgs{Entities: []string{"campaigns"}, Full: true}
	first := b.run(t, full)
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	r, err := b.pool.Query(ctx, `SELECT account_id FROM campaigns GROUP BY 1 HAVING count(*) > 5 ORDER BY 1 LIMIT 3`)
	require.NoError(t, err)
	accounts, err := pgx.CollectRows(r, pgx.RowTo[string])
	require.NoError(t, err)
	require.Len(t, accounts, 3, "three accounts of more than one page")

	runID, err := jobs.CreateSyncRun(ctx, b.deps, full)
	require.NoError(t, err)
	e, ok := ads.Lookup("campaigns")
	require.True(t, ok)
	s := &ads.Syncer{API: b.deps.API, Pool: b.pool, PageSize: 5, Users: b.deps.Users}
	units := make([]*ads.Unit, len(accounts))
	// The units' first requests are reserved in their Begin's round trip
	// (the deployment has one user), and each is taken by that request or
	// given back: none stays in flight.
	inflight := func() (n int) {
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT coalesce(sum(inflight), 0) FROM api_rate_limits
WHERE bucket LIKE $1 || '|%' AND split_part(bucket, '|account:', 2) = ANY($2)`, e.Endpoint, accounts).Scan(&n))
		return n
	}
	require.Eventually(t, func() bool { return inflight() == 0 }, patience, 10*time.Millisecond)
	for i, a := range accounts {
		units[i] = &ads.Unit{RunID: runID, AccountID: a, Entity: e, Full: true, KeepsCursor: true, EndsWithLastPage: i != 1}
		skip, err := s.Begin(ctx, units[i])
		require.NoError(t, err)
		require.False(t, skip)
	}
	require.Equal(t, len(accounts), inflight(), "each Begin reserved its unit's first request")
	state := func(u *ads.Unit) (st string, pages, known int) {
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT state, pages, known_pages FROM sync_run_units
WHERE run_id = $1 AND account_id = $2 AND entity = $3`, runID, u.AccountID, e.Name).Scan(&st, &pages, &known))
		return st, pages, known
	}

	// Ended by someone else after its start: its pages are counted as
	// found, and it stays as it was ended.
	_, err = b.pool.Exec(ctx, `UPDATE sync_run_units SET state = 'failed', error = 'by hand'
WHERE run_id = $1 AND account_id = $2 AND entity = $3`, runID, accounts[2], e.Name)
	require.NoError(t, err)
	var listed int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT pages FROM sync_run_units WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
		first.ID, accounts[2], e.Name).Scan(&listed))
	require.NoError(t, s.Sync(ctx, units[2], ads.Cursor{}))
	_, err = s.Finish(ctx, units[2])
	require.ErrorIs(t, err, ads.ErrUnitDone)
	st, pages, _ := state(units[2])
	require.Equal(t, "failed", st)
	require.Equal(t, listed, pages, "each page found by its print is counted, the last too")

	// Without EndsWithLastPage: running until Finish.
	require.NoError(t, s.Sync(ctx, units[1], ads.Cursor{}))
	st, pages, known := state(units[1])
	require.Equal(t, store.UnitRunning, st)
	require.Equal(t, pages, known)
	runDone, err := s.Finish(ctx, units[1])
	require.NoError(t, err)
	require.False(t, runDone, "a unit is still open")
	st, _, _ = state(units[1])
	require.Equal(t, "succeeded", st)

	// With it: ended when Sync returns, every page found by its print.
	require.NoError(t, s.Sync(ctx, units[0], ads.Cursor{}))
	st, pages, known = state(units[0])
	require.Equal(t, "succeeded", st, "ended with its last page")
	require.Greater(t, pages, 1)
	require.Equal(t, pages, known)
	runDone, err = s.Finish(ctx, units[0])
	require.NoError(t, err)
	require.True(t, runDone, "the run's last open unit ended it")
	run, err := store.GetRun(ctx, b.pool, runID)
	require.NoError(t, err)
	require.Equal(t, "partial", run.Outcome, run.Error)
	c := entityCounts(run, "campaigns")
	require.Zero(t, c.Inserted+c.Updated+c.Deleted)
	requireTruth(t, b, "campaigns")

	// A changed first page and the last one unchanged: the last is found,
	// but the unit does not end with it, and Finish keeps the stored
	// page's print: the next run finds every page again.
	_, err = b.fake.Srv.AdsMutate(fixtures.AdsMutation{AccountID: accounts[0], Kind: "campaigns", Change: 1})
	require.NoError(t, err)
	changed := b.run(t, full)
	require.Equal(t, "succeeded", changed.Outcome, changed.Error)
	require.EqualValues(t, 1, entityCounts(changed, "campaigns").Updated)
	next := b.run(t, full)
	require.Equal(t, "succeeded", next.Outcome, next.Error)
	pages, known = unitPages(t, b.pool, next.ID, "campaigns")
	require.Equal(t, pages, known, "every page found by its print")
	requireTruth(t, b, "campaigns")
	require.Eventually(t, func() bool { return inflight() == 0 }, patience, 10*time.Millisecond,
		"every reservation was answered")

	// A unit whose saved cursor says its listing is done (a retry after
	// its last page) sends no request: Sync gives Begin's reservation back.
	retried, err := jobs.CreateSyncRun(ctx, b.deps, full)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `INSERT INTO sync_run_units (run_id, account_id, entity, state, started_at, resume)
VALUES ($1, $2, $3, 'running', now(), '{"started": true, "done": true}')`, retried, accounts[1], e.Name)
	require.NoError(t, err)
	u := &ads.Unit{RunID: retried, AccountID: accounts[1], Entity: e, Full: true, KeepsCursor: true, EndsWithLastPage: true}
	skip, err := s.Begin(ctx, u)
	require.NoError(t, err)
	require.False(t, skip)
	require.Equal(t, 1, inflight(), "Begin reserved the unit's first request")
	require.NoError(t, s.Sync(ctx, u, ads.Cursor{}))
	require.Zero(t, inflight(), "the reservation no request took was given back")
}
