package adsynccmd

import (
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

// Every command that uses adsync's tables refuses an unmigrated database
// naming the pending migrations and adsync migrate, not with raw SQL.
func TestCommandsOnAnUnmigratedDatabaseNamePendingMigrationsAndAdsyncMigrate(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	for _, args := range [][]string{
		{"auth", "bearer"},
		{"auth", "login"},
		{"auth", "revoke"},
		{"api", "--bearer", "GET", "/2/posts", "-d", "ids=1"},
		{"status"},
		{"sync", "--wait"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := run(t, append(args, "--config", b.conf, "--database-url", localpg.NewDatabase(t))...)
			require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Regexp(t, `database "[^"]+" at [^:]+ has \d+ pending migrations \(river 1 create river migration, .*app 1 sync_runs, .*\): run adsync migrate`, r.stderr)
			require.NotContains(t, r.stderr, "SQLSTATE")
			b.requireNoSecrets(t, r.stdout+r.stderr)
		})
	}
}

// adsync migrate and adsync db work on the database as it is.
func TestMigrateStatusListsPendingMigrationsOfAnUnmigratedDatabase(t *testing.T) {
	t.Parallel()
	r := run(t, "migrate", "--status", "--database-url", localpg.NewDatabase(t))
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `app\s+1\s+sync_runs\s+pending`, r.stdout)
}
