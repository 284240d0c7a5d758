package store_test

import (
	"context"
	"testing"

	"github.com/adsync/adsync/sync/store"
	"github.com/stretchr/testify/require"
)

// TestALookupOfAnEntityTableIsPlannedForTheTableAsItIsThen calls
// ChangedRecords often while campaigns holds few rows (after an ANALYZE,
// as autovacuum does early in a first load), then once more after other
// accounts stored many: that call must read the account's rows through
// the key's index, not the whole table, as a plan kept from the first
// calls would (see store.PlanEachCall).
func TestALookupOfAnEntityTableIsPlannedForTheTableAsItIsThen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := setupRuns(t)
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	insert := func(accounts string, n int) {
		t.Helper()
		_, err := conn.Exec(ctx, `INSERT INTO campaigns (account_id, id, raw, doc_hash)
SELECT $1 || (i % 20), $1 || 'c' || i, '{}', 'h' FROM generate_series(1, $2::int) i`, accounts, n)
		require.NoError(t, err)
	}
	insert("a", 40)
	_, err = conn.Exec(ctx, `ANALYZE campaigns`)
	require.NoError(t, err)
	ids, hashes := []string{"ac1", "ac2", "new"}, []string{"h", "other", "h"}
	for range 8 {
		fresh, changed, err := store.ChangedRecords(ctx, conn, "campaigns", true, "a1", ids, hashes, nil, nil)
		require.NoError(t, err)
		require.Equal(t, []int32{1, 2}, fresh, "a1 holds ac1 (unchanged), not ac2, and no new")
		require.Empty(t, changed)
	}
	insert("b", 50_000)

	// The counts of this connection not yet reported, earlier calls'
	// included: the call's are the difference.
	scans := func(q store.Querier) (seq, idx int64) {
		t.Helper()
		require.NoError(t, q.QueryRow(ctx, `SELECT coalesce(seq_scan, 0), coalesce(idx_scan, 0)
FROM pg_stat_xact_user_tables WHERE relname = 'campaigns'`).Scan(&seq, &idx))
		return seq, idx
	}
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	seq0, idx0 := scans(tx)
	_, _, err = store.ChangedRecords(ctx, tx, "campaigns", true, "a1", ids, hashes, nil, nil)
	require.NoError(t, err)
	seq, idx := scans(tx)
	require.Equal(t, seq0, seq, "the lookup read the whole table")
	require.Greater(t, idx, idx0)
}
