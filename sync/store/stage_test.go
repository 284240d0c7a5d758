package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// One statement tells a page's new and changed records apart from the
// unchanged ones (of the page's account only) and marks the ids seen.
func TestChangedRecordsReturnsOnlyNewAndChangedOnesAndMarksThePageSeen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	_, err := pool.Exec(ctx, `INSERT INTO campaigns (account_id, id, raw, doc_hash) VALUES
		('a1', 'same', '{}', 'h1'), ('a1', 'changed', '{}', 'h2'), ('a2', 'other', '{}', 'h3')`)
	require.NoError(t, err)
	ids, hashes := []string{"same", "changed", "new", "other"}, []string{"h1", "h2x", "h4", "h3"}
	tx(t, pool, func(tx pgx.Tx) error {
		fresh, changed, err := store.ChangedRecords(ctx, tx, "campaigns", true, "a1", ids, hashes,
			&store.Seen{RunID: run, AccountID: "a1", Entity: "campaigns"}, nil)
		require.NoError(t, err)
		require.Equal(t, []int32{2, 3}, fresh)
		require.Equal(t, []int32{1}, changed)
		fresh, changed, err = store.ChangedRecords(ctx, tx, "campaigns", true, "a1", ids[:1], hashes[:1], nil, nil)
		require.NoError(t, err)
		require.Empty(t, fresh)
		require.Empty(t, changed)
		return nil
	})
	var seen []string
	require.NoError(t, pool.QueryRow(ctx, `SELECT ids FROM sync_unit_seen_pages WHERE run_id = $1 AND account_id = 'a1' AND entity = 'campaigns'`,
		run).Scan(&seen))
	require.Equal(t, ids, seen)
}

// An unchanged page's progress is recorded by its lookup; a page with a
// differing record leaves it to the caller.
func TestChangedRecordsRecordsTheProgressOfAnUnchangedPageOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	addUnit(t, pool, run, "a1", "campaigns", "running")
	_, err := pool.Exec(ctx, `INSERT INTO campaigns (account_id, id, raw, doc_hash) VALUES ('a1', 'x', '{}', 'h1'), ('a1', 'y', '{}', 'h2')`)
	require.NoError(t, err)
	k := store.UnitKey{RunID: run, AccountID: "a1", Entity: "campaigns"}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tx(t, pool, func(tx pgx.Tx) error {
		fresh, changed, err := store.ChangedRecords(ctx, tx, "campaigns", true, "a1", []string{"x", "y"}, []string{"h1", "h2"}, nil,
			&store.UnchangedProgress{Unit: k, Fetched: 3, Records: 2, MaxUpdated: &at})
		require.NoError(t, err)
		require.Empty(t, fresh)
		require.Empty(t, changed)
		fresh, changed, err = store.ChangedRecords(ctx, tx, "campaigns", true, "a1", []string{"x", "z"}, []string{"h1", "h3"}, nil,
			&store.UnchangedProgress{Unit: k, Fetched: 2, Records: 2, MaxUpdated: &at})
		require.NoError(t, err)
		require.Equal(t, []int32{1}, fresh)
		require.Empty(t, changed)
		return nil
	})
	c, err := store.UnitCounts(ctx, pool, k)
	require.NoError(t, err)
	require.EqualValues(t, 3, c.Fetched)
	require.EqualValues(t, 2, c.Unchanged)
	var pages int
	var maxUpdated time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT pages, max_updated_at FROM sync_run_units WHERE run_id = $1 AND account_id = 'a1' AND entity = 'campaigns'`,
		run).Scan(&pages, &maxUpdated))
	require.Equal(t, 1, pages)
	require.True(t, at.Equal(maxUpdated))
}
