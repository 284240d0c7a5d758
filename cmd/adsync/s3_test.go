package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures/s3test"
	"github.com/stretchr/testify/require"
)

// TestExportToABucketKilledMidwayLeavesNothingVisibleAndTheRerunIsExact
// SIGKILLs `adsync export --out s3://...` while its multipart uploads are in
// flight, checks with boto3 that a reader listing the prefix sees no Parquet
// object, reruns it, and reads what boto3 downloads with DuckDB.
func TestExportToABucketKilledMidwayLeavesNothingVisibleAndTheRerunIsExact(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	aws := srv.Env() // the child processes' environment, with the server's AWS settings
	e := newEnv(t, nil, "")
	ctx := context.Background()
	// About two 8 MiB parts of Parquet: 100,000 rows whose raw records
	// carry 256 hexadecimal digits, six hashes no other row repeats (the
	// fewer the rows, the less the export costs; a third as many rows as
	// before, each three times as wide).
	const rows = 100_000
	_, err := e.pool.Exec(ctx, `INSERT INTO campaigns (account_id, id, name, funding_instrument_id, budget_optimization,
			daily_budget_amount_local_micro, entity_status, effective_status, servable, standard_delivery, currency, raw,
			api_created_at, api_updated_at, deleted, doc_hash)
		SELECT 'acct' || (g % 50), 'c' || g, 'Campaign ' || g || ' ' || md5(g::text), 'fi' || (g % 300), 'CAMPAIGN', g::bigint * 1000,
			CASE WHEN g % 3 = 0 THEN 'PAUSED' ELSE 'ACTIVE' END, 'RUNNING', g % 2 = 0, true, 'USD',
			jsonb_build_object('id', 'c' || g, 'name', 'Campaign ' || g, 'note', md5(g::text) || md5((g + 1)::text) ||
				md5(g || 'a') || md5(g || 'b') || md5(g || 'c') || md5(g || 'd') || md5(g || 'e') || md5(g || 'f')),
			timestamptz '2026-01-01' + g * interval '1 second', timestamptz '2026-02-01' + g * interval '1 second', false, md5(g::text)
		FROM generate_series(1, $1::int) g`, rows)
	require.NoError(t, err)
	out := srv.URL(srv.Bucket, "warehouse/adsync")
	args := []string{"export", "--out", out, "--tables", "campaigns"}

	p := e.startIn(t, aws, args...)
	waitFor(t, patience, "the export's first multipart upload", func() bool {
		var n int
		_ = e.pool.QueryRow(ctx, `SELECT count(*) FROM export_uploads WHERE upload_id IS NOT NULL`).Scan(&n)
		return n > 0
	})
	time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
	p.kill()
	var unpublished int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM export_uploads WHERE bytes IS NULL`).Scan(&unpublished))
	t.Logf("killed with %d of the run's uploads not yet published", unpublished)
	if unpublished > 0 { // killed before publishing (nearly always): nothing may be visible
		for _, o := range srv.List(t, srv.Bucket, "warehouse/") {
			require.False(t, strings.HasSuffix(o.Key, ".parquet"), "the killed run's %s is visible", o.Key)
		}
		require.NotEmpty(t, srv.Uploads(t, srv.Bucket, "warehouse/"), "its uploads wait for the next run")
	}

	code, output := e.runIn(t, aws, args...)
	require.Equal(t, 0, code, output)
	require.Contains(t, output, "manifest s3://"+srv.Bucket+"/warehouse/adsync/_manifests/run-")
	require.Empty(t, srv.Uploads(t, srv.Bucket, "warehouse/"), "the rerun aborted the killed run's uploads")

	dir := t.TempDir()
	srv.Download(t, srv.Bucket, "warehouse/adsync/", dir)
	manifests, err := filepath.Glob(filepath.Join(dir, "_manifests", "*.json"))
	require.NoError(t, err)
	require.Len(t, manifests, 1, "one committed run")
	m, err := export.ReadManifest(manifests[0])
	require.NoError(t, err)
	listed := map[string]bool{}
	var bytes int64
	for _, f := range m.Tables[0].Files {
		listed[f.Path] = true
		bytes += f.Bytes
	}
	t.Logf("%d bytes of Parquet", bytes)
	require.Greater(t, bytes, int64(12<<20), "the export spans two 8 MiB parts: the kill met a multipart upload under way")
	var files []string
	for _, o := range srv.List(t, srv.Bucket, "warehouse/adsync/") {
		rel := strings.TrimPrefix(o.Key, "warehouse/adsync/")
		if strings.HasSuffix(rel, ".parquet") {
			require.True(t, listed[rel], "%s is not in the manifest", rel)
			files = append(files, filepath.Join(dir, filepath.FromSlash(rel)))
		}
	}
	require.Len(t, files, len(listed))
	d := exporttest.Duck(t, files, map[string]string{
		"n": "SELECT count(*) AS n, count(DISTINCT id) AS ids FROM read_parquet('" + filepath.Join(dir, "campaigns") + "/*/*.parquet')",
	})
	require.Equal(t, strconv.Itoa(rows), fmt.Sprint(d.Queries["n"][0]["n"]), "every row once")
	require.Equal(t, strconv.Itoa(rows), fmt.Sprint(d.Queries["n"][0]["ids"]))
}
