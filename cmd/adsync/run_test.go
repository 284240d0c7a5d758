package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/stretchr/testify/require"
)

// commandInDir is adsync args in dir with no ADSYNC_ setting from this
// process's environment, only those of env.
func commandInDir(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := execCommand(adsyncExe(), args...)
	cmd.Dir = dir
	cmd.Env = nil
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ADSYNC_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append(env, asMainEnv+"=1")...)
	return cmd
}

// runInDir runs adsync args in dir with no ADSYNC_ setting from this
// process's environment, only those of env.
func runInDir(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := commandInDir(t, dir, env, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func TestRunRefusesAConfiguredDatabaseWithoutAServiceAndTouchesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, source := range []string{"environment", "flag", "config file", "migrated database"} {
		t.Run(source, func(t *testing.T) {
			t.Parallel()
			db, dir := localpg.NewDatabase(t), t.TempDir()
			pool, err := store.Connect(ctx, db, store.ConnectOptions{MaxConns: 2})
			require.NoError(t, err)
			t.Cleanup(pool.Close)
			var env, args []string
			switch source {
			case "environment":
				env = []string{"ADSYNC_DATABASE_URL=" + db}
			case "flag":
				args = []string{"--database-url", db}
			case "config file":
				conf := filepath.Join(t.TempDir(), "adsync.yaml")
				require.NoError(t, os.WriteFile(conf, []byte("database_url: "+db+"\n"), 0o600))
				env = []string{"ADSYNC_CONFIG=" + conf}
			case "migrated database":
				_, err := migrations.Migrate(ctx, pool, nil)
				require.NoError(t, err)
				env = []string{"ADSYNC_DATABASE_URL=" + db}
			}
			tables := func() int {
				var n int
				require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables
					WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`).Scan(&n))
				return n
			}
			before := tables()

			code, stdout, stderr := runInDir(t, dir, env, append([]string{"run"}, args...)...)
			require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			require.Equal(t, "adsync: a database is configured but no service: set ADSYNC_API_URL, ADSYNC_ADS_URL, "+
				"ADSYNC_CONSUMER_KEY and ADSYNC_CONSUMER_SECRET (api.url, api.ads_url, api.consumer_key, api.consumer_secret) "+
				"(to try adsync against the fake service instead, run it with no database configured: it starts a local Postgres)\n", stderr)
			require.NotContains(t, stdout, "fake service")

			require.Equal(t, before, tables(), "no table was created: the database was not migrated")
			if before > 0 {
				var rows int
				require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM sync_runs) + (SELECT count(*) FROM accounts)
					+ (SELECT count(*) FROM campaigns) + (SELECT count(*) FROM river_job)`).Scan(&rows))
				require.Zero(t, rows, "no run, entity or job was written")
			}
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, entries, "no output folder and no local Postgres")
		})
	}
}
