package adsynccmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
)

// adsync db runs psql on the configured database with the arguments after
// --, and exits with psql's status.
func TestDBRunsPSQLOnTheConfiguredDatabase(t *testing.T) {
	t.Parallel()
	db := synctest.MigratedDatabase(t)
	pool, err := store.Connect(context.Background(), db, store.ConnectOptions{MaxConns: 1})
	require.NoError(t, err)
	defer pool.Close()
	var runs int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM sync_runs`).Scan(&runs))

	r := run(t, "db", "--database-url", db, "--", "-c", "select count(*) from sync_runs")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^\s+count\s*$`, r.stdout)
	require.Regexp(t, `(?m)^\s+`+strconv.Itoa(runs)+`\s*$`, r.stdout, "the number psql printed")

	script := filepath.Join(t.TempDir(), "fail.sql")
	require.NoError(t, os.WriteFile(script, []byte("select 1 from no_such_table;\n"), 0o600))
	r = run(t, "db", "--database-url", db, "--", "-v", "ON_ERROR_STOP=1", "-f", script)
	require.Equal(t, 3, r.code, "psql's own exit status (3: a script stopped on an error): %s", r.stderr)
	require.Contains(t, r.stderr, `relation "no_such_table" does not exist`)
}

func TestDBWantsPSQLArgumentsAfterTheDash(t *testing.T) {
	t.Parallel()
	r := run(t, "db", "--database-url", "postgres://app@db.example/adsync", "select")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "psql's arguments go after --")
}

// Without psql on PATH the error names it and the package that has it;
// a configured password appears nowhere.
func TestDBWithoutPSQLNamesTheClientPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	r := run(t, "db", "--database-url", "postgres://app:pw-never-shown@db.example/adsync")
	require.Equal(t, 1, r.code)
	require.Regexp(t, regexp.MustCompile(`psql not found on PATH: .*apt-get install postgresql-client`), r.stderr)
	require.NotContains(t, r.stdout+r.stderr, "pw-never-shown")
}
