package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// contentState is what makes a version: a record's content hash and its
// deleted flag.
type contentState struct {
	hash    string
	deleted bool
}

// observe appends each row's state of table to states (per account and
// id) when it differs from the last one observed.
func observe(t *testing.T, pool *pgxpool.Pool, table string, states map[string][]contentState) {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT account_id || '/' || id, doc_hash, deleted FROM `+table)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var key string
		var s contentState
		require.NoError(t, rows.Scan(&key, &s.hash, &s.deleted))
		if n := len(states[key]); n == 0 || states[key][n-1] != s {
			states[key] = append(states[key], s)
		}
	}
	require.NoError(t, rows.Err())
}

// versions reads each record's versions of table's history, in order.
func versions(t *testing.T, pool *pgxpool.Pool, table string) map[string][]contentState {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT account_id || '/' || id, doc_hash, deleted FROM `+table+`_history
ORDER BY account_id, id, valid_from`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string][]contentState{}
	for rows.Next() {
		var key string
		var s contentState
		require.NoError(t, rows.Scan(&key, &s.hash, &s.deleted))
		out[key] = append(out[key], s)
	}
	require.NoError(t, rows.Err())
	return out
}

// closedVersions counts table's past versions.
func closedVersions(t *testing.T, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM `+table+`_history WHERE valid_to IS NOT NULL`).Scan(&n))
	return n
}

// requireHistoryWhole checks each table's history: contiguous versions,
// one current version per row, equal to the row in every column.
func requireHistoryWhole(t *testing.T, pool *pgxpool.Pool, tables ...string) {
	t.Helper()
	ctx := context.Background()
	for _, table := range tables {
		e, ok := ads.Lookup(table)
		require.True(t, ok, table)
		require.NoError(t, ads.CheckHistory(ctx, pool, e))
		var rows, current, equal int
		require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+table+`),
    (SELECT count(*) FROM `+table+`_history WHERE valid_to IS NULL),
    (SELECT count(*) FROM `+table+` t JOIN `+table+`_history h USING (account_id, id)
     WHERE h.valid_to IS NULL AND to_jsonb(t) - 'valid_from' = to_jsonb(h) - 'valid_from' - 'valid_to' - 'written_at')`).
			Scan(&rows, &current, &equal))
		require.Equal(t, rows, current, "%s: one current version per row", table)
		require.Equal(t, rows, equal, "%s: every current version equals its row", table)
	}
}

func TestHistoryKeepsOneVersionPerObservedStateOverIncrementalAndFullSyncs(t *testing.T) {
	t.Parallel()
	b := setupSync(t, func(o *fixtures.Options) { o.Accounts = 2 }, func(d *jobs.Deps, _ *synctest.Fake) { d.SyncPageSize = 5 })
	tables := []string{"campaigns", "posts"}
	states := map[string]map[string][]contentState{"campaigns": {}, "posts": {}}
	sync := func(full bool) {
		t.Helper()
		r := b.run(t, jobs.SyncRunArgs{Entities: tables, Full: full})
		require.Equal(t, "succeeded", r.Outcome, r.Error)
		for _, table := range tables {
			observe(t, b.pool, table, states[table])
		}
		requireHistoryWhole(t, b.pool, tables...)
	}
	sync(false)
	for _, table := range tables {
		require.Zero(t, closedVersions(t, b.pool, table), "a fresh load writes no past version")
	}
	// A first version begins at the record's updated_at.
	var off int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM campaigns_history
WHERE valid_from <> date_trunc('millisecond', COALESCE(api_updated_at, first_seen_at))`).Scan(&off))
	require.Zero(t, off)

	changes, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "campaigns", Add: 2, Change: 3, Delete: 2})
	require.NoError(t, err)
	drafts, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "posts_draft", Delete: 1})
	require.NoError(t, err)
	sync(false)
	n := len(changes.ByAccount)
	require.Equal(t, 5*n, closedVersions(t, b.pool, "campaigns"), "one past version per changed or deleted campaign")
	require.Equal(t, len(drafts.Deleted), closedVersions(t, b.pool, "posts"), "one past version per swept post")

	// Unchanged re-syncs, incremental and full, write no version.
	sync(false)
	sync(true)
	require.Equal(t, 5*n, closedVersions(t, b.pool, "campaigns"))
	require.Equal(t, len(drafts.Deleted), closedVersions(t, b.pool, "posts"))

	// Records changed again (some a second time) and a full sync.
	_, err = b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "campaigns", Change: 4})
	require.NoError(t, err)
	sync(true)

	for _, table := range tables {
		require.Equal(t, states[table], versions(t, b.pool, table), "%s: one version per observed state, in order", table)
	}
	ctx := context.Background()
	for _, id := range changes.Deleted {
		var deleted bool
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT deleted FROM campaigns_history WHERE id = $1 AND valid_to IS NULL`, id).Scan(&deleted))
		require.True(t, deleted, "campaign %s's last version is its deletion", id)
	}
	for _, id := range changes.Changed {
		// The service moved updated_at: the new version begins there.
		var from, updated, closedTo time.Time
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT h.valid_from, date_trunc('millisecond', h.api_updated_at), p.valid_to
FROM campaigns_history h JOIN campaigns_history p ON p.id = h.id AND p.valid_to = h.valid_from
WHERE h.id = $1 ORDER BY h.valid_from LIMIT 1`, id).Scan(&from, &updated, &closedTo))
		require.Equal(t, updated, from, "campaign %s", id)
		require.Equal(t, from, closedTo)
	}
	for _, id := range drafts.Deleted {
		// A sweep's tombstone: the service gave no new updated_at, so the
		// version begins when the sweep wrote it.
		var deleted bool
		var from, synced time.Time
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT deleted, valid_from, last_synced_at FROM posts_history
WHERE id = $1 AND valid_to IS NULL`, id).Scan(&deleted, &from, &synced))
		require.True(t, deleted, "post %s", id)
		require.Equal(t, synced.Truncate(time.Millisecond), from.Truncate(time.Millisecond))
	}
}
