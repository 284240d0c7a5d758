package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func setupRuns(t *testing.T) (*pgxpool.Pool, int64) {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	id, err := store.CreateRun(context.Background(), pool, "sync", "manual", map[string]any{"full": false})
	require.NoError(t, err)
	return pool, id
}

func tx(t *testing.T, pool *pgxpool.Pool, f func(pgx.Tx) error) {
	t.Helper()
	require.NoError(t, pgx.BeginFunc(context.Background(), pool, f))
}

func TestBookmarkAdvancesOnlyWhenItsUnitCompletesAndNeverBackwards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	newer := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, store.StartUnit(ctx, pool, k))
	tx(t, pool, func(tx pgx.Tx) error {
		return store.PageProgress(ctx, tx, k, 10, store.MergeCounts{Inserted: 10}, &newer, nil)
	})
	bm, err := store.GetBookmark(ctx, pool, "a1", "campaigns")
	require.NoError(t, err)
	require.Nil(t, bm.Bookmark, "a page alone does not move the bookmark")

	tx(t, pool, func(tx pgx.Tx) error { return store.CompleteUnit(ctx, tx, k, false) })
	bm, err = store.GetBookmark(ctx, pool, "a1", "campaigns")
	require.NoError(t, err)
	require.Equal(t, newer, bm.Bookmark.UTC())
	require.Nil(t, bm.LastFullAt)
	require.NotNil(t, bm.LastSuccessAt)

	// A later unit that saw only older records keeps the bookmark.
	run2, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	k2 := store.UnitKey{RunID: run2, AccountID: "a1", Entity: "campaigns"}
	older := newer.Add(-time.Hour)
	require.NoError(t, store.StartUnit(ctx, pool, k2))
	tx(t, pool, func(tx pgx.Tx) error {
		if err := store.PageProgress(ctx, tx, k2, 1, store.MergeCounts{Unchanged: 1}, &older, nil); err != nil {
			return err
		}
		return store.CompleteUnit(ctx, tx, k2, true)
	})
	bm, err = store.GetBookmark(ctx, pool, "a1", "campaigns")
	require.NoError(t, err)
	require.Equal(t, newer, bm.Bookmark.UTC())
	require.NotNil(t, bm.LastFullAt)
}

func TestRunOutcomeIsSetByTheLastUnitToFinish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	keys := []store.UnitKey{{RunID: run, AccountID: "a1", Entity: "campaigns"}, {RunID: run, AccountID: "a2", Entity: "campaigns"},
		{RunID: run, AccountID: "a1", Entity: "cards"}}
	tx(t, pool, func(tx pgx.Tx) error {
		if err := store.AddUnits(ctx, tx, keys, nil); err != nil {
			return err
		}
		// Adding them again (a fan-out retried) changes nothing.
		return store.AddUnits(ctx, tx, keys[:2], nil)
	})
	var pending int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM sync_run_units WHERE run_id = $1 AND state = 'pending'`, run).Scan(&pending))
	require.Equal(t, len(keys), pending)
	tx(t, pool, func(tx pgx.Tx) error {
		if err := store.PageProgress(ctx, tx, keys[0], 5, store.MergeCounts{Inserted: 3, Updated: 1, Unchanged: 1, Deleted: 1}, nil, nil); err != nil {
			return err
		}
		if err := store.CompleteUnit(ctx, tx, keys[0], false); err != nil {
			return err
		}
		done, err := store.FinishRunIfDone(ctx, tx, run)
		require.False(t, done)
		return err
	})
	tx(t, pool, func(tx pgx.Tx) error {
		done, err := store.EndUnit(ctx, tx, keys[1], store.UnitFailed, "campaigns account a2: HTTP 404")
		require.False(t, done)
		return err
	})
	r, err := store.GetRun(ctx, pool, run)
	require.NoError(t, err)
	require.Equal(t, "running", r.Outcome)
	tx(t, pool, func(tx pgx.Tx) error {
		done, err := store.EndUnit(ctx, tx, keys[2], store.UnitSkipped, "already queued or running")
		require.True(t, done)
		return err
	})
	r, err = store.GetRun(ctx, pool, run)
	require.NoError(t, err)
	require.Equal(t, "partial", r.Outcome)
	require.Contains(t, r.Error, "campaigns a2: campaigns account a2: HTTP 404")
	var counts map[string]map[string]int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT counts FROM sync_runs WHERE id = $1`, run).Scan(&counts))
	require.Equal(t, map[string]int64{"fetched": 5, "inserted": 3, "updated": 1, "unchanged": 1, "deleted": 1,
		"units": 2, "failed_units": 1, "skipped_units": 0}, counts["campaigns"])
	require.Equal(t, int64(1), counts["cards"]["skipped_units"])
}

// stateOf is a unit's state, "" when it has no row.
func stateOf(t *testing.T, pool *pgxpool.Pool, k store.UnitKey) string {
	t.Helper()
	s, err := store.UnitState(context.Background(), pool, k)
	require.NoError(t, err)
	return s
}

func TestBeginUnitStartsAnOpenUnitWithItsBookmarkAndLeavesAnEndedOneAsItIs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	st, err := store.BeginUnit(ctx, pool, k, nil)
	require.NoError(t, err)
	require.Equal(t, store.UnitStart{Started: true}, st, "a unit without a row starts, with no bookmark")
	require.Equal(t, store.UnitRunning, stateOf(t, pool, store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}))

	newer := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tx(t, pool, func(tx pgx.Tx) error {
		if err := store.PageProgress(ctx, tx, k, 1, store.MergeCounts{Inserted: 1}, &newer, nil); err != nil {
			return err
		}
		return store.CompleteUnit(ctx, tx, k, false)
	})
	st, err = store.BeginUnit(ctx, pool, k, nil)
	require.NoError(t, err)
	require.False(t, st.Started, "a retry after the unit succeeded does not run it again")
	require.Equal(t, store.UnitSucceeded, st.State)
	require.Equal(t, store.UnitSucceeded, stateOf(t, pool, store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}))

	// A pending unit of a later run starts with the bookmark the first left.
	run2, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	k2 := store.UnitKey{RunID: run2, AccountID: "a1", Entity: "campaigns"}
	tx(t, pool, func(tx pgx.Tx) error { return store.AddUnits(ctx, tx, []store.UnitKey{k2}, nil) })
	st, err = store.BeginUnit(ctx, pool, k2, nil)
	require.NoError(t, err)
	require.True(t, st.Started)
	require.Equal(t, store.UnitPending, st.State)
	require.Equal(t, newer, st.Bookmark.Bookmark.UTC())
	require.NotNil(t, st.Bookmark.LastSuccessAt)

	// Ended as failed, it is never made running again.
	_, err = store.EndUnit(ctx, pool, k2, store.UnitFailed, "boom")
	require.NoError(t, err)
	st, err = store.BeginUnit(ctx, pool, k2, nil)
	require.NoError(t, err)
	require.False(t, st.Started)
	require.Equal(t, store.UnitFailed, stateOf(t, pool, store.UnitKey{RunID: run2, AccountID: "a1", Entity: "campaigns"}))
}

// languagesRefreshed is a database whose global languages unit succeeded
// in a first run, with its bookmark, and a second run.
func languagesRefreshed(t *testing.T) (pool *pgxpool.Pool, bm store.Bookmark, run2 int64) {
	t.Helper()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, Entity: "languages"}
	require.NoError(t, store.StartUnit(ctx, pool, k))
	tx(t, pool, func(tx pgx.Tx) error { return store.CompleteUnit(ctx, tx, k, true) })
	bm, err := store.GetBookmark(ctx, pool, "", "languages")
	require.NoError(t, err)
	run2, err = store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	return pool, bm, run2
}

func TestBeginUnitLeavesAUnitRefreshedAfterTheCutoffUnstartedAndSaysItIsFresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, bm, run2 := languagesRefreshed(t)
	k2 := store.UnitKey{RunID: run2, Entity: "languages"}
	before := bm.LastSuccessAt.Add(-time.Millisecond)
	st, err := store.BeginUnit(ctx, pool, k2, &before)
	require.NoError(t, err)
	require.True(t, st.Fresh)
	require.False(t, st.Started)
	require.Equal(t, "", stateOf(t, pool, store.UnitKey{RunID: run2, AccountID: "", Entity: "languages"}), "a fresh unit is not recorded as started")

	after := bm.LastSuccessAt.Add(time.Millisecond)
	st, err = store.BeginUnit(ctx, pool, k2, &after)
	require.NoError(t, err)
	require.False(t, st.Fresh)
	require.True(t, st.Started)
}

// Units of one run ending at the same time, each in its own transaction:
// whichever ends last must see the others ended and finish the run.
func TestRunFinishesWhenItsLastUnitsEndConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := setupRuns(t)
	for round := range 10 {
		run, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
		require.NoError(t, err)
		var keys []store.UnitKey
		for i := range 6 {
			keys = append(keys, store.UnitKey{RunID: run, AccountID: fmt.Sprintf("a%d", i), Entity: "campaigns"})
		}
		tx(t, pool, func(tx pgx.Tx) error { return store.AddUnits(ctx, tx, keys, nil) })
		for _, k := range keys {
			require.NoError(t, store.StartUnit(ctx, pool, k))
		}
		var wg sync.WaitGroup
		finished := make(chan bool, len(keys))
		for i, k := range keys {
			wg.Go(func() {
				var done bool
				var err error
				if i%3 == 2 {
					done, err = store.EndUnit(ctx, pool, k, store.UnitFailed, "boom")
				} else {
					err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
						done, err = store.CompleteUnitAndFinishRun(ctx, tx, k, false)
						return err
					})
				}
				assert.NoError(t, err)
				finished <- done
			})
		}
		wg.Wait()
		close(finished)
		n := 0
		for d := range finished {
			if d {
				n++
			}
		}
		require.GreaterOrEqual(t, n, 1, "round %d: no unit saw the run finished", round)
		r, err := store.GetRun(ctx, pool, run)
		require.NoError(t, err)
		require.Equal(t, store.RunPartial, r.Outcome, "round %d", round)
		require.Equal(t, 6, r.Entities[0].Units)
		require.Equal(t, 2, r.Entities[0].FailedUnits)
	}
}

func TestFailRunFailsItsOpenUnitsAndTheRunWithTheReason(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	acc := store.UnitKey{RunID: run, Entity: "accounts"}
	require.NoError(t, store.StartUnit(ctx, pool, acc))
	tx(t, pool, func(tx pgx.Tx) error { return store.CompleteUnit(ctx, tx, acc, true) })
	require.NoError(t, store.RestartUnit(ctx, pool, store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}))
	require.NoError(t, store.FailRun(ctx, pool, run, "listing accounts: HTTP 500"))
	r, err := store.GetRun(ctx, pool, run)
	require.NoError(t, err)
	require.Equal(t, store.RunFailed, r.Outcome, "a run that could not fan out fails though its accounts unit succeeded")
	require.Equal(t, "campaigns a1: listing accounts: HTTP 500", r.Error)
	require.Equal(t, store.UnitFailed, stateOf(t, pool, store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}))
	require.Equal(t, store.UnitSucceeded, stateOf(t, pool, store.UnitKey{RunID: run, AccountID: "", Entity: "accounts"}))
}

func TestAddUnitsRecordsFreshUnitsSkippedAndTheOthersPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, bm, run2 := languagesRefreshed(t)
	keys := []store.UnitKey{{RunID: run2, Entity: "languages"}, {RunID: run2, Entity: "locations"},
		{RunID: run2, AccountID: "a1", Entity: "languages"}, {RunID: run2, AccountID: "a1", Entity: "campaigns"}}
	fresh := &store.Fresh{Entities: []string{"languages", "locations"}, After: bm.LastSuccessAt.Add(-time.Hour), Reason: "fresh"}
	tx(t, pool, func(tx pgx.Tx) error { return store.AddUnits(ctx, tx, keys, fresh) })
	require.Equal(t, store.UnitSkipped, stateOf(t, pool, keys[0]), "refreshed after the cutoff")
	require.Equal(t, store.UnitPending, stateOf(t, pool, keys[1]), "never refreshed")
	require.Equal(t, store.UnitPending, stateOf(t, pool, keys[2]), "another account's bookmark")
	require.Equal(t, store.UnitPending, stateOf(t, pool, keys[3]), "not a fresh entity")
	pending, err := func() (p []store.UnitKey, err error) {
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			p, err = store.PendingUnits(ctx, tx, run2, "")
			return err
		})
		return p, err
	}()
	require.NoError(t, err)
	require.Len(t, pending, 3, "a skipped unit is not queued")
	r, err := store.GetRun(ctx, pool, run2)
	require.NoError(t, err)
	for _, e := range r.Entities {
		if e.Entity == "languages" {
			require.Equal(t, 1, e.SkippedUnits)
		}
	}

	late := &store.Fresh{Entities: []string{"languages"}, After: bm.LastSuccessAt.Add(time.Hour), Reason: "fresh"}
	run3, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	k3 := store.UnitKey{RunID: run3, Entity: "languages"}
	tx(t, pool, func(tx pgx.Tx) error { return store.AddUnits(ctx, tx, []store.UnitKey{k3}, late) })
	require.Equal(t, store.UnitPending, stateOf(t, pool, k3), "refreshed before the cutoff")
}

// A page's progress saves where its unit resumes in the same statement as
// its counts; a page stored without a cursor (nil) keeps the one saved
// before, and the unit's next attempt reads it as it starts.
func TestPageProgressSavesTheUnitsCursorWithItsCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	require.NoError(t, store.StartUnit(ctx, pool, k))
	tx(t, pool, func(tx pgx.Tx) error {
		return store.PageProgress(ctx, tx, k, 5, store.MergeCounts{Inserted: 5}, nil, []byte(`{"next":"p2"}`))
	})
	tx(t, pool, func(tx pgx.Tx) error {
		return store.PageProgress(ctx, tx, k, 3, store.MergeCounts{Inserted: 3}, nil, nil)
	})
	c, err := store.UnitCounts(ctx, pool, k)
	require.NoError(t, err)
	require.Equal(t, [2]int64{8, 8}, [2]int64{c.Fetched, c.Inserted}, "both pages are counted")
	st, err := store.BeginUnit(ctx, pool, k, nil)
	require.NoError(t, err)
	require.JSONEq(t, `{"next":"p2"}`, string(st.Resume), "the cursor saved with the first page's counts, kept by the second's")
}
