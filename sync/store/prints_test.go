package store_test

import (
	"context"
	"testing"

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

func TestAQueuedClaimOfPrintsTakesThemOnlyForARunningUnitAndOnlyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	tx(t, pool, func(tx pgx.Tx) error { return store.TrustPrints(ctx, tx, k) })

	run2, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	k2 := store.UnitKey{RunID: run2, AccountID: "a1", Entity: "campaigns"}
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
	pool, run := setupRuns(t)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	tx(t, pool, func(tx pgx.Tx) error { return store.TrustPrints(ctx, tx, k) })
	_, err := pool.Exec(ctx, `UPDATE sync_bookmarks SET bookmark = now() WHERE account_id = 'a1' AND entity = 'campaigns'`)
	require.NoError(t, err)

	run2, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	k2 := store.UnitKey{RunID: run2, AccountID: "a1", Entity: "campaigns"}
	require.NoError(t, store.StartUnit(ctx, pool, k2))
	from, live := claimQueued(t, pool, k2, false)
	require.Zero(t, from, "an incremental listing recognises no page")
	require.True(t, live, "an incremental unit does not sweep: nothing probed")
	require.Zero(t, printsRun(t, pool, "a1", "campaigns"))
}
