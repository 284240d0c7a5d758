package adsynccmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

func TestExportCommandWritesFilesAndAManifest(t *testing.T) {
	t.Parallel()
	db := localpg.NewDatabase(t)
	r := run(t, "migrate", "--database-url", db)
	require.Equal(t, 0, r.code, r.stderr)
	out := t.TempDir()
	r = run(t, "export", "--database-url", db, "--out", out, "--tables", "sync_runs")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `sync_runs\s+1\s+1`, r.stdout, "the export's own run row")
	manifests, _ := filepath.Glob(filepath.Join(out, "_manifests", "run-*.json"))
	require.Len(t, manifests, 1)
	files, _ := filepath.Glob(filepath.Join(out, "sync_runs", "dt=*", "part-*.parquet"))
	require.Len(t, files, 1)
	_, err := os.Stat(files[0])
	require.NoError(t, err)
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
