package export

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// What someone may plant in an export folder adsync owns, at a name adsync
// is about to write: a symbolic link to a file of theirs, or a FIFO. The
// export never writes through it, into it or over it.
var planted = []struct {
	name  string
	plant func(t *testing.T, at, victim string)
	mode  fs.FileMode
}{
	{"a symbolic link", func(t *testing.T, at, victim string) {
		require.NoError(t, os.Symlink(victim, at))
	}, fs.ModeSymlink},
	{"a FIFO", func(t *testing.T, at, _ string) {
		require.NoError(t, syscall.Mkfifo(at, 0o600))
	}, fs.ModeNamedPipe},
}

// runningRun is the id of the export run in progress.
func runningRun(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	var run int64
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT max(id) FROM sync_runs WHERE pipeline = 'export'`).Scan(&run))
	return run
}

// requirePlantedKept checks that what was planted at path is still there,
// and that the file a link pointed at still holds what it held.
func requirePlantedKept(t *testing.T, path string, mode fs.FileMode, victim string) {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	require.Equal(t, mode, fi.Mode().Type(), "%s is still what was planted", path)
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	require.Equal(t, "someone's file", string(b), "nothing was written through the link")
}

func newVictim(t *testing.T) string {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("someone's file"), 0o644))
	return victim
}

func TestAManifestNamePlantedDuringARunIsKept(t *testing.T) {
	t.Parallel()
	for _, p := range planted {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			pool, out := setup(t, 5)
			victim := newVictim(t)
			var at string
			var run int64
			_, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"},
				halt: func(step string) bool {
					if step == "placed" { // the files are placed; the manifest comes with the commit
						run = runningRun(t, pool)
						at = manifestPath(out, run)
						require.NoError(t, os.MkdirAll(filepath.Dir(at), 0o755))
						p.plant(t, at, victim)
					}
					return false
				}})
			require.ErrorContains(t, err, at)
			require.ErrorContains(t, err, "already exists and adsync did not write it")
			var outcome string
			require.NoError(t, pool.QueryRow(context.Background(), `SELECT outcome FROM sync_runs WHERE id = $1`, run).Scan(&outcome))
			require.Equal(t, "failed", outcome, "a run whose manifest could not be placed is not committed")
			requirePlantedKept(t, at, p.mode, victim)
		})
	}
}

func TestAJournalNamePlantedInTheStagingAreaIsNotWrittenThrough(t *testing.T) {
	t.Parallel()
	for _, p := range planted {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			pool, out := setup(t, 5)
			victim := newVictim(t)
			var at string
			_, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"},
				halt: func(step string) bool {
					if step == "written" { // the run's files are staged, its journal not yet written
						at = filepath.Join(out, stagingDir, fmt.Sprintf("run-%d", runningRun(t, pool)), journalName)
						p.plant(t, at, victim)
					}
					return false
				}})
			require.ErrorContains(t, err, at)
			b, err := os.ReadFile(victim)
			require.NoError(t, err)
			require.Equal(t, "someone's file", string(b), "nothing was written through the link")
			require.Empty(t, visibleParquet(t, out), "the run published nothing")
		})
	}
}

func TestAPartNamePlantedDuringARunIsKept(t *testing.T) {
	t.Parallel()
	for _, p := range planted {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			pool, out := setup(t, 5)
			victim := newVictim(t)
			var at string
			_, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"},
				halt: func(step string) bool {
					if step == "written" { // plant where the first staged file is about to go
						staging := filepath.Join(out, stagingDir, fmt.Sprintf("run-%d", runningRun(t, pool)))
						require.NoError(t, filepath.WalkDir(staging, func(s string, d fs.DirEntry, err error) error {
							if err == nil && at == "" && strings.HasSuffix(s, ".parquet") {
								rel, _ := filepath.Rel(staging, s)
								at = filepath.Join(out, rel)
								require.NoError(t, os.MkdirAll(filepath.Dir(at), 0o755))
								p.plant(t, at, victim)
							}
							return err
						}))
					}
					return false
				}})
			require.ErrorContains(t, err, at)
			require.ErrorContains(t, err, "already exists and adsync did not write it in this run")
			requirePlantedKept(t, at, p.mode, victim)
		})
	}
}
