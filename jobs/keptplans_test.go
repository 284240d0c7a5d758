package jobs_test

import (
	"context"
	"testing"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// An unchanged unit's start and end read and write bookkeeping rows by
// their keys: Postgres runs their statements with the plan it keeps from
// their first call on a connection, and never plans them for their values
// (store.QueueKeptPlans), which it otherwise does at their first five calls
// on each connection and after each VACUUM of their tables.
func TestAnUnchangedUnitsStartAndEndAreNeverPlannedForTheirValues(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	ctx := context.Background()
	entities := []string{"campaigns", "cards"}
	full := jobs.SyncRunArgs{Entities: entities, Full: true}
	first := b.run(t, full)
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	r, err := b.pool.Query(ctx, `SELECT DISTINCT account_id FROM sync_run_units WHERE run_id = $1 AND entity = 'campaigns' ORDER BY 1`, first.ID)
	require.NoError(t, err)
	accounts, err := pgx.CollectRows(r, pgx.RowTo[string])
	require.NoError(t, err)
	require.NotEmpty(t, accounts)

	// One connection: every statement of the units runs on it.
	one, err := store.Connect(ctx, b.pool.Config().ConnString(), store.ConnectOptions{MaxConns: 1})
	require.NoError(t, err)
	t.Cleanup(one.Close)
	s := &ads.Syncer{API: b.deps.API, Pool: one, Users: b.deps.Users}
	for range 2 {
		runID, err := jobs.CreateSyncRun(ctx, b.deps, full)
		require.NoError(t, err)
		for _, a := range accounts {
			for _, name := range entities {
				e, ok := ads.Lookup(name)
				require.True(t, ok)
				u := &ads.Unit{RunID: runID, AccountID: a, Entity: e, Full: true, KeepsCursor: true, EndsWithLastPage: true}
				skip, err := s.Begin(ctx, u)
				require.NoError(t, err)
				require.False(t, skip)
				require.NoError(t, s.Sync(ctx, u, ads.Cursor{}))
				_, err = s.Finish(ctx, u)
				require.NoError(t, err)
			}
		}
		run, err := store.GetRun(ctx, b.pool, runID)
		require.NoError(t, err)
		require.Equal(t, "succeeded", run.Outcome, run.Error)
		for _, name := range entities {
			c := entityCounts(run, name)
			require.Zero(t, c.Inserted+c.Updated+c.Deleted, "nothing changed")
		}
	}

	var prepared, planned int
	var which []string
	require.NoError(t, one.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE custom_plans > 0),
    coalesce(array_agg(left(statement, 80)) FILTER (WHERE custom_plans > 0), '{}')
FROM pg_prepared_statements WHERE statement LIKE '%sync\_%'`).Scan(&prepared, &planned, &which))
	require.Greater(t, prepared, 3, "the units' statements are prepared on the connection")
	require.Zero(t, planned, "statements planned for their values: %q", which)
}
