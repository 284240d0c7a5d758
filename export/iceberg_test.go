package export

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures/s3test"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// icebergSetup is a database holding test_items (unpartitioned), campaigns
// of three accounts (partitioned by account) and analytics over two months
// (by account and month), and a folder to export into.
func icebergSetup(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	pool, out := setup(t, 40)
	insertCampaigns(t, pool, 1, 30)
	_, err := pool.Exec(context.Background(), `INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity,
			bucket_date, impressions, billed_charge_local_micro, fetched_at)
		SELECT 'acct' || (g % 3), 'CAMPAIGN', 'c' || g, 'ALL_ON_SVC', 'DAY', date '2026-01-20' + (g % 20), g * 10, g * 1500000, now()
		FROM generate_series(1, 30) g`)
	require.NoError(t, err)
	return pool, out
}

// insertCampaigns adds campaigns from..to, spread over three accounts.
func insertCampaigns(t *testing.T, pool *pgxpool.Pool, from, to int) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `INSERT INTO campaigns (account_id, id, name, entity_status, reasons_not_servable,
			daily_budget_amount_local_micro, raw, api_created_at, api_updated_at, deleted, doc_hash, first_seen_at, last_synced_at)
		SELECT 'acct' || (g % 3), 'c' || g, 'Campaign ' || g, 'ACTIVE', ARRAY['PAUSED_BY_ADVERTISER'], g * 1000,
			jsonb_build_object('id', 'c' || g), timestamptz '2026-01-01 00:00:00.123456+00' + g * interval '1 hour', NULL, false, md5(g::text), now(), now()
		FROM generate_series($1::int, $2::int) g`, from, to)
	require.NoError(t, err)
}

// icebird is tables as exporttest's Iceberg reader compares them.
func icebird(tables ...Table) []exporttest.IcebergTable {
	out := make([]exporttest.IcebergTable, len(tables))
	for i, tb := range tables {
		out[i] = exporttest.IcebergTable{Name: tb.Name, From: tb.From, Run: RunColumn}
		for _, c := range tb.Columns {
			out[i].Columns = append(out[i].Columns, exporttest.IcebergColumn{Name: c.Name, SQL: c.SQL, Kind: c.Kind.String()})
		}
	}
	return out
}

func exportIceberg(t *testing.T, pool *pgxpool.Pool, out string, opts Options) *Result {
	t.Helper()
	opts.Out, opts.Format = out, FormatIceberg
	start := time.Now()
	res, err := Run(context.Background(), pool, opts)
	require.NoError(t, err)
	t.Logf("iceberg export: %d tables in %s", len(res.Tables), time.Since(start))
	return res
}

func TestIcebergFullExportEqualsPostgresInIcebird(t *testing.T) {
	pool, out := icebergSetup(t)
	res := exportIceberg(t, pool, out, Options{})
	require.Equal(t, len(Tables()), len(res.Tables))
	got := exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(Tables()...), nil, res.RunID)
	require.Len(t, got["test_items"], 40)
	require.Len(t, got["campaigns"], 30)
	require.Len(t, got["ad_stats"], 30)

	// Partitioned as promised: campaigns by account, analytics by account
	// and month.
	byTable := map[string][]string{}
	for _, tr := range res.Tables {
		for _, f := range tr.Files {
			rel, err := filepath.Rel(filepath.Join(out, "adsync", tr.Name, "data"), strings.TrimPrefix(f.Path, "file://"))
			require.NoError(t, err)
			byTable[tr.Name] = append(byTable[tr.Name], filepath.Dir(rel))
		}
	}
	sort.Strings(byTable["campaigns"])
	require.Equal(t, []string{"account_id=acct0", "account_id=acct1", "account_id=acct2"}, byTable["campaigns"])
	require.Contains(t, byTable["ad_stats"], "account_id=acct1/date_month=2026-02")
	require.Len(t, byTable["ad_stats"], 6)
	require.Equal(t, []string{"."}, byTable["test_items"])
}

// icebergTestTables are the tables the Iceberg tests export: one
// unpartitioned, one by account, one by account and month.
var icebergTestTables = []string{"test_items", "campaigns", "ad_stats"}

func selectTables(t *testing.T, names ...string) []Table {
	t.Helper()
	tables, err := Select(names)
	require.NoError(t, err)
	return tables
}

// accountsOf lists the account partitions of a table's files in res.
func accountsOf(res *Result, table string) []string {
	seen := map[string]bool{}
	for _, tr := range res.Tables {
		for _, f := range tr.Files {
			if tr.Name == table {
				_, rest, _ := strings.Cut(f.Path, "/data/account_id=")
				acct, _, _ := strings.Cut(rest, "/")
				seen[acct] = true
			}
		}
	}
	var out []string
	for a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

func tableResult(res *Result, name string) TableResult {
	for _, tr := range res.Tables {
		if tr.Name == name {
			return tr
		}
	}
	return TableResult{}
}

func TestIcebergIncrementalExportReplacesOnlyTheChangedPartitionsAndKeepsTheOldSnapshotReadable(t *testing.T) {
	pool, out := icebergSetup(t)
	ctx := context.Background()
	tables := selectTables(t, icebergTestTables...)
	first := exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
	before := map[string][][]*string{}
	oldMeta := map[string]string{}
	for _, tb := range tables {
		before[tb.Name] = exporttest.PostgresRows(t, pool, icebird(tb)[0])
		oldMeta[tb.Name] = exporttest.CurrentMetadata(t, pool, tb.Name)
	}

	// A sync changes a campaign of acct1, tombstones one of acct2 and adds
	// two; a re-pull replaces February of acct0, one of its rows gone.
	_, err := pool.Exec(ctx, `UPDATE campaigns SET name = 'renamed', last_synced_at = now() WHERE id = 'c1'`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE campaigns SET deleted = true, last_synced_at = now() WHERE id = 'c2'`)
	require.NoError(t, err)
	insertCampaigns(t, pool, 31, 32) // acct1, acct2
	_, err = pool.Exec(ctx, `DELETE FROM ad_stats WHERE account_id = 'acct0' AND bucket_date >= '2026-02-01' AND entity_id = 'c15'`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE ad_stats SET impressions = impressions + 1, fetched_at = now() WHERE account_id = 'acct0' AND bucket_date >= '2026-02-01'`)
	require.NoError(t, err)

	second := exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
	require.Zero(t, tableResult(second, "test_items").Snapshot, "an unchanged table gets no snapshot")
	require.Equal(t, oldMeta["test_items"], exporttest.CurrentMetadata(t, pool, "test_items"))
	require.Equal(t, []string{"acct1", "acct2"}, accountsOf(second, "campaigns"), "only the changed accounts are rewritten")
	stats := tableResult(second, "ad_stats")
	require.Len(t, stats.Files, 1)
	require.Contains(t, stats.Files[0].Path, "/account_id=acct0/date_month=2026-02/")
	require.Equal(t, 2, second.Iceberg.Snapshots)

	got := exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(tables...), nil, second.RunID)
	require.Len(t, got["campaigns"], 32)
	require.Len(t, got["ad_stats"], 29)

	// The previous metadata file still reads the first export's state.
	old := exporttest.ReadIceberg(t, pool, icebird(tables...), oldMeta, nil)
	for _, tb := range tables {
		var rows [][]*string
		for _, r := range old[tb.Name] {
			require.Equal(t, strconv.FormatInt(first.RunID, 10), *r[0])
			rows = append(rows, r[1:])
		}
		require.Equal(t, exporttest.SortedRows(before[tb.Name]), exporttest.SortedRows(rows), "table %s as of the first export", tb.Name)
	}
}

func TestIcebergColumnAddedByAMigrationIsASchemaUpdate(t *testing.T) {
	pool, out := icebergSetup(t)
	ctx := context.Background()
	exportIceberg(t, pool, out, Options{Tables: []string{"test_items"}})
	oldMeta := map[string]string{"test_items": exporttest.CurrentMetadata(t, pool, "test_items")}
	old := exporttest.ReadIceberg(t, pool, icebird(selectTables(t, "test_items")...), oldMeta, nil)

	_, err := pool.Exec(ctx, `ALTER TABLE test_items ADD COLUMN extra text`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE test_items SET extra = 'x' || id, updated_at = now() WHERE id <= 5`)
	require.NoError(t, err)
	grown := testItems
	grown.Columns = append(append([]Column(nil), testItems.Columns...), Column{Name: "extra", Kind: String, Nullable: true})
	registry["test_items"] = grown
	t.Cleanup(func() { registry["test_items"] = testItems })

	exportIceberg(t, pool, out, Options{Tables: []string{"test_items"}})
	got := exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(grown), nil, 0)
	require.Len(t, got["test_items"], 40)
	var meta struct {
		CurrentSchemaID int `json:"current-schema-id"`
		Schemas         []struct {
			ID     int `json:"schema-id"`
			Fields []struct {
				ID   int    `json:"id"`
				Name string `json:"name"`
			} `json:"fields"`
		} `json:"schemas"`
	}
	b, err := os.ReadFile(strings.TrimPrefix(exporttest.CurrentMetadata(t, pool, "test_items"), "file://"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &meta))
	require.Len(t, meta.Schemas, 2, "the old schema is kept beside the new one")
	cur := meta.Schemas[len(meta.Schemas)-1]
	require.Equal(t, meta.CurrentSchemaID, cur.ID)
	last := cur.Fields[len(cur.Fields)-1]
	require.Equal(t, "extra", last.Name)
	require.Greater(t, last.ID, len(testItems.Columns)+1, "a new field id")

	// The old metadata file still reads the rows it had, without the column.
	require.Equal(t, exporttest.SortedRows(old["test_items"]), exporttest.SortedRows(exporttest.ReadIceberg(t, pool, icebird(testItems), oldMeta, nil)["test_items"]))
}

// mutateForIceberg changes a campaign of acct1 and February of acct0's
// analytics.
func mutateForIceberg(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `UPDATE campaigns SET name = name || ' (renamed)', last_synced_at = now() WHERE id = 'c1'`)
	require.NoError(t, err)
	_, err = pool.Exec(context.Background(), `UPDATE ad_stats SET impressions = impressions + 1, fetched_at = now() WHERE account_id = 'acct0' AND bucket_date >= '2026-02-01'`)
	require.NoError(t, err)
}

// filesUnder lists the files under dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	}))
	sort.Strings(out)
	return out
}

func TestIcebergKilledExportLeavesTheLastSnapshotAndTheNextExportRemovesOnlyWhatItWrote(t *testing.T) {
	for _, step := range []string{"written", "manifest", "committed"} {
		t.Run(step, func(t *testing.T) {
			pool, out := icebergSetup(t)
			ctx := context.Background()
			tables := selectTables(t, icebergTestTables...)
			exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
			committed := exporttest.ReadIceberg(t, pool, icebird(tables...), nil, nil)
			foreign := filepath.Join(out, "adsync", "campaigns", "data", "account_id=acct1", "notes.txt")
			require.NoError(t, os.WriteFile(foreign, []byte("not adsync's"), 0o644))
			mutateForIceberg(t, pool)

			_, err := Run(ctx, pool, Options{Out: out, Format: FormatIceberg, Tables: icebergTestTables,
				halt: func(s string) bool { return s == step }})
			require.ErrorIs(t, err, errHalted)
			// Every table reads as one of its committed states: the first
			// export's, or (a commit the kill came after) Postgres's.
			now := exporttest.ReadIceberg(t, pool, icebird(tables...), nil, nil)
			for _, tb := range tables {
				if step == "committed" && tb.Name == "campaigns" {
					var rows [][]*string
					for _, r := range now[tb.Name] {
						rows = append(rows, r[1:])
					}
					require.Equal(t, exporttest.SortedRows(exporttest.PostgresRows(t, pool, icebird(tb)[0])), exporttest.SortedRows(rows))
					continue
				}
				require.Equal(t, exporttest.SortedRows(committed[tb.Name]), exporttest.SortedRows(now[tb.Name]), "table %s", tb.Name)
			}
			var orphans int
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM export_iceberg_files WHERE run_id = (SELECT max(run_id) FROM export_iceberg_files)`).Scan(&orphans))
			require.Positive(t, orphans)

			res := exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
			exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(tables...), nil, res.RunID)
			if step != "committed" {
				require.Positive(t, res.Iceberg.RemovedFiles, "the killed run's files are removed")
			}
			// What is left is what the journal lists (every file referenced)
			// and the file adsync did not write.
			var journal []string
			rows, err := pool.Query(ctx, `SELECT path FROM export_iceberg_files ORDER BY path`)
			require.NoError(t, err)
			for rows.Next() {
				var p string
				require.NoError(t, rows.Scan(&p))
				journal = append(journal, strings.TrimPrefix(p, "file://"))
			}
			require.NoError(t, rows.Err())
			want := append(journal, foreign)
			sort.Strings(want)
			require.Equal(t, want, filesUnder(t, filepath.Join(out, "adsync")))
		})
	}
}

func TestIcebergTwoExportsAtOnceLeaveEveryTableWhole(t *testing.T) {
	pool, out := icebergSetup(t)
	tables := selectTables(t, icebergTestTables...)
	exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
	mutateForIceberg(t, pool)
	errs := make(chan error, 2)
	results := make(chan *Result, 2)
	for range 2 {
		go func() {
			res, err := Run(context.Background(), pool, Options{Out: out, Format: FormatIceberg, Tables: icebergTestTables})
			errs <- err
			results <- res
		}()
	}
	var last *Result
	for range 2 {
		if err := <-errs; err != nil {
			require.ErrorIs(t, err, ErrExportRunning)
		}
		if res := <-results; res != nil {
			last = res
		}
	}
	require.NotNil(t, last, "one export succeeds")
	exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(tables...), nil, last.RunID)
}

func TestIcebergExpiryRemovesOnlyUnreferencedFilesAdsyncWrote(t *testing.T) {
	pool, out := icebergSetup(t)
	tables := selectTables(t, icebergTestTables...)
	exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
	oldFiles := filesUnder(t, filepath.Join(out, "adsync", "campaigns", "data"))
	foreign := filepath.Join(out, "adsync", "campaigns", "data", "README")
	require.NoError(t, os.WriteFile(foreign, []byte("not adsync's"), 0o644))
	mutateForIceberg(t, pool)
	second := exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
	require.Zero(t, second.Iceberg.ExpiredSnapshots, "the default retention keeps a fresh snapshot")
	for _, f := range oldFiles {
		require.FileExists(t, f, "the first snapshot still references it")
	}

	mutateForIceberg(t, pool)
	third := exportIceberg(t, pool, out, Options{Tables: icebergTestTables, SnapshotRetention: time.Nanosecond})
	require.Equal(t, 4, third.Iceberg.ExpiredSnapshots, "two tables kept only their current snapshot")
	require.Positive(t, third.Iceberg.RemovedFiles)
	require.NoFileExists(t, oldFiles[1], "acct1's first file: replaced twice, its snapshots expired")
	require.FileExists(t, oldFiles[0], "acct0's file: still current")
	require.FileExists(t, foreign)
	exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(tables...), nil, third.RunID)
}

func TestIcebergOnS3IcebirdReadsEveryChangeAndObjectsAdsyncDidNotWriteStay(t *testing.T) {
	pool, _ := icebergSetup(t)
	srv := s3test.Start(t)
	srv.Setenv(t)
	out := srv.URL(srv.Bucket, "p")
	read := &exporttest.S3Read{Endpoint: srv.Endpoint, Region: srv.Region, Key: srv.AccessKey, Secret: srv.SecretKey}
	tables := selectTables(t, icebergTestTables...)

	first := exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
	exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(tables...), read, first.RunID)
	require.True(t, strings.HasPrefix(exporttest.CurrentMetadata(t, pool, "campaigns"), "s3://"+srv.Bucket+"/p/adsync/campaigns/metadata/"))
	srv.Put(t, srv.Bucket, "p/adsync/campaigns/data/account_id=acct1/theirs.parquet", []byte("not adsync's"))

	mutateForIceberg(t, pool)
	exportIceberg(t, pool, out, Options{Tables: icebergTestTables})
	mutateForIceberg(t, pool)
	last := exportIceberg(t, pool, out, Options{Tables: icebergTestTables, SnapshotRetention: time.Nanosecond})
	require.Positive(t, last.Iceberg.RemovedFiles)
	exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(tables...), read, last.RunID)
	keys := s3Keys(t, srv, srv.Bucket, "p/adsync/campaigns/data")
	require.Contains(t, keys, "account_id=acct1/theirs.parquet")
}

// currentDataFiles counts the data files of a table's current snapshot by
// partition folder (account_id=.../date_month=...).
func currentDataFiles(t *testing.T, pool *pgxpool.Pool, name string) map[string]int {
	t.Helper()
	ctx := context.Background()
	fsF := func(context.Context) (icebergio.IO, error) { return icebergio.LocalFS{}, nil }
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"adsync", name}, exporttest.CurrentMetadata(t, pool, name), fsF, nil)
	require.NoError(t, err)
	tasks, err := tbl.Scan().PlanFiles(ctx)
	require.NoError(t, err)
	out := map[string]int{}
	for _, task := range tasks {
		_, rel, ok := strings.Cut(task.File.FilePath(), "/data/")
		require.True(t, ok, task.File.FilePath())
		out[path.Dir(rel)]++
	}
	return out
}

// An incremental export rewrites each touched partition whole, so small
// files do not pile up in a partition however often it is touched: that is
// why the Iceberg export has no compaction (docs/iceberg.md). The files a
// rewrite replaced stay, for the earlier snapshots, until expiry.
func TestIcebergIncrementalExportsTouchingOnePartitionKeepItOneDataFile(t *testing.T) {
	pool, out := icebergSetup(t)
	ctx := context.Background()
	names := []string{"campaigns", "ad_stats"}
	exportIceberg(t, pool, out, Options{Tables: names})
	onePerPartition := map[string]int{"account_id=acct0": 1, "account_id=acct1": 1, "account_id=acct2": 1}
	require.Equal(t, onePerPartition, currentDataFiles(t, pool, "campaigns"))
	require.Len(t, currentDataFiles(t, pool, "ad_stats"), 6)

	const exports = 4
	for i := range exports {
		// A sync changes a campaign of acct1 and adds one to it; a
		// re-pull replaces February of acct0's analytics.
		_, err := pool.Exec(ctx, `UPDATE campaigns SET name = name || '.', last_synced_at = now() WHERE id = $1`, fmt.Sprintf("c%d", 3*i+1))
		require.NoError(t, err)
		insertCampaigns(t, pool, 31+3*i, 31+3*i)
		mutateForIceberg(t, pool)
		res := exportIceberg(t, pool, out, Options{Tables: names})
		require.Equal(t, []string{"acct1"}, accountsOf(res, "campaigns"))
		require.Equal(t, onePerPartition, currentDataFiles(t, pool, "campaigns"), "export %d", i+2)
		stats := currentDataFiles(t, pool, "ad_stats")
		require.Len(t, stats, 6)
		for part, n := range stats {
			require.Equal(t, 1, n, "ad_stats partition %s after export %d", part, i+2)
		}
	}
	acct1 := filepath.Join(out, "adsync", "campaigns", "data", "account_id=acct1")
	require.Len(t, filesUnder(t, acct1), 1+exports, "the replaced files stay for the earlier snapshots")

	mutateForIceberg(t, pool) // acct1 and February of acct0 once more
	last := exportIceberg(t, pool, out, Options{Tables: names, SnapshotRetention: time.Nanosecond})
	require.Positive(t, last.Iceberg.RemovedFiles)
	require.Len(t, filesUnder(t, acct1), 1, "expiry removed the replaced files")
	require.Equal(t, onePerPartition, currentDataFiles(t, pool, "campaigns"))
	exporttest.RequireIcebergEqualsPostgres(t, pool, icebird(selectTables(t, names...)...), nil, last.RunID)
}

// exporttest's Iceberg reader tells the kinds apart by their names: each
// kind has its own.
func TestEveryKindHasItsOwnName(t *testing.T) {
	seen := map[string]Kind{}
	for k := String; k <= Micros; k++ {
		name := k.String()
		require.Regexp(t, `^[a-z0-9_]+$`, name, "kind %d", int(k))
		_, dup := seen[name]
		require.False(t, dup, "kind %d and %d are both %s", int(seen[name]), int(k), name)
		seen[name] = k
	}
	require.Equal(t, "kind(99)", Kind(99).String())
}
