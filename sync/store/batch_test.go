package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

func TestBeginBatchFuncCommitsTheBatchWithFnOrNeither(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	startUnit := func(b *pgx.Batch) {
		b.Queue(`INSERT INTO sync_run_units (run_id, account_id, entity, state) VALUES ($1, $2, $3, 'running')`,
			k.RunID, k.AccountID, k.Entity)
	}

	boom := errors.New("boom")
	err := store.BeginBatchFunc(ctx, pool, startUnit, func(tx pgx.Tx) error { return boom })
	require.ErrorIs(t, err, boom)
	require.Equal(t, "", stateOf(t, pool, k), "fn's error rolls back the batch's statements")

	called := false
	err = store.BeginBatchFunc(ctx, pool, func(b *pgx.Batch) {
		startUnit(b)
		b.Queue(`SELECT 1/0`)
	}, func(tx pgx.Tx) error { called = true; return nil })
	require.ErrorContains(t, err, "division by zero")
	require.False(t, called, "fn does not run after a failed statement")
	require.Equal(t, "", stateOf(t, pool, k))

	err = store.BeginBatchFunc(ctx, pool, startUnit, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE sync_run_units SET fetched = 7 WHERE run_id = $1`, run)
		return err
	})
	require.NoError(t, err)
	c, err := store.UnitCounts(ctx, pool, k)
	require.NoError(t, err)
	require.Equal(t, int64(7), c.Fetched, "the batch and fn commit together")
	require.Zero(t, pool.Stat().AcquiredConns(), "every connection went back to the pool")
}

func TestLockUnitFuncHandsFnTheUnitsState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	require.NoError(t, store.StartUnit(ctx, pool, k))
	var got string
	require.NoError(t, store.LockUnitFunc(ctx, pool, k, func(tx pgx.Tx, state string) error {
		got = state
		return store.CompleteUnit(ctx, tx, k, false)
	}))
	require.Equal(t, store.UnitRunning, got)
	require.Equal(t, store.UnitSucceeded, stateOf(t, pool, k))
	err := store.LockUnitFunc(ctx, pool, store.UnitKey{RunID: run, AccountID: "a2", Entity: "campaigns"},
		func(pgx.Tx, string) error { t.Fatal("fn ran for a unit without a row"); return nil })
	require.ErrorIs(t, err, pgx.ErrNoRows)
}

func TestTheLastBatchOfALockedUnitCommitsItAndNothingRunsAfter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	require.NoError(t, store.StartUnit(ctx, pool, k))
	var after error
	require.NoError(t, store.LockUnitFunc(ctx, pool, k, func(tx pgx.Tx, state string) error {
		done, err := store.CompleteUnitFinishRunAndCommit(ctx, tx, k, false, 0)
		require.True(t, done, "its run's only unit")
		if err != nil {
			return err
		}
		// Outside the transaction now: refused rather than run on its own.
		_, after = tx.Exec(ctx, `UPDATE sync_run_units SET fetched = 1 WHERE run_id = $1`, run)
		return nil
	}))
	require.Error(t, after)
	require.Equal(t, store.UnitSucceeded, stateOf(t, pool, k))
	r, err := store.GetRun(ctx, pool, run)
	require.NoError(t, err)
	require.Equal(t, store.RunSucceeded, r.Outcome)
	require.Zero(t, r.Entities[0].Fetched)

	// In a transaction of its own making, the caller commits.
	run2, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	k2 := store.UnitKey{RunID: run2, AccountID: "a1", Entity: "campaigns"}
	require.NoError(t, store.StartUnit(ctx, pool, k2))
	tx(t, pool, func(tx pgx.Tx) error {
		if _, err := store.CompleteUnitFinishRunAndCommit(ctx, tx, k2, false, 0); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE sync_run_units SET fetched = 2 WHERE run_id = $1`, run2)
		return err
	})
	c, err := store.UnitCounts(ctx, pool, k2)
	require.NoError(t, err)
	require.Equal(t, int64(2), c.Fetched)
	require.Zero(t, pool.Stat().AcquiredConns())
}

// A unit with nothing to sweep ends in one round trip: locked, completed
// with its empty pages counted and its bookmark advanced, and its run
// finished when it was the last. A unit no longer running is left as it
// was, and its state says so.
func TestARunningUnitFinishesInOneBatchAndAnEndedOneIsLeftAsItWas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k1 := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	k2 := store.UnitKey{RunID: run, AccountID: "a2", Entity: "campaigns"}
	require.NoError(t, store.StartUnit(ctx, pool, k1))
	require.NoError(t, store.StartUnit(ctx, pool, k2))
	pages := func(k store.UnitKey) (n int) {
		t.Helper()
		require.NoError(t, pool.QueryRow(ctx, `SELECT pages FROM sync_run_units WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
			k.RunID, k.AccountID, k.Entity).Scan(&n))
		return n
	}

	state, done, err := store.FinishRunningUnit(ctx, pool, k1, false, 2)
	require.NoError(t, err)
	require.Equal(t, store.UnitRunning, state)
	require.False(t, done, "a2 is still running")
	require.Equal(t, store.UnitSucceeded, stateOf(t, pool, k1))
	require.Equal(t, 2, pages(k1))
	bm, err := store.GetBookmark(ctx, pool, "a1", "campaigns")
	require.NoError(t, err)
	require.NotNil(t, bm.LastSuccessAt)
	require.Nil(t, bm.LastFullAt, "an incremental unit")

	state, done, err = store.FinishRunningUnit(ctx, pool, k1, true, 5)
	require.NoError(t, err)
	require.Equal(t, store.UnitSucceeded, state)
	require.False(t, done)
	require.Equal(t, 2, pages(k1), "an ended unit is left as it was")
	again, err := store.GetBookmark(ctx, pool, "a1", "campaigns")
	require.NoError(t, err)
	require.Equal(t, bm, again)

	state, done, err = store.FinishRunningUnit(ctx, pool, k2, true, 0)
	require.NoError(t, err)
	require.Equal(t, store.UnitRunning, state)
	require.True(t, done, "its run's last unit")
	r, err := store.GetRun(ctx, pool, run)
	require.NoError(t, err)
	require.Equal(t, store.RunSucceeded, r.Outcome)
	full, err := store.GetBookmark(ctx, pool, "a2", "campaigns")
	require.NoError(t, err)
	require.NotNil(t, full.LastFullAt)
	require.Zero(t, pool.Stat().AcquiredConns())
}
