package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// tree maps every file under root (hidden ones too) to its SHA-256.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(root, p)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	}))
	return out
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// foreign is what a user keeps in a folder, including names that look like
// adsync's own.
var foreign = map[string]string{
	".git/HEAD":  "ref: refs/heads/main\n",
	"notes.txt":  "my notes",
	".draft.tmp": "hidden temporary of another program",
	"test_items/dt=2026-01-01/part-999999-1.parquet":      "someone else's file with an adsync-like name",
	"test_items/dt=2026-01-01/.part-999999-2.parquet.tmp": "and a hidden one",
}

func TestExportRefusesANonEmptyFolderItDidNotCreateAndTouchesNothing(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 5)
	writeFiles(t, out, foreign)
	before := tree(t, out)

	_, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"}})
	var own *OwnershipError
	require.ErrorAs(t, err, &own)
	require.ErrorContains(t, err, out, "the error names the folder")
	require.ErrorContains(t, err, "not empty")
	require.ErrorContains(t, err, markerName)
	require.Equal(t, before, tree(t, out), "nothing in the folder changed")
	var runs int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM sync_runs WHERE pipeline = 'export'`).Scan(&runs))
	require.Zero(t, runs, "a refused export records no run")
}

func TestExportKeepsEveryFileItDidNotWriteInAFolderItOwns(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 20)
	ctx := context.Background()
	first, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	m, err := readMarker(out)
	require.NoError(t, err)
	require.Equal(t, first.OutputID, m.OutputID)

	// The user puts things of their own into the export folder, some named
	// like adsync's files and temporaries.
	writeFiles(t, out, foreign)
	theirs := map[string]string{}
	for rel, sum := range tree(t, out) {
		if _, ok := foreign[filepath.ToSlash(rel)]; ok {
			theirs[rel] = sum
		}
	}
	_, err = pool.Exec(ctx, `UPDATE test_items SET name = 'changed', updated_at = now() WHERE id = 1`)
	require.NoError(t, err)
	for _, full := range []bool{false, true} {
		_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, Full: full})
		require.NoError(t, err)
	}
	after := tree(t, out)
	for rel, sum := range theirs {
		require.Equal(t, sum, after[rel], "%s is untouched", rel)
	}
}

func TestFolderOwnedByAnotherDatabaseIsRefusedNamingBoth(t *testing.T) {
	t.Parallel()
	poolA, out := setup(t, 10)
	poolB, _ := setup(t, 10)
	ctx := context.Background()
	_, err := Run(ctx, poolA, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	before := tree(t, out)

	_, err = Run(ctx, poolB, Options{Out: out, Tables: []string{"test_items"}})
	var own *OwnershipError
	require.ErrorAs(t, err, &own)
	idA, _ := databaseID(t, poolA)
	idB, _ := databaseID(t, poolB)
	require.ErrorContains(t, err, out)
	require.ErrorContains(t, err, idA, "names the owner")
	require.ErrorContains(t, err, idB, "names this database")
	require.Equal(t, before, tree(t, out), "the other database's export is untouched")
}

func databaseID(t *testing.T, pool *pgxpool.Pool) (string, string) {
	t.Helper()
	d, err := thisDatabase(context.Background(), pool)
	require.NoError(t, err)
	return d.id, d.desc
}

func TestAnExportWrittenBeforeMarkersIsAdoptedAndKept(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 10)
	legacy := &Result{RunID: 3, Partition: "dt=2026-01-01", Tables: []TableResult{{Name: "test_items", Rows: 1,
		Files: []FileInfo{{Path: "test_items/dt=2026-01-01/part-3-1.parquet", Rows: 1, Bytes: 3, SHA256: "x"}}}}}
	b, _ := json.Marshal(legacy)
	writeFiles(t, out, map[string]string{
		"_manifests/run-3.json":                     string(b),
		"test_items/dt=2026-01-01/part-3-1.parquet": "old",
		"test_items/dt=2026-01-01/part-2-1.parquet": "a file of a run this database never recorded",
	})
	before := tree(t, out)

	res, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 10, res.Tables[0].Rows)
	m, err := readMarker(out)
	require.NoError(t, err)
	require.True(t, m.Adopted)
	after := tree(t, out)
	for rel, sum := range before {
		require.Equal(t, sum, after[rel], "%s is kept", rel)
	}
}

func TestAFileThatIsNotAFolderIsRefused(t *testing.T) {
	t.Parallel()
	pool, dir := setup(t, 1)
	out := filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(out, []byte("x"), 0o644))
	_, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"}})
	require.ErrorContains(t, err, "not a folder")
}

func TestAMarkerThatIsNotAdsyncsIsRefused(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 1)
	writeFiles(t, out, map[string]string{markerName: `{"hello": "world"}`})
	_, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"}})
	var own *OwnershipError
	require.ErrorAs(t, err, &own)
	require.ErrorContains(t, err, "not an adsync export marker")
}

func TestEachOutputFolderIsCompleteAndIncrementalOnItsOwn(t *testing.T) {
	t.Parallel()
	pool, dir := setup(t, 60)
	ctx := context.Background()
	one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	first, err := Run(ctx, pool, Options{Out: one, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 60, first.Tables[0].Rows)

	_, err = pool.Exec(ctx, `UPDATE test_items SET name = name || ' changed', updated_at = now() WHERE id IN (3, 7, 11)`)
	require.NoError(t, err)
	second, err := Run(ctx, pool, Options{Out: two, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 60, second.Tables[0].Rows, "a new folder gets every row")
	require.NotEqual(t, first.OutputID, second.OutputID)

	third, err := Run(ctx, pool, Options{Out: one, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 3, third.Tables[0].Rows, "the first folder gets what changed since its own last run")
	fourth, err := Run(ctx, pool, Options{Out: two, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.Zero(t, fourth.Tables[0].Rows, "the second folder already has it")
}

func TestTheLatestQueryReadsEachRecordOnceAfterIncrementalAndFullRuns(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 50)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE test_items SET name = 'v2', updated_at = now() WHERE id <= 10`)
	require.NoError(t, err)
	insertItems(t, pool, 51, 55)
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, Full: true})
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE test_items SET name = 'v3', updated_at = now() WHERE id <= 4`)
	require.NoError(t, err)
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)

	q := testItems.LatestQuery(out)
	d := duck(t, nil, map[string]string{
		"all":    "SELECT count(*)::BIGINT AS n FROM read_parquet('" + out + "/test_items/*/*.parquet')",
		"latest": "SELECT count(*)::BIGINT AS n, count(DISTINCT id)::BIGINT AS ids, count(*) FILTER (WHERE name = 'v3')::BIGINT AS v3, count(*) FILTER (WHERE name = 'v2')::BIGINT AS v2 FROM (" + q + ")",
	})
	require.Greater(t, toFloat(d.Queries["all"][0]["n"]), float64(55), "the folder holds several versions")
	latest := d.Queries["latest"][0]
	require.EqualValues(t, 55, toFloat(latest["n"]), "each record once")
	require.EqualValues(t, 55, toFloat(latest["ids"]))
	require.EqualValues(t, 4, toFloat(latest["v3"]), "the newest version")
	require.EqualValues(t, 6, toFloat(latest["v2"]))
}

func TestARunKilledAfterMovingFilesIsUndoneExactlyByTheNext(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 100)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		halt: func(step string) bool { return step == "placed" }})
	require.ErrorIs(t, err, errHalted)
	killed := visibleParquet(t, out)
	require.Len(t, killed, 5, "the killed run had moved its files into place")
	// The user replaced one of them with a file of their own meanwhile.
	require.NoError(t, os.WriteFile(killed[0], []byte("mine now"), 0o644))

	res, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20})
	require.NoError(t, err)
	require.EqualValues(t, 100, res.Tables[0].Rows, "the next run exports what the killed one did not commit")
	vis := visibleParquet(t, out)
	require.Contains(t, vis, killed[0], "a file the run no longer recognizes as its own is kept")
	for _, p := range killed[1:] {
		require.NotContains(t, vis, p, "the killed run's own files are removed")
	}
	b, err := os.ReadFile(killed[0])
	require.NoError(t, err)
	require.Equal(t, "mine now", string(b))
	require.NoDirExists(t, filepath.Join(out, stagingDir))
	var outcome string
	require.NoError(t, pool.QueryRow(ctx, `SELECT outcome FROM sync_runs WHERE id = $1`, res.RunID-1).Scan(&outcome))
	require.Equal(t, "failed", outcome, "the killed run is recorded as failed")
}

func TestARunKilledAfterCommittingHasItsManifestAndOneWithoutItGetsItFromTheNext(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 30)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		halt: func(step string) bool { return step == "committed" }})
	require.ErrorIs(t, err, errHalted)
	killed := visibleParquet(t, out)
	require.Len(t, killed, 2)
	manifests, _ := filepath.Glob(filepath.Join(out, manifestDir, "*.json"))
	require.Len(t, manifests, 1, "a committed run has its manifest")
	// As an adsync that wrote the manifest after committing left a run
	// killed in between: committed, without its manifest.
	written, err := os.ReadFile(manifests[0])
	require.NoError(t, err)
	require.NoError(t, os.Remove(manifests[0]))

	next, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.Zero(t, next.Tables[0].Rows, "the killed run was committed: nothing to export again")
	require.Equal(t, killed, visibleParquet(t, out), "its files stay")
	rewritten, err := os.ReadFile(manifestPath(out, next.RunID-1))
	require.NoError(t, err)
	require.JSONEq(t, string(written), string(rewritten), "the next run writes the same manifest again")
	m, err := ReadManifest(manifestPath(out, next.RunID-1))
	require.NoError(t, err)
	var listed []string
	for _, f := range m.Tables[0].Files {
		listed = append(listed, filepath.Join(out, f.Path))
		sum, size, err := fileSHA256(filepath.Join(out, f.Path))
		require.NoError(t, err)
		require.Equal(t, f.SHA256, sum)
		require.Equal(t, f.Bytes, size)
	}
	sort.Strings(listed)
	require.Equal(t, killed, listed)
	require.NoDirExists(t, filepath.Join(out, stagingDir))
}

func TestARunKilledAfterStagingItsManifestGetsItWrittenAgainByTheNext(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 5)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"},
		halt: func(step string) bool { return step == "committed" }})
	require.ErrorIs(t, err, errHalted)
	// A run committed by an adsync that wrote its manifest after the
	// commit, which died with the manifest half staged, not yet in
	// _manifests: the next run writes it again.
	run := runningRun(t, pool)
	require.NoError(t, os.Remove(manifestPath(out, run)))
	for _, name := range []string{manifestStaged, manifestMoving} {
		half := filepath.Join(out, stagingDir, fmt.Sprintf("run-%d", run), name)
		require.NoError(t, os.WriteFile(half, []byte(`{"half":`), 0o644))
	}

	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	m, err := ReadManifest(manifestPath(out, run))
	require.NoError(t, err, "the manifest was staged again and placed")
	require.Equal(t, run, m.RunID)
	require.NoDirExists(t, filepath.Join(out, stagingDir))
}

func TestAManifestThatCannotBeWrittenFailsTheRunAndLeavesNothingOfItVisible(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 30)
	ctx := context.Background()
	first, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	before := visibleParquet(t, out)
	// The next run's manifest is written in its staging area first: a
	// folder of someone else's there makes it fail.
	blocker := filepath.Join(stagingDir, fmt.Sprintf("run-%d", first.RunID+1), manifestStaged, "theirs")
	writeFiles(t, out, map[string]string{blocker: "in the way"})
	insertItems(t, pool, 31, 50)

	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.Error(t, err)
	require.Regexp(t, `^export: run \d+: writing the manifest: .*file exists$`, err.Error())
	var outcome, reason string
	require.NoError(t, pool.QueryRow(ctx, `SELECT outcome, error FROM sync_runs WHERE id = $1`, first.RunID+1).Scan(&outcome, &reason))
	require.Equal(t, "failed", outcome, "a run without its manifest is not recorded succeeded")
	require.Equal(t, err.Error(), reason)
	require.Equal(t, before, visibleParquet(t, out), "none of the failed run's files is visible")
	manifests, _ := filepath.Glob(filepath.Join(out, manifestDir, "*.json"))
	require.Equal(t, []string{manifestPath(out, first.RunID)}, manifests)
	require.Equal(t, []string{strings.TrimPrefix(blocker, stagingDir+"/")}, slices.Sorted(maps.Keys(tree(t, filepath.Join(out, stagingDir)))), "only what adsync did not write stays")
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM export_files WHERE run_id = $1`, first.RunID+1).Scan(&n))
	require.Zero(t, n, "nothing of it recorded")

	require.NoError(t, os.RemoveAll(filepath.Join(out, stagingDir)))
	next, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 20, next.Tables[0].Rows, "the next run exports the rows the failed one did not commit")
}

func TestARunKilledAfterWritingItsManifestButBeforeCommittingIsUndoneByTheNext(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 30)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		halt: func(step string) bool { return step == "manifest" }})
	require.ErrorIs(t, err, errHalted)
	require.Len(t, visibleParquet(t, out), 2, "the killed run had placed its files")
	manifests, _ := filepath.Glob(filepath.Join(out, manifestDir, "*.json"))
	require.Len(t, manifests, 1, "and written its manifest")

	next, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20})
	require.NoError(t, err)
	require.EqualValues(t, 30, next.Tables[0].Rows, "the killed run never committed: its rows are exported again")
	manifests, _ = filepath.Glob(filepath.Join(out, manifestDir, "*.json"))
	require.Equal(t, []string{manifestPath(out, next.RunID)}, manifests, "the killed run's manifest is removed with its files")
	require.Equal(t, files(next, out), visibleParquet(t, out))
	require.NoDirExists(t, filepath.Join(out, stagingDir))
	requireOutcome(t, pool, next.RunID-1, "failed")
}

func TestAFileAlreadyAtAFinalNameIsNeverReplaced(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 5)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	var next int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT last_value + 1 FROM sync_runs_id_seq`).Scan(&next))
	_, err = pool.Exec(ctx, `UPDATE test_items SET updated_at = now()`)
	require.NoError(t, err)
	// Someone put a file where the next run's first file would go.
	var part string
	require.NoError(t, pool.QueryRow(ctx, `SELECT 'dt=' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')`).Scan(&part))
	squat := filepath.Join(out, "test_items", part, "part-"+itoa(next)+"-1.parquet")
	writeFiles(t, out, map[string]string{strings.TrimPrefix(squat, out+"/"): "theirs"})

	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.ErrorContains(t, err, "already exists")
	b, err := os.ReadFile(squat)
	require.NoError(t, err)
	require.Equal(t, "theirs", string(b))
	require.False(t, errors.Is(err, errHalted))
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// readMarker reads the marker of the folder at root.
func readMarker(root string) (marker, error) {
	f := folderMarker{root}
	b, err := f.readMarker(context.Background())
	if err != nil {
		return marker{}, err
	}
	return parseMarker(b, root, f.markerPath())
}
