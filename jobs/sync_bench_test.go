package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/measure"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
)

// syncQueueWorkers is the sync queue's concurrency in the benchmarks
// (jobstest.StartWorker's default); the fetch+COPY baseline pages with as
// many goroutines.
const syncQueueWorkers = 4

// runSync runs one sync run through River and waits for its outcome.
func runSync(b *testing.B, deps *jobs.Deps, c *river.Client[pgx.Tx], args jobs.SyncRunArgs) int64 {
	b.Helper()
	ctx := context.Background()
	id, err := jobs.CreateSyncRun(ctx, deps, args)
	require.NoError(b, err)
	args.RunID = id
	_, err = c.Insert(ctx, args, nil)
	require.NoError(b, err)
	for {
		var outcome string
		require.NoError(b, deps.Pool.QueryRow(ctx, `SELECT outcome FROM sync_runs WHERE id = $1`, id).Scan(&outcome))
		if outcome != "running" {
			require.Equal(b, "succeeded", outcome)
			return id
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cpuSpan is the CPU used between two readings of a meter: all of it
// (this process, which also serves the fake, its children and Postgres) and
// Postgres's part.
type cpuSpan struct {
	m           measure.CPU
	all, server time.Duration
}

func startCPU(m measure.CPU) cpuSpan { return cpuSpan{m: m, all: m.Now(), server: m.Server()} }

// benchProfileEnv names a directory: each BenchmarkSync phase then writes
// its client CPU profile there (NAME.cpu.pprof) and, when Postgres has
// pg_stat_statements loaded, the statements it ran by total time
// (NAME.sql.txt): a profile of one phase, not of the whole benchmark.
const benchProfileEnv = "ADSYNC_BENCH_PROFILE"

// benchPerfEnv, set to 1 beside benchProfileEnv, also records each phase
// with Linux perf, the whole machine sampled on the cpu-clock software event
// (NAME.perf.data; read it with perf report --sort comm,dso,sym): Postgres's
// backends, which the Go profile cannot see, by function. It needs perf and
// the rights to sample every process (root, or perf_event_paranoid below 1).
const benchPerfEnv = "ADSYNC_BENCH_PERF"

// profilePhase starts the phase's profiles when benchProfileEnv is set; the
// returned func writes them.
func profilePhase(b *testing.B, pool *pgxpool.Pool, name string) func() {
	dir := os.Getenv(benchProfileEnv)
	if dir == "" {
		return func() {}
	}
	ctx := context.Background()
	_, sqlErr := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()`)
	stopPerf := startPerf(b, filepath.Join(dir, name+".perf.data"))
	f, err := os.Create(filepath.Join(dir, name+".cpu.pprof"))
	require.NoError(b, err)
	require.NoError(b, pprof.StartCPUProfile(f))
	return func() {
		pprof.StopCPUProfile()
		stopPerf()
		require.NoError(b, f.Close())
		if sqlErr != nil {
			return
		}
		// Planning is counted when pg_stat_statements.track_planning is on.
		rows, err := pool.Query(ctx, `SELECT calls, plans, round(total_plan_time)::bigint, round(total_exec_time)::bigint, rows,
left(regexp_replace(query, '\s+', ' ', 'g'), 300)
FROM pg_stat_statements ORDER BY total_plan_time + total_exec_time DESC LIMIT 40`)
		require.NoError(b, err)
		var out strings.Builder
		fmt.Fprintf(&out, "%8s %8s %8s %8s %9s  %s\n", "calls", "plans", "plan ms", "ms", "rows", "query")
		var calls, plans, planMS, ms, n int64
		var q string
		_, err = pgx.ForEachRow(rows, []any{&calls, &plans, &planMS, &ms, &n, &q}, func() error {
			fmt.Fprintf(&out, "%8d %8d %8d %8d %9d  %s\n", calls, plans, planMS, ms, n, q)
			return nil
		})
		require.NoError(b, err)
		require.NoError(b, os.WriteFile(filepath.Join(dir, name+".sql.txt"), []byte(out.String()), 0o644))
	}
}

// startPerf records the machine with perf into out when benchPerfEnv is 1;
// the returned func stops the recording and waits for perf to write it.
func startPerf(b *testing.B, out string) func() {
	if os.Getenv(benchPerfEnv) != "1" {
		return func() {}
	}
	cmd := exec.Command("perf", "record", "-e", "cpu-clock", "-F", "1999", "-a", "-g", "-q", "-o", out)
	cmd.Stderr = os.Stderr
	require.NoError(b, cmd.Start(), "starting perf")
	time.Sleep(300 * time.Millisecond) // perf opens its events before the phase starts
	return func() {
		require.NoError(b, cmd.Process.Signal(os.Interrupt))
		// perf writes its file on the interrupt, then ends by it.
		if err := cmd.Wait(); err != nil {
			var exit *exec.ExitError
			require.True(b, errors.As(err, &exit) && !exit.Exited(), "perf record: %v", err)
		}
	}
}

// settle ends a phase that wrote rows: VACUUM, timed with the phase, does
// now the maintenance its writes cause (autovacuum would do it within the
// next minutes, and charge it to whichever phase then runs). Every phase
// that writes settles, baselines too. Without parallel workers, as
// autovacuum does it: a manual VACUUM starts one for the index cleanup of
// each table with two indexes past min_parallel_index_scan_size, changed
// or not (about 90 ms for each such table, for a cleanup that reads
// nothing). Not ANALYZE: it samples every table again, changed or not,
// which autovacuum does not.
func settle(b *testing.B, pool *pgxpool.Pool) {
	_, err := pool.Exec(context.Background(), `VACUUM (PARALLEL 0)`)
	require.NoError(b, err)
}

// report reports wall and CPU seconds, and Postgres's CPU seconds.
func (s cpuSpan) report(b *testing.B, wall time.Duration) {
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric((s.m.Now() - s.all).Seconds(), "cpu-s")
	b.ReportMetric((s.m.Server() - s.server).Seconds(), "pg-cpu-s")
}

// BenchmarkSync syncs 100 accounts of 1,000 campaigns and 200 cards each
// from the fake (rate limits off), served by a child process so that the
// CPU measured is the client's and Postgres's, never the service's, through
// River:
//   - sync: a fresh load (tables emptied first; the fake warmed by an
//     untimed run before);
//   - resync_unchanged: a second full run over the same, unchanged data (a
//     full run: an incremental one would stop after the first page of each
//     unit, sorted by updated_at, and measure little);
//   - fetch_copy, the limit of the same work: the same pages fetched by the
//     same client from the already-warm fake, with as many goroutines as
//     the sync queue has workers, each page COPYed into a bare table;
//   - fetch_only: the same pages fetched and split into records, nothing
//     stored (the floor of the unchanged re-sync);
//   - raw_copy (context): the stored rows COPYed from memory into a bare
//     table;
//   - shaped_copy: the stored rows, every column, COPYed from memory into
//     tables of the entities' shape (columns, keys, indexes): Postgres's
//     part of storing them, which no sync can do without;
//   - shaped_paged: the same rows into tables of the same shape one COPY
//     per listed page, from as many goroutines as the sync queue has
//     workers: storing them as a sync that commits page by page does;
//   - the history's cost (see benchHistory): sync_no_history,
//     resync_1pct and resync_1pct_no_history.
//
// Each reports records/s, wall and CPU seconds. Each phase that writes
// ends with settle (VACUUM), timed: the maintenance its writes cause counts
// in that phase, not in the one after it.
func BenchmarkSync(b *testing.B) {
	entities := []string{"campaigns", "cards"}
	ctx := context.Background()
	url := synctest.MigratedDatabase(b)
	pool := synctest.Pool(b, url)
	deps, fakeBase := childFake(b, benchFake{Accounts: 100, Campaigns: 1000, Cards: 200, LineItems: 1, Posts: 3, Audiences: 1, Media: 5}, pool)
	c := jobstest.StartWorker(b, deps, jobs.Options{})
	cpu := measure.NewCPU(b, pool)
	report := func(b *testing.B, n int, wall time.Duration, used cpuSpan) {
		b.ReportMetric(float64(n)/wall.Seconds(), "records/s")
		used.report(b, wall)
	}
	full := jobs.SyncRunArgs{Entities: entities, Full: true}
	var accounts []string // the accounts the run synced, for the baseline

	// The fake renders a page's records once and keeps them: a first,
	// untimed run warms it, so every figure below (the baseline's too) sees
	// the same warm service.
	runSync(b, deps, c, full)
	// That run stored every record (the ground-truth tests check it
	// equals the service's): the figures' record count.
	var records int
	require.NoError(b, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM campaigns) + (SELECT count(*) FROM cards)`).Scan(&records))

	b.Run("sync", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			_, err := pool.Exec(ctx, `TRUNCATE campaigns, cards, accounts, sync_bookmarks`)
			require.NoError(b, err)
			b.StartTimer()
			stop := profilePhase(b, pool, "sync")
			c0, start := startCPU(cpu), time.Now()
			id := runSync(b, deps, c, full)
			settle(b, pool)
			report(b, records, time.Since(start), c0)
			stop()
			b.StopTimer()
			r, err := pool.Query(ctx, `SELECT DISTINCT account_id FROM sync_run_units WHERE run_id = $1 AND account_id <> '' ORDER BY 1`, id)
			require.NoError(b, err)
			accounts, err = pgx.CollectRows(r, pgx.RowTo[string])
			require.NoError(b, err)
			b.StartTimer()
		}
	})

	b.Run("resync_unchanged", func(b *testing.B) {
		require.NotEmpty(b, accounts, "run with the sync sub-benchmark")
		for i := 0; i < b.N; i++ {
			stop := profilePhase(b, pool, "resync_unchanged")
			c0, start := startCPU(cpu), time.Now()
			id := runSync(b, deps, c, full)
			settle(b, pool)
			report(b, records, time.Since(start), c0)
			stop()
			var fetched, unchanged, written int64
			require.NoError(b, pool.QueryRow(ctx, `SELECT sum(fetched), sum(unchanged), sum(inserted + updated + deleted)
FROM sync_run_units WHERE run_id = $1 AND entity = ANY($2)`, id, entities).Scan(&fetched, &unchanged, &written))
			require.EqualValues(b, records, fetched)
			require.EqualValues(b, records, unchanged)
			require.Zero(b, written)
		}
	})

	benchHistory(b, pool, deps, c, cpu, fakeBase, full, records)

	b.Run("fetch_copy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			_, err := pool.Exec(ctx, `DROP TABLE IF EXISTS bench_fetch; CREATE TABLE bench_fetch (account_id text, raw jsonb)`)
			require.NoError(b, err)
			b.StartTimer()
			stop := profilePhase(b, pool, "fetch_copy")
			c0, start := startCPU(cpu), time.Now()
			n := fetchCopy(b, deps.API, pool, accounts, entities)
			settle(b, pool)
			report(b, records, time.Since(start), c0)
			stop()
			require.Equal(b, records, n)
		}
	})

	// fetch_only: the same pages fetched and split into records, nothing
	// stored; the floor of an unchanged re-sync, which must read them all.
	b.Run("fetch_only", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			stop := profilePhase(b, pool, "fetch_only")
			c0, start := startCPU(cpu), time.Now()
			n := fetchCopy(b, deps.API, nil, accounts, entities)
			report(b, records, time.Since(start), c0)
			stop()
			require.Equal(b, records, n)
		}
	})

	// shaped_copy, the Postgres floor of the sync's storing: the stored
	// rows, every column, COPYed from memory into empty tables of the same
	// shape (columns, keys and indexes), against raw_copy's bare table.
	b.Run("shaped_copy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			st := shapedTables(b, pool, entities, "bench_shaped_")
			b.StartTimer()
			c0, start := startCPU(cpu), time.Now()
			n := 0
			for _, e := range entities {
				m, err := pool.CopyFrom(ctx, pgx.Identifier{"bench_shaped_" + e}, st.columns[e], pgx.CopyFromRows(st.rows[e]))
				require.NoError(b, err)
				n += int(m)
			}
			settle(b, pool)
			report(b, n, time.Since(start), c0)
			require.Equal(b, records, n)
		}
	})

	// shaped_paged: the same rows into tables of the same shape as the sync
	// stores them, one COPY (its own transaction) per listed page of an
	// account's entity, from syncQueueWorkers goroutines: the floor of
	// storing page by page, which a sync that loses nothing on a crash
	// does, where shaped_copy's single COPY per table is not.
	b.Run("shaped_paged", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			st := shapedTables(b, pool, entities, "bench_paged_")
			pages := st.pages(entities, "bench_paged_", listPageSize)
			b.StartTimer()
			stop := profilePhase(b, pool, "shaped_paged")
			c0, start := startCPU(cpu), time.Now()
			n := copyPages(b, pool, pages)
			settle(b, pool)
			report(b, n, time.Since(start), c0)
			stop()
			require.Equal(b, records, n)
		}
	})

	b.Run("raw_copy", func(b *testing.B) {
		require.NotEmpty(b, accounts, "run with the sync sub-benchmark")
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			// Read here, not kept from the sync's phase: a heap of every
			// stored record would make the phases between pay for its
			// garbage collection.
			r, err := pool.Query(ctx, `SELECT account_id, id, raw FROM campaigns UNION ALL SELECT account_id, id, raw FROM cards`)
			require.NoError(b, err)
			rows, err := pgx.CollectRows(r, func(row pgx.CollectableRow) ([]any, error) {
				var a, id string
				var raw []byte
				err := row.Scan(&a, &id, &raw)
				return []any{a, id, string(raw)}, err
			})
			require.NoError(b, err)
			require.Len(b, rows, records)
			_, err = pool.Exec(ctx, `DROP TABLE IF EXISTS bench_raw; CREATE TABLE bench_raw (account_id text, id text, raw jsonb)`)
			require.NoError(b, err)
			b.StartTimer()
			c0, start := startCPU(cpu), time.Now()
			n, err := pool.CopyFrom(ctx, pgx.Identifier{"bench_raw"}, []string{"account_id", "id", "raw"}, pgx.CopyFromRows(rows))
			require.NoError(b, err)
			require.Equal(b, int64(len(rows)), n)
			settle(b, pool)
			report(b, len(rows), time.Since(start), c0)
		}
	})
}

// listPageSize is the records of a full listed page: the service's largest
// count, which the sync asks for.
const listPageSize = 1000

// shaped holds the rows of the entities' tables, every column, read back
// after the sync.
type shaped struct {
	columns map[string][]string
	rows    map[string][][]any
}

// shapedTables reads every row of the entities' tables and creates empty
// tables of the same shape (columns, keys, indexes) named prefix+entity.
func shapedTables(b *testing.B, pool *pgxpool.Pool, entities []string, prefix string) shaped {
	ctx := context.Background()
	st := shaped{columns: map[string][]string{}, rows: map[string][][]any{}}
	for _, e := range entities {
		r, err := pool.Query(ctx, `SELECT * FROM `+e)
		require.NoError(b, err)
		for _, f := range r.FieldDescriptions() {
			st.columns[e] = append(st.columns[e], f.Name)
		}
		st.rows[e], err = pgx.CollectRows(r, func(row pgx.CollectableRow) ([]any, error) { return row.Values() })
		require.NoError(b, err)
		_, err = pool.Exec(ctx, `DROP TABLE IF EXISTS `+prefix+e+`; CREATE TABLE `+prefix+e+` (LIKE `+e+` INCLUDING ALL)`)
		require.NoError(b, err)
	}
	return st
}

// shapedPage is one COPY of copyPages.
type shapedPage struct {
	table   string
	columns []string
	rows    [][]any
}

// pages splits each entity's rows by account into pages of at most size
// rows, for tables named prefix+entity; accounts in the order of their
// first row.
func (st shaped) pages(entities []string, prefix string, size int) []shapedPage {
	var pages []shapedPage
	for _, e := range entities {
		account := slices.Index(st.columns[e], "account_id")
		byAccount := map[any][][]any{}
		var order []any
		for _, row := range st.rows[e] {
			a := row[account]
			if _, ok := byAccount[a]; !ok {
				order = append(order, a)
			}
			byAccount[a] = append(byAccount[a], row)
		}
		for _, a := range order {
			for chunk := range slices.Chunk(byAccount[a], size) {
				pages = append(pages, shapedPage{table: prefix + e, columns: st.columns[e], rows: chunk})
			}
		}
	}
	return pages
}

// copyPages COPYs each page in its own transaction from syncQueueWorkers
// goroutines, and returns the rows copied.
func copyPages(b *testing.B, pool *pgxpool.Pool, pages []shapedPage) int {
	ctx := context.Background()
	next := make(chan shapedPage)
	go func() {
		defer close(next)
		for _, p := range pages {
			next <- p
		}
	}()
	var mu sync.Mutex
	var total int64
	var firstErr error
	var wg sync.WaitGroup
	for range syncQueueWorkers {
		wg.Go(func() {
			for p := range next {
				n, err := pool.CopyFrom(ctx, pgx.Identifier{p.table}, p.columns, pgx.CopyFromRows(p.rows))
				mu.Lock()
				total += n
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.NoError(b, firstErr)
	return int(total)
}

// fetchCopy pages every (account, entity) list as the sync does and COPYs
// each page's raw records into bench_fetch (pool nil: stores nothing), with
// syncQueueWorkers goroutines. It returns the records fetched.
func fetchCopy(b *testing.B, client *api.Client, pool *pgxpool.Pool, accounts, entities []string) int {
	ctx := context.Background()
	units := make(chan *ads.Unit)
	go func() {
		defer close(units)
		for _, a := range accounts {
			for _, name := range entities {
				e, ok := ads.Lookup(name)
				require.True(b, ok)
				units <- &ads.Unit{AccountID: a, Entity: e, Full: true}
			}
		}
	}()
	var mu sync.Mutex
	var total int
	var firstErr error
	var wg sync.WaitGroup
	for range syncQueueWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range units {
				lr := ads.ListRequest(u, "", 0)
				lr.ReuseBody = true // as the sync reads its pages
				for page, err := range api.Pages[json.RawMessage](ctx, client, lr) {
					if err == nil && pool != nil {
						_, err = pool.CopyFrom(ctx, pgx.Identifier{"bench_fetch"}, []string{"account_id", "raw"},
							pgx.CopyFromSlice(len(page.Raw), func(i int) ([]any, error) {
								return []any{u.AccountID, string(page.Raw[i])}, nil
							}))
					}
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = err
					}
					if err == nil {
						total += len(page.Raw)
					}
					mu.Unlock()
					if err != nil {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(b, firstErr)
	return total
}

// BenchmarkSyncRateLimited syncs campaigns and cards of 100 small accounts
// (one page each) with the fake's windows shrunk so that the family limits
// bind: 20 requests per 5-second window for every endpoint family (the
// per-account limits do not bind). It reports the wall time against the
// minimum the limits allow, requests needed / limit per window * window, for
// the family that needs the most requests, and the 429s the fake answered.
func BenchmarkSyncRateLimited(b *testing.B) {
	const limit, window = 20, 5 * time.Second
	fake := synctest.NewFake(b, func(o *fixtures.Options) {
		o.Accounts, o.CampaignsPerAccount, o.CardsPerAccount = 100, 20, 10
		o.LineItemsPerCampaign, o.PostsPerAccount, o.AudiencesPerAccount, o.MediaPerAccount = 1, 1, 1, 1
		o.RateLimits = fixtures.RateLimitOptions{Window: window, Limit: limit, AccountLimit: 1000}
	})
	entities := []string{"campaigns", "cards"}
	url := synctest.MigratedDatabase(b)
	pool := synctest.Pool(b, url)
	deps := jobstest.Deps(b, fake, pool)
	c := jobstest.StartWorker(b, deps, jobs.Options{})
	cpu := measure.NewCPU(b, pool)
	for i := 0; i < b.N; i++ {
		// A fresh fake state and fresh windows on both sides.
		fake.Srv.Reset()
		_, err := pool.Exec(context.Background(), `TRUNCATE campaigns, cards, accounts, sync_bookmarks, api_rate_limits`)
		require.NoError(b, err)
		c0, start := startCPU(cpu), time.Now()
		runSync(b, deps, c, jobs.SyncRunArgs{Entities: entities, Full: true})
		wall := time.Since(start)
		st := fake.Srv.Stats()
		var most, throttled, requests int
		for name, f := range st.Families {
			if strings.HasPrefix(name, "POST /oauth") || strings.Contains(name, "oauth") {
				continue
			}
			ok := f.ByStatus[200]
			most = max(most, ok)
			throttled += f.Throttled
			requests += f.Requests
		}
		minimum := time.Duration(float64(most) / limit * float64(window))
		c0.report(b, wall)
		b.ReportMetric(minimum.Seconds(), "min-s")
		b.ReportMetric(float64(requests), "requests")
		b.ReportMetric(float64(most), "requests-of-busiest-family")
		b.ReportMetric(float64(throttled), "429s")
	}
}
