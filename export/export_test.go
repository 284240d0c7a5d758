package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	if os.Getenv(rssChildEnv) == "1" {
		os.Exit(rssChild())
	}
	os.Exit(localpg.Main(m))
}

// testItems is a table with every column kind, registered for these tests.
var testItems = Table{
	Name: "test_items", From: "test_items", ChangedAt: "updated_at", OrderBy: "id", Key: []string{"id"},
	Columns: []Column{
		{Name: "id", Kind: Int64},
		{Name: "name", Kind: String},
		{Name: "note", Kind: String, Nullable: true},
		{Name: "daily_budget_amount_local_micro", Kind: Int64, Nullable: true},
		{Name: "active", Kind: Bool},
		{Name: "price", Kind: Float64, Nullable: true},
		{Name: "tags", Kind: StringList},
		{Name: "volumes", Kind: Int64List},
		{Name: "day", Kind: Date, Nullable: true},
		{Name: "created_at", Kind: Timestamp},
		{Name: "raw", Kind: JSON},
	},
}

func init() { register(testItems) }

const testItemsDDL = `CREATE TABLE test_items (
	id bigint PRIMARY KEY, name text NOT NULL, note text, daily_budget_amount_local_micro bigint,
	active boolean NOT NULL, price double precision, tags text[], volumes bigint[], day date,
	created_at timestamptz NOT NULL, raw jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`

func setup(t *testing.T, rows int) (*pgxpool.Pool, string) {
	t.Helper()
	ctx := context.Background()
	url := localpg.NewDatabaseFrom(t, "export", func(ctx context.Context, url string) error {
		pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: 4})
		if err != nil {
			return err
		}
		defer pool.Close()
		if _, err := migrations.Migrate(ctx, pool, nil); err != nil {
			return err
		}
		_, err = pool.Exec(ctx, testItemsDDL)
		return err
	})
	pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: 6})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	// Each test database is a copy of one template: give it its own identity.
	_, err = pool.Exec(ctx, `UPDATE adsync_database SET database_id = gen_random_uuid()`)
	require.NoError(t, err)
	insertItems(t, pool, 1, rows)
	return pool, t.TempDir()
}

func insertItems(t *testing.T, pool *pgxpool.Pool, from, to int) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `INSERT INTO test_items (id, name, note, daily_budget_amount_local_micro, active, price, tags, volumes, day, created_at, raw)
		SELECT g, 'item ' || g, CASE WHEN g % 3 = 0 THEN NULL ELSE 'note' END, CASE WHEN g % 4 = 0 THEN NULL ELSE g * 1000000 END,
			g % 2 = 0, CASE WHEN g % 5 = 0 THEN NULL ELSE g / 7.0 END, ARRAY['t' || g, 'x'], ARRAY[g, g + 1]::bigint[],
			CASE WHEN g % 6 = 0 THEN NULL ELSE date '2026-01-01' + g END, timestamptz '2026-01-01 00:00:00.123+00' + g * interval '1 hour',
			jsonb_build_object('id', g::text, 'unknown_future_field', true)
		FROM generate_series($1::int, $2::int) g`, from, to)
	require.NoError(t, err)
}

// duck reads files with DuckDB through Node.
func duck(t *testing.T, files []string, queries map[string]string) exporttest.Result {
	t.Helper()
	return exporttest.Duck(t, files, queries)
}

func files(res *Result, out string) []string {
	var fs []string
	for _, tr := range res.Tables {
		for _, f := range tr.Files {
			fs = append(fs, filepath.Join(out, f.Path))
		}
	}
	return fs
}

// visibleParquet lists the Parquet files a reader sees: folders and files
// whose names start with _ or . are hidden (the Hive and Spark convention).
func visibleParquet(t *testing.T, out string) []string {
	t.Helper()
	var fs []string
	require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != out && (strings.HasPrefix(d.Name(), "_") || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.HasPrefix(d.Name(), ".") {
			fs = append(fs, p)
		}
		return err
	}))
	sort.Strings(fs)
	return fs
}

func TestExportedFilesAreReadByDuckDBWithDeclaredTypesAndPostgresCounts(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 250)
	res, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 100, RowsPerRowGroup: 30})
	require.NoError(t, err)
	require.Len(t, res.Tables, 1)
	require.EqualValues(t, 250, res.Tables[0].Rows)
	require.Len(t, res.Tables[0].Files, 3, "files rotate at RowsPerFile")
	for _, f := range res.Tables[0].Files {
		require.Regexp(t, `^test_items/dt=\d{4}-\d\d-\d\d/part-\d+-\d+\.parquet$`, f.Path, "Hive-style partitions")
	}

	d := duck(t, files(res, out), map[string]string{
		"sums": "SELECT count(*) AS n, sum(daily_budget_amount_local_micro)::BIGINT AS micros, count(note) AS notes, " +
			"min(created_at)::VARCHAR AS first, max(len(tags))::BIGINT AS tags, json_extract_string(any_value(raw), '$.unknown_future_field') AS unknown " +
			"FROM read_parquet('" + filepath.Join(out, "test_items") + "/*/*.parquet')",
	})
	var total int64
	for _, f := range d.Files {
		total += f.Rows
		types := map[string]string{}
		for _, c := range f.Columns {
			types[c.Name] = c.Type
		}
		require.Equal(t, "DATE", types["dt"], "DuckDB reads the Hive partition as a date")
		delete(types, "dt")
		require.Equal(t, map[string]string{
			"id": "BIGINT", "name": "VARCHAR", "note": "VARCHAR", "daily_budget_amount_local_micro": "BIGINT",
			"active": "BOOLEAN", "price": "DOUBLE", "tags": "VARCHAR[]", "volumes": "BIGINT[]", "day": "DATE",
			"created_at": "TIMESTAMP WITH TIME ZONE", "raw": "JSON", RunColumn: "BIGINT",
		}, types)
	}
	var pgCount, pgMicros, pgNotes int64
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*), sum(daily_budget_amount_local_micro), count(note) FROM test_items`).Scan(&pgCount, &pgMicros, &pgNotes))
	require.Equal(t, pgCount, total)
	sums := d.Queries["sums"][0]
	require.EqualValues(t, float64(pgMicros), toFloat(sums["micros"]), "money survives as int64 micros")
	require.EqualValues(t, float64(pgNotes), toFloat(sums["notes"]), "nulls stay null")
	require.Equal(t, "2026-01-01 01:00:00.123+00", sums["first"], "timestamps are UTC milliseconds")
	require.EqualValues(t, 2, toFloat(sums["tags"]), "arrays are real lists")
	require.Equal(t, "true", sums["unknown"], "the raw record keeps fields the schema does not name")
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		var f float64
		_ = json.Unmarshal([]byte(x), &f)
		return f
	}
	return -1
}

func TestRowGroupsAreBounded(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 95)
	res, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerRowGroup: 20})
	require.NoError(t, err)
	f, err := os.Open(filepath.Join(out, res.Tables[0].Files[0].Path))
	require.NoError(t, err)
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	require.NoError(t, err)
	require.Len(t, pf.RowGroups(), 5)
	for _, rg := range pf.RowGroups() {
		require.LessOrEqual(t, rg.NumRows(), int64(20))
	}
	d := duck(t, nil, map[string]string{"codecs": "SELECT list(DISTINCT compression) AS c, count(DISTINCT row_group_id)::BIGINT AS groups FROM parquet_metadata('" + f.Name() + "')"})
	require.Equal(t, []any{"ZSTD"}, d.Queries["codecs"][0]["c"])
	require.EqualValues(t, 5, toFloat(d.Queries["codecs"][0]["groups"]))
}

func TestManifestListsEveryFileWithItsSHA256AndSchemaFingerprint(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 40)
	res, err := Run(context.Background(), pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 15})
	require.NoError(t, err)
	m, err := ReadManifest(res.Manifest)
	require.NoError(t, err)
	require.Equal(t, res.RunID, m.RunID)
	require.Equal(t, testItems.Fingerprint(), m.Tables[0].SchemaFingerprint)
	var rows int64
	for _, f := range m.Tables[0].Files {
		b, err := os.ReadFile(filepath.Join(out, f.Path))
		require.NoError(t, err)
		sum := sha256.Sum256(b)
		require.Equal(t, hex.EncodeToString(sum[:]), f.SHA256)
		require.EqualValues(t, len(b), f.Bytes)
		rows += f.Rows
	}
	require.EqualValues(t, 40, rows)
}

func TestSecondIncrementalExportWritesOnlyChangedRows(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 60)
	ctx := context.Background()
	first, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 60, first.Tables[0].Rows)

	_, err = pool.Exec(ctx, `UPDATE test_items SET name = name || ' changed', updated_at = now() WHERE id IN (3, 7, 11)`)
	require.NoError(t, err)
	insertItems(t, pool, 61, 65)
	second, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 8, second.Tables[0].Rows, "3 changed + 5 new")
	d := duck(t, files(second, out), map[string]string{
		"ids": "SELECT list(id ORDER BY id)::VARCHAR AS ids FROM read_parquet(" + quoteList(files(second, out)) + ")",
	})
	require.Equal(t, "[3, 7, 11, 61, 62, 63, 64, 65]", d.Queries["ids"][0]["ids"])

	third, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.Zero(t, third.Tables[0].Rows, "nothing changed, nothing written")
	require.Empty(t, third.Tables[0].Files)

	full, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, Full: true})
	require.NoError(t, err)
	require.EqualValues(t, 65, full.Tables[0].Rows, "--full writes everything")
}

func quoteList(fs []string) string {
	q := make([]string, len(fs))
	for i, f := range fs {
		q[i] = "'" + f + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func TestInterruptedExportLeavesNoPartialFileAndTheNextRunCompletesIt(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 100)
	ctx := context.Background()
	boom := errors.New("interrupted")
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20,
		afterRows: func(_ string, n int64) error {
			if n == 70 {
				return boom
			}
			return nil
		}})
	require.ErrorIs(t, err, boom)
	require.Empty(t, visibleParquet(t, out), "no file of the interrupted run is visible")
	manifests, _ := filepath.Glob(filepath.Join(out, manifestDir, "*.json"))
	require.Empty(t, manifests)
	var outcome string
	require.NoError(t, pool.QueryRow(ctx, `SELECT outcome FROM sync_runs WHERE pipeline = 'export' ORDER BY id DESC LIMIT 1`).Scan(&outcome))
	require.Equal(t, "failed", outcome)

	res, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: 20})
	require.NoError(t, err)
	require.EqualValues(t, 100, res.Tables[0].Rows, "the next run exports what the interrupted one did not commit")
	vis := visibleParquet(t, out)
	require.Len(t, vis, 5)
	d := duck(t, vis, map[string]string{"n": "SELECT count(DISTINCT id)::BIGINT AS n, count(*)::BIGINT AS c FROM read_parquet(" + quoteList(vis) + ")"})
	require.EqualValues(t, 100, toFloat(d.Queries["n"][0]["n"]))
	require.EqualValues(t, 100, toFloat(d.Queries["n"][0]["c"]), "no duplicates")
}

func TestAFileThatCannotBeWrittenFailsTheRunNamingItsTableOnce(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, batchRows+1)
	ctx := context.Background()
	_, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}, RowsPerFile: batchRows,
		afterRows: func(_ string, n int64) error {
			if n != batchRows+1 {
				return nil
			}
			// The first batch fills the first file, which the writer has
			// opened by now; the second file is opened once this row's batch
			// is sent: its staged path is taken (a link to a full disk),
			// which the writer refuses to open.
			pattern := filepath.Join(out, stagingDir, "run-*", "test_items", "*", "part-*-1.parquet")
			var first []string
			require.Eventually(t, func() bool {
				first, _ = filepath.Glob(pattern)
				return len(first) == 1
			}, 30*time.Second, 10*time.Millisecond)
			return os.Symlink("/dev/full", strings.TrimSuffix(first[0], "-1.parquet")+"-2.parquet")
		}})
	require.Error(t, err)
	require.Regexp(t, `^export test_items: open \S+/_staging/run-\d+/test_items/dt=\d{4}-\d{2}-\d{2}/part-\d+-2\.parquet: file exists$`, err.Error())
	require.Equal(t, 1, strings.Count(err.Error(), "export test_items:"), "the table is named once: %v", err)
	require.Empty(t, visibleParquet(t, out), "no file of the failed run is visible")
	var outcome, reason string
	require.NoError(t, pool.QueryRow(ctx, `SELECT outcome, error FROM sync_runs WHERE pipeline = 'export'`).Scan(&outcome, &reason))
	require.Equal(t, "failed", outcome)
	require.Equal(t, err.Error(), reason, "the run records the error as the command shows it")
}

func TestOneExportAtATime(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 1)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey)
	require.NoError(t, err)
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.ErrorIs(t, err, ErrExportRunning)
	_, err = conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockKey)
	require.NoError(t, err)
}

func TestUnknownTableIsRefusedNamingTheKnownOnes(t *testing.T) {
	t.Parallel()
	_, err := Select([]string{"campaignz"})
	require.ErrorContains(t, err, `unknown table "campaignz"`)
	require.ErrorContains(t, err, "test_items")
}

func TestNullInANotNullColumnIsAnErrorNamingIt(t *testing.T) {
	t.Parallel()
	_, err := convert(Column{Name: "name", Kind: String}, nil)
	require.ErrorContains(t, err, "column name")
}

func TestEdgeValuesRoundTripThroughDuckDB(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 0)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO test_items (id, name, note, daily_budget_amount_local_micro, active, price, tags, volumes, day, created_at, raw) VALUES
		(1, 'before 1970', NULL, -9223372036854775808, false, -0.5, ARRAY[]::text[], ARRAY[]::bigint[], date '1969-12-31', timestamptz '1969-12-31 23:59:59.999+00', '{"é": "ü", "n": [1, 2]}'),
		(2, 'before 2000', 'x', 9223372036854775807, true, 1e300, ARRAY['a', NULL, 'c'], ARRAY[1, NULL, -3]::bigint[], date '1999-12-31', timestamptz '1999-12-31 23:59:59.001+00', '[]'),
		(3, 'after 2000', '', 0, true, NULL, NULL, NULL, NULL, timestamptz '2000-01-01 00:00:00.0005+00', '"s"')`)
	require.NoError(t, err)
	_, err = Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	d := duck(t, nil, map[string]string{"rows": "SELECT id, name, note, daily_budget_amount_local_micro::VARCHAR AS micros, active, price, tags::VARCHAR AS tags, " +
		"volumes::VARCHAR AS volumes, day::VARCHAR AS day, created_at::VARCHAR AS created_at, raw::VARCHAR AS raw " +
		"FROM read_parquet('" + out + "/test_items/*/*.parquet') ORDER BY id"})
	rows := d.Queries["rows"]
	require.Len(t, rows, 3)
	want := []map[string]any{
		{"name": "before 1970", "note": nil, "micros": "-9223372036854775808", "active": false, "tags": "[]", "volumes": "[]",
			"day": "1969-12-31", "created_at": "1969-12-31 23:59:59.999+00", "raw": `{"n": [1, 2], "é": "ü"}`},
		{"name": "before 2000", "note": "x", "micros": "9223372036854775807", "active": true, "tags": "[a, c]", "volumes": "[1, -3]",
			"day": "1999-12-31", "created_at": "1999-12-31 23:59:59.001+00", "raw": `[]`},
		{"name": "after 2000", "note": "", "micros": "0", "active": true, "tags": "[]", "volumes": "[]",
			"day": nil, "created_at": "2000-01-01 00:00:00+00", "raw": `"s"`},
	}
	for i, w := range want {
		for k, v := range w {
			require.Equal(t, v, rows[i][k], "row %d column %s", i+1, k)
		}
	}
	require.EqualValues(t, -0.5, toFloat(rows[0]["price"]))
	require.Nil(t, rows[2]["price"])
}

func TestARowWrittenLateByATransactionOpenDuringAnExportIsExportedByTheNext(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 3)
	ctx := context.Background()
	// A writer begins and reads first: it has not written anything yet when
	// the export runs, but the row it writes later is stamped with its start.
	writer, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = writer.Rollback(ctx) }()
	_, err = writer.Exec(ctx, `SELECT count(*) FROM test_items`)
	require.NoError(t, err)

	first, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 3, first.Tables[0].Rows)

	insertItemsIn(t, writer, 4)
	require.NoError(t, writer.Commit(ctx))
	second, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.EqualValues(t, 1, second.Tables[0].Rows, "the late row is exported by the next run")
	third, err := Run(ctx, pool, Options{Out: out, Tables: []string{"test_items"}})
	require.NoError(t, err)
	require.Zero(t, third.Tables[0].Rows, "and only once")
}

func insertItemsIn(t *testing.T, tx pgx.Tx, id int) {
	t.Helper()
	_, err := tx.Exec(context.Background(), `INSERT INTO test_items (id, name, active, tags, volumes, created_at, raw)
		VALUES ($1, 'late', true, '{}', '{}', now(), '{}')`, id)
	require.NoError(t, err)
}
