package migrations_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

func connect(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := store.Connect(context.Background(), url, store.ConnectOptions{MaxConns: 4})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// schemaFingerprint lists every table and column of the public schema.
func schemaFingerprint(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT table_name || '.' || column_name || ':' || data_type
		FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1`)
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

func TestMigrateAppliesRiverAndAppMigrations(t *testing.T) {
	t.Parallel()
	pool := connect(t, localpg.NewDatabase(t))
	ctx := context.Background()

	before, err := migrations.Status(ctx, pool, nil)
	require.NoError(t, err)
	require.Equal(t, len(before), migrations.Pending(before), "an empty database has everything pending")

	res, err := migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.River)
	require.Contains(t, res.App, 1)

	after, err := migrations.Status(ctx, pool, nil)
	require.NoError(t, err)
	require.Zero(t, migrations.Pending(after))
	require.Len(t, after, len(before))
	for _, v := range after {
		if v.Component == "app" {
			require.False(t, v.AppliedAt.IsZero(), "applied app versions carry their time")
		}
	}
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM river_job").Scan(&n), "River's tables exist")
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM sync_runs").Scan(&n), "the app's tables exist")
}

func TestMigrateTwiceIsANoOp(t *testing.T) {
	t.Parallel()
	pool := connect(t, localpg.NewDatabase(t))
	ctx := context.Background()
	_, err := migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	schema := schemaFingerprint(t, pool)

	res, err := migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	require.Empty(t, res.River)
	require.Empty(t, res.App)
	require.Equal(t, schema, schemaFingerprint(t, pool))
}

func TestConcurrentMigrationsBothSucceedAndLeaveOneSchema(t *testing.T) {
	t.Parallel()
	url := localpg.NewDatabase(t)
	ctx := context.Background()
	// Separate pools stand in for separate processes.
	pools := []*pgxpool.Pool{connect(t, url), connect(t, url), connect(t, url)}
	results := make([]migrations.Result, len(pools))
	errs := make([]error, len(pools))
	var wg sync.WaitGroup
	for i, p := range pools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = migrations.Migrate(ctx, p, nil)
		}()
	}
	wg.Wait()
	river, app := 0, 0
	for i := range pools {
		require.NoError(t, errs[i])
		river += len(results[i].River)
		app += len(results[i].App)
	}
	all, err := migrations.AppMigrations()
	require.NoError(t, err)
	require.Equal(t, len(all), app, "each app migration applied exactly once across processes")

	var riverRows, appRows int
	require.NoError(t, pools[0].QueryRow(ctx, "SELECT count(*) FROM river_migration").Scan(&riverRows))
	require.Equal(t, riverRows, river, "each River migration applied exactly once across processes")
	require.NoError(t, pools[0].QueryRow(ctx, "SELECT count(*) FROM adsync_schema_migrations").Scan(&appRows))
	require.Equal(t, len(all), appRows)

	// And the result is the same schema a single migration produces.
	single := connect(t, localpg.NewDatabase(t))
	_, err = migrations.Migrate(ctx, single, nil)
	require.NoError(t, err)
	require.Equal(t, schemaFingerprint(t, single), schemaFingerprint(t, pools[0]))
}

func TestChangedAppliedMigrationIsRefused(t *testing.T) {
	t.Parallel()
	pool := connect(t, localpg.NewDatabase(t))
	ctx := context.Background()
	_, err := migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, "UPDATE adsync_schema_migrations SET checksum = 'edited' WHERE version = 1")
	require.NoError(t, err)
	_, err = migrations.Migrate(ctx, pool, nil)
	require.ErrorIs(t, err, migrations.ErrChangedMigration)
	require.ErrorContains(t, err, "0001_sync_runs")
}

func TestEmbeddedMigrationsAreOrderedAndChecksummed(t *testing.T) {
	t.Parallel()
	all, err := migrations.AppMigrations()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	for i, m := range all {
		if i > 0 {
			require.Greater(t, m.Version, all[i-1].Version, "versions increase: %s", m.Name)
		}
		require.NotEmpty(t, m.SQL)
		require.Len(t, m.Checksum, 64)
	}
}
