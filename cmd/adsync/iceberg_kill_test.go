package main

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/export/exporttest/icebirdtables"
	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// TestIcebergExportKilledWritingDataManifestsOrAfterACommitLeavesEveryTableAtACommittedStateAndTheNextEqualsPostgres
// exports a synced fake as Iceberg, changes the fake and syncs again, then
// SIGKILLs three `adsync export --format iceberg` processes: one when its
// first data file appears, one when its first manifest appears, one right
// after its first catalog commit. After each kill icebird reads every table
// as either the first export or Postgres holds it; a last export completes
// and every table equals Postgres.
func TestIcebergExportKilledWritingDataManifestsOrAfterACommitLeavesEveryTableAtACommittedStateAndTheNextEqualsPostgres(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *fixtures.Options) { o.Accounts, o.Locations = 2, 2000 }, "")
	out := filepath.Join(e.dir, "lake")
	// The tables the sync changes, their histories and an analytics table:
	// every table of the export would take a minute more and kill no
	// differently.
	names := []string{"campaigns", "line_items", "ad_stats", "campaigns_history", "line_items_history"}
	args := []string{"export", "--format", "iceberg", "--out", out, "--tables", strings.Join(names, ",")}
	stats := []string{"stats", "sync", "--wait", "--entities", "CAMPAIGN", "--start", time.Now().UTC().AddDate(0, 0, -2).Format(time.DateOnly)}
	for _, a := range [][]string{{"sync", "--wait"}, stats, args} {
		start := time.Now()
		code, output := e.run(t, a...)
		require.Equal(t, 0, code, "adsync %v: %s", a, output)
		t.Logf("adsync %v: %s", a, time.Since(start))
	}
	var checked []exporttest.IcebergTable
	for _, name := range names {
		i := slices.IndexFunc(export.Tables(), func(tb export.Table) bool { return tb.Name == name })
		require.NotEqual(t, -1, i, name)
		checked = append(checked, icebirdtables.Of(export.Tables()[i])...)
	}
	first := exporttest.ReadIceberg(t, e.pool, checked, nil, nil)
	for _, tb := range checked {
		require.NotEmpty(t, first[tb.Name], "the first export wrote %s", tb.Name)
	}

	e.mutate(t, `{"kind": "campaigns", "add": 3, "change": 5, "delete": 2}`)
	e.mutate(t, `{"kind": "line_items", "add": 2, "change": 4, "delete": 1}`)
	code, output := e.run(t, "sync", "--wait")
	require.Equal(t, 0, code, output)
	for _, tb := range checked[:2] {
		require.False(t, equalRows(exporttest.SortedRows(exporttest.WithoutRun(first[tb.Name])),
			exporttest.SortedRows(exporttest.PostgresRows(t, e.pool, tb))), "the sync changed %s", tb.Name)
	}

	ctx := context.Background()
	for _, point := range []struct {
		name string
		// reached reports whether the export came to the kill point, given
		// the files and catalog before it started.
		reached func(files map[string]bool, catalog map[string]string) bool
	}{
		{"its first data file", func(files map[string]bool, _ map[string]string) bool {
			return newFile(t, out, files, func(p string) bool { return strings.HasSuffix(p, ".parquet") })
		}},
		{"its first manifest", func(files map[string]bool, _ map[string]string) bool {
			return newFile(t, out, files, func(p string) bool { return strings.HasSuffix(p, ".avro") })
		}},
		{"its first catalog commit", func(_ map[string]bool, catalog map[string]string) bool {
			now := catalogLocations(t, e)
			for name, loc := range now {
				if catalog[name] != loc {
					return true
				}
			}
			return false
		}},
	} {
		files, catalog := filesUnder(t, out), catalogLocations(t, e)
		p := e.start(t, args...)
		deadline := time.Now().Add(patience)
		for !point.reached(files, catalog) {
			select {
			case <-p.done:
				t.Fatalf("the export ended (status %d) before %s: %s", p.status, point.name, p.output())
			default:
			}
			require.True(t, time.Now().Before(deadline), "timed out waiting for %s", point.name)
			time.Sleep(5 * time.Millisecond)
		}
		p.kill()
		require.Equal(t, -9, p.status, "killed at %s: %s", point.name, p.output())
		got := exporttest.ReadIceberg(t, e.pool, checked, nil, nil)
		for _, tb := range checked {
			rows := exporttest.SortedRows(exporttest.WithoutRun(got[tb.Name]))
			before := exporttest.SortedRows(exporttest.WithoutRun(first[tb.Name]))
			now := exporttest.SortedRows(exporttest.PostgresRows(t, e.pool, tb))
			require.True(t, equalRows(rows, before) || equalRows(rows, now),
				"killed at %s, icebird reads %d rows of %s: neither its first export (%d rows) nor Postgres (%d rows)",
				point.name, len(rows), tb.Name, len(before), len(now))
		}
		changed := 0
		for name, loc := range catalogLocations(t, e) {
			if catalog[name] != loc {
				changed++
			}
		}
		t.Logf("killed at %s: %d tables committed", point.name, changed)
	}

	code, output = e.run(t, args...)
	require.Equal(t, 0, code, output)
	var run int64
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT max(id) FROM sync_runs WHERE pipeline = $1`, export.Pipeline).Scan(&run))
	exporttest.RequireIcebergEqualsPostgres(t, e.pool, checked, nil, run)
}

// filesUnder is every file under dir.
func filesUnder(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files[p] = true
		}
		return nil // a file the export removes while we walk
	})
	require.NoError(t, err)
	return files
}

// newFile reports whether dir holds a file match accepts that files lacks.
func newFile(t *testing.T, dir string, files map[string]bool, match func(string) bool) bool {
	t.Helper()
	for p := range filesUnder(t, dir) {
		if !files[p] && match(p) {
			return true
		}
	}
	return false
}

// catalogLocations is every table's metadata file in the catalog.
func catalogLocations(t *testing.T, e *env) map[string]string {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT table_name, metadata_location FROM iceberg_tables`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, loc string
		require.NoError(t, rows.Scan(&name, &loc))
		out[name] = loc
	}
	require.NoError(t, rows.Err())
	return out
}

// equalRows reports whether two sorted row sets are the same.
func equalRows(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}
