package adsynccmd

import (
	"context"
	"testing"

	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
)

func TestStatusListsCancelledAndDiscardedJobsWithRedactedErrors(t *testing.T) {
	t.Parallel()
	db := synctest.MigratedDatabase(t)
	ctx := context.Background()
	pool, err := store.Connect(ctx, db, store.ConnectOptions{MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	_, err = pool.Exec(ctx, `INSERT INTO river_job (kind, queue, state, args, max_attempts, attempt, errors, metadata, priority, scheduled_at, attempted_at, finalized_at) VALUES
		('sync_unit', 'sync', 'cancelled', '{}', 25, 1, ARRAY['{"at":"2026-01-01T00:00:00Z","attempt":1,"error":"GET /12/accounts/x/campaigns: HTTP 404: NOT_FOUND; access_token=tok-leak","trace":""}'::jsonb], '{}', 1, now(), now(), now()),
		('export', 'export', 'cancelled', '{}', 25, 0, NULL, '{}', 1, now(), NULL, now()),
		('sync_unit', 'sync', 'discarded', '{}', 3, 3, ARRAY['{"at":"2026-01-01T00:00:00Z","attempt":3,"error":"Authorization: Bearer bearer-leak","trace":""}'::jsonb], '{}', 1, now(), now(), now())`)
	require.NoError(t, err)

	r := run(t, "status", "--database-url", db)
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^\d+\s+sync_unit\s+sync\s+cancelled\s+1/25\s+\S+ \S+\s+GET /12/accounts/x/campaigns: HTTP 404: NOT_FOUND; access_token=\[redacted\]$`, r.stdout)
	require.Regexp(t, `(?m)^\d+\s+export\s+export\s+cancelled\s+0/25\s+\S+ \S+\s+\(no error recorded\)$`, r.stdout)
	require.Regexp(t, `(?m)^\d+\s+sync_unit\s+sync\s+discarded\s+3/3\s+.*Bearer \[redacted\]$`, r.stdout)
	require.NotContains(t, r.stdout, "tok-leak")
	require.NotContains(t, r.stdout, "bearer-leak")
	require.NotRegexp(t, `FAILED JOBS.*\n.*\n\(none\)`, r.stdout)
}

func TestStatusLimitBelowOneIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, limit := range []string{"0", "-3"} {
		r := run(t, "status", "--database-url", "postgres://unused@127.0.0.1:1/x", "--limit", limit)
		require.Equal(t, 2, r.code, limit)
		require.Contains(t, r.stderr, "--limit "+limit+": must be at least 1")
	}
}
