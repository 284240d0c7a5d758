package export

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/stretchr/testify/require"
)

// BenchmarkExportCampaigns exports 1,000,000 campaign rows (the sync's
// table, realistic raw records) and reports rows/s beside DuckDB converting
// the same rows from CSV to zstd Parquet in the same run.
func BenchmarkExportCampaigns(b *testing.B) {
	rows := benchRows()
	ctx := context.Background()
	url := localpg.NewDatabase(b)
	pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: 4})
	require.NoError(b, err)
	defer pool.Close()
	_, err = migrations.Migrate(ctx, pool, nil)
	require.NoError(b, err)
	_, err = pool.Exec(ctx, `INSERT INTO campaigns (account_id, id, name, funding_instrument_id, budget_optimization,
			daily_budget_amount_local_micro, total_budget_amount_local_micro, entity_status, effective_status, servable,
			reasons_not_servable, standard_delivery, purchase_order_number, currency, raw, api_created_at, api_updated_at, deleted, doc_hash)
		SELECT 'acct' || (g % 100), 'c' || g, 'Campaign ' || g, 'fi' || (g % 300), 'CAMPAIGN', g::bigint * 1000, g::bigint * 50000,
			CASE WHEN g % 3 = 0 THEN 'PAUSED' ELSE 'ACTIVE' END, 'RUNNING', g % 2 = 0, ARRAY['PAUSED_BY_ADVERTISER'], true,
			'PO-' || g, 'USD',
			jsonb_build_object('id', 'c' || g, 'name', 'Campaign ' || g, 'entity_status', 'ACTIVE', 'currency', 'USD',
				'daily_budget_amount_local_micro', g::bigint * 1000, 'total_budget_amount_local_micro', g::bigint * 50000,
				'reasons_not_servable', jsonb_build_array('PAUSED_BY_ADVERTISER'), 'created_at', '2026-01-01T00:00:00Z', 'deleted', false),
			timestamptz '2026-01-01' + g * interval '1 second', timestamptz '2026-02-01' + g * interval '1 second', false, md5(g::text)
		FROM generate_series(1, $1::int) g`, rows)
	require.NoError(b, err)
	dir := b.TempDir()

	b.Run("adsync", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out := filepath.Join(dir, "adsync")
			start := time.Now()
			res, err := Run(ctx, pool, Options{Out: out, Tables: []string{"campaigns"}, Full: true})
			require.NoError(b, err)
			require.EqualValues(b, rows, res.Tables[0].Rows)
			b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
		}
	})
	b.Run("duckdb_csv_to_parquet", func(b *testing.B) {
		csv := filepath.Join(dir, "campaigns.csv")
		f, err := os.Create(csv)
		require.NoError(b, err)
		conn, err := pool.Acquire(ctx)
		require.NoError(b, err)
		_, err = conn.Conn().PgConn().CopyTo(ctx, f, `COPY campaigns TO STDOUT WITH (FORMAT csv, HEADER)`)
		conn.Release()
		require.NoError(b, err)
		require.NoError(b, f.Close())
		for i := 0; i < b.N; i++ {
			pq := filepath.Join(dir, "duck.parquet")
			d := exporttest.Duck(b, nil, map[string]string{
				"convert": "COPY (SELECT * FROM read_csv('" + csv + "')) TO '" + pq + "' (FORMAT parquet, COMPRESSION zstd)",
			})
			b.ReportMetric(float64(rows)/(d.Millis["convert"]/1000), "rows/s")
		}
	})
}

// benchRows is 1,000,000, or ADSYNC_BENCH_ROWS for a quicker look.
func benchRows() int {
	if v := os.Getenv("ADSYNC_BENCH_ROWS"); v != "" {
		var n int
		if _, err := fmt.Sscan(v, &n); err == nil && n > 0 {
			return n
		}
	}
	return 1_000_000
}
