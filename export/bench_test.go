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
	"github.com/adsync/adsync/fixtures/measure"
	"github.com/adsync/adsync/fixtures/s3test"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// benchCampaigns is a database holding rows campaign rows like the sync's
// (realistic raw records), the same in every run (no now()), so two runs'
// files can be compared byte for byte.
func benchCampaigns(b *testing.B, rows int) (*pgxpool.Pool, string) {
	ctx := context.Background()
	url := localpg.NewDatabase(b)
	pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: 4})
	require.NoError(b, err)
	b.Cleanup(pool.Close)
	_, err = migrations.Migrate(ctx, pool, nil)
	require.NoError(b, err)
	_, err = pool.Exec(ctx, `INSERT INTO campaigns (account_id, id, name, funding_instrument_id, budget_optimization,
			daily_budget_amount_local_micro, total_budget_amount_local_micro, entity_status, effective_status, servable,
			reasons_not_servable, standard_delivery, purchase_order_number, currency, raw, api_created_at, api_updated_at, deleted, doc_hash,
			first_seen_at, last_synced_at)
		SELECT 'acct' || (g % 100), 'c' || g, 'Campaign ' || g, 'fi' || (g % 300), 'CAMPAIGN', g::bigint * 1000, g::bigint * 50000,
			CASE WHEN g % 3 = 0 THEN 'PAUSED' ELSE 'ACTIVE' END, 'RUNNING', g % 2 = 0, ARRAY['PAUSED_BY_ADVERTISER'], true,
			'PO-' || g, 'USD',
			jsonb_build_object('id', 'c' || g, 'name', 'Campaign ' || g, 'entity_status', 'ACTIVE', 'currency', 'USD',
				'daily_budget_amount_local_micro', g::bigint * 1000, 'total_budget_amount_local_micro', g::bigint * 50000,
				'reasons_not_servable', jsonb_build_array('PAUSED_BY_ADVERTISER'), 'created_at', '2026-01-01T00:00:00Z', 'deleted', false),
			timestamptz '2026-01-01' + g * interval '1 second', timestamptz '2026-02-01' + g * interval '1 second', false, md5(g::text),
			timestamptz '2026-03-01', timestamptz '2026-03-01'
		FROM generate_series(1, $1::int) g`, rows)
	require.NoError(b, err)
	_, err = pool.Exec(ctx, `VACUUM ANALYZE campaigns`)
	require.NoError(b, err)
	return pool, url
}

// BenchmarkExportCampaigns exports 1,000,000 campaign rows (the sync's
// table) and, in the same run, the limit of the same work done by DuckDB:
// the rows copied out of Postgres as CSV and DuckDB converting that CSV to
// zstd Parquet, both timed. Each reports rows/s, wall and CPU seconds.
func BenchmarkExportCampaigns(b *testing.B) {
	rows := benchRows()
	ctx := context.Background()
	pool, _ := benchCampaigns(b, rows)
	cpu := measure.NewCPU(b, pool)
	dir := b.TempDir()
	report := func(b *testing.B, wall, used time.Duration) {
		b.ReportMetric(float64(rows)/wall.Seconds(), "rows/s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(used.Seconds(), "cpu-s")
	}

	// One untimed export first, so that no variant pays for a cold cache
	// (the table's first read, the heap's growth) and the order of the
	// variants does not favour the later ones.
	warm, err := Run(ctx, pool, Options{Out: filepath.Join(dir, "warm-up"), Tables: []string{"campaigns"}, Full: true})
	require.NoError(b, err)

	b.Run("adsync", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out := filepath.Join(dir, "adsync")
			c0, start := cpu.Now(), time.Now()
			res, err := Run(ctx, pool, Options{Out: out, Tables: []string{"campaigns"}, Full: true})
			require.NoError(b, err)
			report(b, time.Since(start), cpu.Now()-c0)
			require.EqualValues(b, rows, res.Tables[0].Rows)
		}
	})
	// adsync's conversion with the dump excluded, as duckdb_csv_to_parquet
	// excludes it: the export's query (the same SQL, the same binary wire
	// values) read into memory first, untimed; then timed, the export's
	// writing side on those rows: decoding each row's wire values, encoding,
	// compressing and writing the files into a folder's staging area, each
	// synced, as a run does before it publishes. The files are the warm-up
	// export's, byte for byte (the same run id): checked after each.
	b.Run("adsync_encode", func(b *testing.B) {
		t, err := Select([]string{"campaigns"})
		require.NoError(b, err)
		dumped := dumpRows(b, pool, t[0], warm.Tables[0].High)
		require.EqualValues(b, rows, dumped.rows)
		for i := 0; i < b.N; i++ {
			out, err := claimFolder(ctx, pool, filepath.Join(dir, fmt.Sprintf("encode-%d", i)))
			require.NoError(b, err)
			dumped.rewind()
			c0, start := cpu.Now(), time.Now()
			pw := newPartWriter(ctx, out, t[0], warm.RunID, warm.Partition, Options{}.withDefaults())
			n, err := pipeRows(dumped, newRowBuilder(t[0], warm.RunID, dumped.types), pw, func(int64) error { return nil })
			require.NoError(b, err)
			require.NoError(b, pw.closeFile())
			report(b, time.Since(start), cpu.Now()-c0)
			require.EqualValues(b, rows, n)
			var got []FileInfo
			for _, p := range pw.written {
				got = append(got, p.info)
			}
			require.Equal(b, warm.Tables[0].Files, got, "the same files as the export's")
			pw.abort()
		}
	})
	// The same export to a prefix of a local S3 server (versitygw, its POSIX
	// backend on this machine's disk): the figure beside the folder's. CPU
	// counts the server's too.
	b.Run("adsync_s3", func(b *testing.B) {
		srv := s3test.Start(b)
		srv.Setenv(b)
		for i := 0; i < b.N; i++ {
			c0, s0, start := cpu.Now(), srv.CPU(), time.Now()
			res, err := Run(ctx, pool, Options{Out: srv.URL(srv.Bucket, fmt.Sprintf("bench-%d", i)), Tables: []string{"campaigns"}, Full: true})
			require.NoError(b, err)
			report(b, time.Since(start), cpu.Now()-c0+srv.CPU()-s0)
			require.EqualValues(b, rows, res.Tables[0].Rows)
		}
	})
	// The same rows as an Iceberg table, then its incremental exports.
	b.Run("iceberg", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			benchIceberg(b, pool, cpu, filepath.Join(dir, "warm-up"), filepath.Join(dir, fmt.Sprintf("iceberg-%d", i)), i, rows)
		}
	})
	csv := filepath.Join(dir, "campaigns.csv")
	copyOut := func() {
		f, err := os.Create(csv)
		require.NoError(b, err)
		conn, err := pool.Acquire(ctx)
		require.NoError(b, err)
		_, err = conn.Conn().PgConn().CopyTo(ctx, f, `COPY campaigns TO STDOUT WITH (FORMAT csv, HEADER)`)
		conn.Release()
		require.NoError(b, err)
		require.NoError(b, f.Close())
	}
	// convert is DuckDB's wall and CPU time (every thread of its process)
	// converting the CSV, without starting Node.
	convert := func(b *testing.B) (time.Duration, time.Duration) {
		pq := filepath.Join(dir, "duck.parquet")
		d := exporttest.Duck(b, nil, map[string]string{
			"convert": "COPY (SELECT * FROM read_csv('" + csv + "')) TO '" + pq + "' (FORMAT parquet, COMPRESSION zstd)",
		})
		return time.Duration(d.Millis["convert"] * float64(time.Millisecond)), time.Duration(d.CPUMillis["convert"] * float64(time.Millisecond))
	}
	b.Run("duckdb_end_to_end", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c0, start := cpu.Now(), time.Now()
			copyOut()
			copied := time.Since(start)
			converted, _ := convert(b) // DuckDB's own time, without starting Node
			report(b, copied+converted, cpu.Now()-c0)
		}
	})
	b.Run("duckdb_csv_to_parquet", func(b *testing.B) {
		if _, err := os.Stat(csv); err != nil {
			copyOut() // run on its own: the dump, untimed
		}
		for i := 0; i < b.N; i++ {
			wall, used := convert(b)
			report(b, wall, used)
		}
	})
}

// benchIceberg exports the campaigns as an Iceberg table into out (a
// namespace of its own, iteration i's), timed, then changes 1% of them
// twice and times each incremental Iceberg export beside the Parquet
// export's incremental of the same changes (into parquetOut, whose last
// export was before the changes): first 1% spread over every account (a
// sync's changes: every account's partition is touched), then 1% in one
// account of the hundred (one partition). Metrics: the full export's
// rows/s, wall-s and cpu-s; for each change ("spread", "one"), the
// Iceberg incremental's wall and CPU seconds, its rows rewritten, the
// Parquet incremental's wall and CPU seconds, and the rows changed.
func benchIceberg(b *testing.B, pool *pgxpool.Pool, cpu measure.CPU, parquetOut, out string, i, rows int) {
	ctx := context.Background()
	opts := Options{Out: out, Format: FormatIceberg, Namespace: fmt.Sprintf("bench%d", i), Tables: []string{"campaigns"}}
	timed := func(opts Options) (*Result, time.Duration, time.Duration) {
		c0, start := cpu.Now(), time.Now()
		res, err := Run(ctx, pool, opts)
		require.NoError(b, err)
		return res, time.Since(start), cpu.Now() - c0
	}
	full, wall, used := timed(Options{Out: opts.Out, Format: opts.Format, Namespace: opts.Namespace, Tables: opts.Tables, Full: true})
	require.EqualValues(b, rows, full.Tables[0].Rows)
	b.ReportMetric(float64(rows)/wall.Seconds(), "rows/s")
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(used.Seconds(), "cpu-s")
	changes := []struct{ name, where string }{
		// Campaign g is in account g % 100: blocks of 100 consecutive
		// campaigns hold one of every account.
		{"spread", fmt.Sprintf("(substr(id, 2)::int / 100) %% 100 = %d", i%100)},
		{"one", fmt.Sprintf("account_id = 'acct%d'", i%100)},
	}
	for _, c := range changes {
		tag, err := pool.Exec(ctx, `UPDATE campaigns SET name = name || '.', last_synced_at = now() WHERE `+c.where)
		require.NoError(b, err)
		pq, pqWall, pqUsed := timed(Options{Out: parquetOut, Tables: opts.Tables})
		require.EqualValues(b, tag.RowsAffected(), pq.Tables[0].Rows, "the Parquet incremental writes the changed rows")
		inc, incWall, incUsed := timed(opts)
		require.NotZero(b, inc.Tables[0].Snapshot, "the incremental commits a snapshot")
		b.ReportMetric(float64(tag.RowsAffected()), c.name+"-changed")
		b.ReportMetric(float64(inc.Tables[0].Rows), c.name+"-rows")
		b.ReportMetric(incWall.Seconds(), c.name+"-wall-s")
		b.ReportMetric(incUsed.Seconds(), c.name+"-cpu-s")
		b.ReportMetric(pqWall.Seconds(), c.name+"-parquet-wall-s")
		b.ReportMetric(pqUsed.Seconds(), c.name+"-parquet-cpu-s")
	}
}

// memRows is a query's result held in memory: each row's values as
// Postgres sent them, replayed as pipeRows reads a live query.
type memRows struct {
	fields []pgconn.FieldDescription
	types  *pgtype.Map
	rows   int
	lens   []int32 // every value's length, row by row; -1 for null
	data   []byte  // every value's bytes, in the same order

	row, val, off int
	vals          [][]byte
}

// dumpRows reads t's rows changed before high (all of them) with the
// export's own query.
func dumpRows(b *testing.B, pool *pgxpool.Pool, t Table, high time.Time) *memRows {
	ctx := context.Background()
	m := &memRows{}
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '64MB'"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, t.query(), high, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		m.fields = append(m.fields, rows.FieldDescriptions()...)
		m.types = typeMap(rows)
		for rows.Next() {
			for _, v := range rows.RawValues() {
				if v == nil {
					m.lens = append(m.lens, -1)
					continue
				}
				m.lens = append(m.lens, int32(len(v)))
				m.data = append(m.data, v...)
			}
			m.rows++
		}
		return rows.Err()
	})
	require.NoError(b, err)
	m.vals = make([][]byte, len(m.fields))
	return m
}

func (m *memRows) rewind() { m.row, m.val, m.off = 0, 0, 0 }

func (m *memRows) FieldDescriptions() []pgconn.FieldDescription { return m.fields }
func (m *memRows) RawValues() [][]byte                          { return m.vals }
func (m *memRows) Err() error                                   { return nil }

func (m *memRows) Next() bool {
	if m.row == m.rows {
		return false
	}
	for i := range m.vals {
		l := m.lens[m.val]
		m.val++
		if l < 0 {
			m.vals[i] = nil
			continue
		}
		m.vals[i] = m.data[m.off : m.off+int(l) : m.off+int(l)]
		m.off += int(l)
	}
	m.row++
	return true
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

// rssChildEnv makes the test binary export one table and print its peak
// resident memory.
const rssChildEnv = "ADSYNC_EXPORT_RSS_CHILD"

// BenchmarkExportPeakRSS exports ADSYNC_BENCH_ROWS campaigns (default
// 1,000,000) in a child process and reports its peak resident memory
// (VmHWM): the export streams, so it must not grow with the table.
func BenchmarkExportPeakRSS(b *testing.B) {
	rows := benchRows()
	_, url := benchCampaigns(b, rows)
	b.Run("folder", func(b *testing.B) {
		var peakMB float64
		for b.Loop() {
			peakMB = measure.ChildPeakRSS(b, rssChildEnv+"=1", "ADSYNC_RSS_DB="+url, "ADSYNC_RSS_OUT="+filepath.Join(b.TempDir(), "out"))
		}
		b.ReportMetric(peakMB, "peak-RSS-MB")
		b.ReportMetric(float64(rows), "rows")
	})
	// To an S3 prefix: parts are streamed, so this must not grow either.
	b.Run("s3", func(b *testing.B) {
		srv := s3test.Start(b)
		env := append([]string{rssChildEnv + "=1", "ADSYNC_RSS_DB=" + url}, srv.Env()...)
		var peakMB float64
		i := 0
		for b.Loop() {
			i++
			peakMB = measure.ChildPeakRSSEnv(b, append(env, "ADSYNC_RSS_OUT="+srv.URL(srv.Bucket, fmt.Sprintf("rss-%d", i))))
		}
		b.ReportMetric(peakMB, "peak-RSS-MB")
		b.ReportMetric(float64(rows), "rows")
	})
}

// rssChild exports the campaigns of ADSYNC_RSS_DB and prints VmHWM.
func rssChild() int {
	ctx := context.Background()
	pool, err := store.Connect(ctx, os.Getenv("ADSYNC_RSS_DB"), store.ConnectOptions{MaxConns: 4})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer pool.Close()
	res, err := Run(ctx, pool, Options{Out: os.Getenv("ADSYNC_RSS_OUT"), Tables: []string{"campaigns"}, Full: true})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("exported %d rows\n", res.Tables[0].Rows)
	if err := measure.PrintPeakRSS(); err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}
