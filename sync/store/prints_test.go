package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// claimQueued sends QueueClaimPrints for k alone and returns its result.
func claimQueued(t *testing.T, pool *pgxpool.Pool, k store.UnitKey, complete bool) (from int64, live bool) {
	t.Helper()
	var c store.PrintsClaim
	b := &pgx.Batch{}
	store.QueueClaimPrints(b, "campaigns", k, complete, &c)
	require.NoError(t, pool.SendBatch(context.Background(), b).Close())
	require.True(t, c.Queued())
	from, live, err := c.Result()
	require.NoError(t, err)
	return from, live
}

// printsRun is the run whose prints (account, entity) trusts, 0 for none.
func printsRun(t *testing.T, pool *pgxpool.Pool, accountID, entity string) int64 {
	t.Helper()
	var run *int64
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT prints_run FROM sync_bookmarks WHERE account_id = $1 AND entity = $2`,
		accountID, entity).Scan(&run))
	if run == nil {
		return 0
	}
	return *run
}

// trustedThenNextRun trusts the prints of campaigns of account a1 for a
// run, and returns that run and the unit key of the same campaigns in a
// next run (not started).
func trustedThenNextRun(t *testing.T) (*pgxpool.Pool, int64, store.UnitKey) {
	t.Helper()
	ctx := context.Background()
	pool, run := setupRuns(t)
	tx(t, pool, func(tx pgx.Tx) error {
		return store.TrustPrints(ctx, tx, store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"})
	})
	next, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	return pool, run, store.UnitKey{RunID: next, AccountID: "a1", Entity: "campaigns"}
}

// twoKeptPagesClaimed is trustedThenNextRun with two kept pages, \x01 and
// \x02 (ids c1 and c2), and the next run's unit started and holding their
// claim as a complete listing.
func twoKeptPagesClaimed(t *testing.T) (*pgxpool.Pool, int64, store.UnitKey) {
	t.Helper()
	ctx := context.Background()
	pool, kept, k := trustedThenNextRun(t)
	_, err := pool.Exec(ctx, `INSERT INTO sync_page_prints (account_id, entity, print, ids, records, seen_run)
VALUES ('a1', 'campaigns', '\x01', '{c1}', 1, $1), ('a1', 'campaigns', '\x02', '{c2}', 1, $1)`, kept)
	require.NoError(t, err)
	require.NoError(t, store.StartUnit(ctx, pool, k))
	from, _ := claimQueued(t, pool, k, true)
	require.Equal(t, kept, from)
	return pool, kept, k
}

func TestAQueuedClaimOfPrintsTakesThemOnlyForARunningUnitAndOnlyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run, k2 := trustedThenNextRun(t)
	claimQueued(t, pool, k2, true)
	require.Equal(t, run, printsRun(t, pool, "a1", "campaigns"), "a unit that did not start claims nothing")

	require.NoError(t, store.StartUnit(ctx, pool, k2))
	from, live := claimQueued(t, pool, k2, true)
	require.Equal(t, run, from, "a complete running unit may use the prints")
	require.True(t, live, "a unit that trusts prints does not probe for live rows")
	require.Zero(t, printsRun(t, pool, "a1", "campaigns"), "claimed: no longer trusted")

	from, live = claimQueued(t, pool, k2, true)
	require.Zero(t, from, "claimed once")
	require.False(t, live, "without prints it probes: the table holds no live row of the account")
}

func TestAClaimOfPrintsByAnIncompleteUnitEndsTheTrustAndUsesNone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _, k2 := trustedThenNextRun(t)
	_, err := pool.Exec(ctx, `UPDATE sync_bookmarks SET bookmark = now() WHERE account_id = 'a1' AND entity = 'campaigns'`)
	require.NoError(t, err)
	require.NoError(t, store.StartUnit(ctx, pool, k2))
	from, live := claimQueued(t, pool, k2, false)
	require.Zero(t, from, "an incremental listing recognises no page")
	require.True(t, live, "an incremental unit does not sweep: nothing probed")
	require.Zero(t, printsRun(t, pool, "a1", "campaigns"))
}

func TestAPageFoundByItsPrintIsCountedWithTheCursorAfterItInOneStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, kept := setupRuns(t)
	_, err := pool.Exec(ctx, `INSERT INTO sync_page_prints (account_id, entity, print, ids, records, seen_run)
VALUES ('a1', 'campaigns', '\x01', '{c1,c2}', 2, $1)`, kept)
	require.NoError(t, err)
	run, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	require.NoError(t, store.StartUnit(ctx, pool, k))
	progress := func() (fetched, unchanged, pages int64, resume *string) {
		require.NoError(t, pool.QueryRow(ctx, `SELECT fetched, unchanged, pages, resume::text FROM sync_run_units
WHERE run_id = $1 AND account_id = $2 AND entity = $3`, k.RunID, k.AccountID, k.Entity).Scan(&fetched, &unchanged, &pages, &resume))
		return
	}

	found, err := store.MatchPrint(ctx, pool, k, kept, []byte{2}, 3, []byte(`{"next":"p2"}`))
	require.NoError(t, err)
	require.False(t, found)
	fetched, unchanged, pages, resume := progress()
	require.Zero(t, fetched+unchanged+pages, "a page not found is not counted")
	require.Nil(t, resume, "nor its cursor saved")

	found, err = store.MatchPrint(ctx, pool, k, kept, []byte{1}, 3, []byte(`{"next":"p2"}`))
	require.NoError(t, err)
	require.True(t, found)
	fetched, unchanged, pages, resume = progress()
	require.Equal(t, [3]int64{3, 2, 1}, [3]int64{fetched, unchanged, pages})
	require.NotNil(t, resume)
	require.JSONEq(t, `{"next":"p2"}`, *resume)

	// The unit's next attempt reads where it resumes as it starts.
	st, err := store.BeginUnit(ctx, pool, k, nil)
	require.NoError(t, err)
	require.True(t, st.Started)
	require.JSONEq(t, `{"next":"p2"}`, string(st.Resume))

	// A restart from scratch forgets it.
	require.NoError(t, store.RestartUnit(ctx, pool, k))
	_, _, _, resume = progress()
	require.Nil(t, resume)
}

func TestAUnitThatFoundEveryKeptPageTrustsThemWithItsLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, kept, k := twoKeptPagesClaimed(t)
	run := k.RunID
	lockAndTrust := func() (changed bool) {
		var trust store.PrintsTrust
		require.NoError(t, store.LockUnitQueueFunc(ctx, pool, k, func(b *pgx.Batch) { store.QueueTrustUnchanged(b, k, &trust) },
			func(pgx.Tx, string) error { return nil }))
		require.True(t, trust.Queued())
		return trust.Changed()
	}
	found, err := store.MatchPrint(ctx, pool, k, kept, []byte{1}, 1, nil)
	require.NoError(t, err)
	require.True(t, found)
	require.True(t, lockAndTrust(), "a kept page not found again")
	require.Zero(t, printsRun(t, pool, "a1", "campaigns"), "nor trusted")

	found, err = store.MatchPrint(ctx, pool, k, kept, []byte{2}, 1, nil)
	require.NoError(t, err)
	require.True(t, found)
	require.False(t, lockAndTrust(), "every kept page found, none stored")
	require.Equal(t, run, printsRun(t, pool, "a1", "campaigns"), "trusted for the unit's run")
}

// ANALYZE of the pages' tables, which autovacuum runs after about every
// full run, skips their ids arrays (read only whole, by unnest), and still
// gathers the other columns' statistics.
func TestAnalyzeOfThePagesTablesSkipsTheirIdsArrays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	_, err := pool.Exec(ctx, `INSERT INTO sync_unit_seen_pages (run_id, account_id, entity, ids, print, records)
SELECT $1, 'a' || g, 'campaigns', ARRAY['x' || g, 'y' || g], sha256(g::text::bytea), 2 FROM generate_series(1, 50) g`, run)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO sync_page_prints (account_id, entity, print, ids, records, seen_run)
SELECT account_id, entity, print, ids, records, run_id FROM sync_unit_seen_pages`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `ANALYZE sync_page_prints, sync_unit_seen_pages`)
	require.NoError(t, err)
	r, err := pool.Query(ctx, `SELECT tablename || '.' || attname FROM pg_stats
WHERE tablename IN ('sync_page_prints', 'sync_unit_seen_pages') AND schemaname = current_schema() ORDER BY 1`)
	require.NoError(t, err)
	columns, err := pgx.CollectRows(r, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, columns, "sync_page_prints.account_id", "the other columns keep their statistics")
	require.Contains(t, columns, "sync_unit_seen_pages.run_id")
	require.NotContains(t, columns, "sync_page_prints.ids")
	require.NotContains(t, columns, "sync_unit_seen_pages.ids")
}

// A unit's last page found by its print ends the unit in the same
// statement as its prints' trust: completed with its pages without records
// counted, its bookmark's full listing recorded. A last page not found ends
// nothing and counts nothing.
func TestAnUnchangedLastPageEndsItsUnitWithItsEmptyPagesAndTrustsItsPrints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, kept, k := twoKeptPagesClaimed(t)
	found, err := store.MatchPrint(ctx, pool, k, kept, []byte{1}, 1, nil)
	require.NoError(t, err)
	require.True(t, found)
	unit := func() (state string, pages int64) {
		require.NoError(t, pool.QueryRow(ctx, `SELECT state, pages FROM sync_run_units WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
			k.RunID, k.AccountID, k.Entity).Scan(&state, &pages))
		return state, pages
	}

	res, err := store.EndWithLastPrint(ctx, pool, k, store.LastPrint{From: kept, Print: []byte{3}, Fetched: 1}, true, 2)
	require.NoError(t, err)
	require.Equal(t, store.LastPrintEnd{}, res, "a page not found ends nothing")
	state, pages := unit()
	require.Equal(t, store.UnitRunning, state)
	require.EqualValues(t, 1, pages)
	require.Zero(t, printsRun(t, pool, "a1", "campaigns"), "the unit's claim took the trust, and gave none")

	res, err = store.EndWithLastPrint(ctx, pool, k, store.LastPrint{From: kept, Print: []byte{2}, Fetched: 1}, true, 2)
	require.NoError(t, err)
	require.Equal(t, store.LastPrintEnd{Found: true, Ended: true, RunDone: true}, res)
	state, pages = unit()
	require.Equal(t, store.UnitSucceeded, state)
	require.EqualValues(t, 4, pages, "its two pages and the two without records")
	require.Equal(t, k.RunID, printsRun(t, pool, "a1", "campaigns"), "trusted for the unit's run")
	var fullAt *time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT last_full_at FROM sync_bookmarks WHERE account_id = 'a1' AND entity = 'campaigns'`).Scan(&fullAt))
	require.NotNil(t, fullAt, "a complete listing")
}
