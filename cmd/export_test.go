package adsynccmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
)

func TestExportCommandWritesFilesAndAManifest(t *testing.T) {
	t.Parallel()
	db := synctest.MigratedDatabase(t)
	out := t.TempDir()
	r := run(t, "export", "--database-url", db, "--out", out, "--tables", "sync_runs")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `sync_runs\s+1\s+1`, r.stdout, "the export's own run row")
	manifests, _ := filepath.Glob(filepath.Join(out, "_manifests", "run-*.json"))
	require.Len(t, manifests, 1)
	files, _ := filepath.Glob(filepath.Join(out, "sync_runs", "dt=*", "part-*.parquet"))
	require.Len(t, files, 1)
	_, err := os.Stat(files[0])
	require.NoError(t, err)
}

func TestAnExportWhoseManifestCannotBeWrittenExitsNonZeroAndIsRecordedFailed(t *testing.T) {
	t.Parallel()
	db := synctest.MigratedDatabase(t)
	out := t.TempDir()
	r := run(t, "export", "--database-url", db, "--out", out, "--tables", "sync_runs")
	require.Equal(t, 0, r.code, r.stderr)
	before, _ := filepath.Glob(filepath.Join(out, "sync_runs", "dt=*", "part-*.parquet"))
	require.Len(t, before, 1)
	ctx := context.Background()
	pool := (&serviceBundle{db: db}).pool(t)
	var last int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT max(id) FROM sync_runs`).Scan(&last))
	// The next run stages its manifest where a folder of someone else's is.
	blocker := filepath.Join(out, "_staging", fmt.Sprintf("run-%d", last+1), "manifest.json", "theirs")
	require.NoError(t, os.MkdirAll(filepath.Dir(blocker), 0o755))
	require.NoError(t, os.WriteFile(blocker, []byte("in the way"), 0o644))

	r = run(t, "export", "--database-url", db, "--out", out, "--tables", "sync_runs")
	require.Equal(t, 1, r.code, r.stdout)
	require.Regexp(t, `^adsync: export: run \d+: writing the manifest: .*file exists\n$`, r.stderr)
	var outcome, reason string
	require.NoError(t, pool.QueryRow(ctx, `SELECT outcome, coalesce(error, '') FROM sync_runs WHERE id = $1`, last+1).Scan(&outcome, &reason))
	require.Equal(t, "failed", outcome, "the exit status and the run's record agree")
	require.Equal(t, strings.TrimSuffix(strings.TrimPrefix(r.stderr, "adsync: "), "\n"), reason)
	after, _ := filepath.Glob(filepath.Join(out, "sync_runs", "dt=*", "part-*.parquet"))
	require.Equal(t, before, after, "a reader sees nothing of the failed run")
	manifests, _ := filepath.Glob(filepath.Join(out, "_manifests", "run-*.json"))
	require.Len(t, manifests, 1, "the first run's manifest only")
}

func TestExportCommandRejectsAnUnknownTable(t *testing.T) {
	t.Parallel()
	r := run(t, "export", "--database-url", "postgres://unused@127.0.0.1:1/x", "--tables", "nope")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `unknown table "nope"`)
}

func TestExportCommandRejectsAnEmptyOut(t *testing.T) {
	t.Parallel()
	r := run(t, "export", "--database-url", "postgres://unused@127.0.0.1:1/x", "--out", "")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "--out must not be empty")
}
