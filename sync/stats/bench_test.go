package stats_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/measure"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkStats pulls the default entities of 3 accounts over the 14-day
// lookback, synchronously (no River), and reports:
//   - req/account-day: the requests it sent (active entities included) per
//     account-day, and as baseline those of asking for every entity every
//     day (every id of the four entity types, 20 a request, both
//     placements, one request per day);
//   - rows/s: stored rows per second of the whole pull (requests included),
//     and as baseline Postgres copying the same rows (INSERT .. SELECT);
//   - then the same lookback pulled as the worker pulls it, through
//     asynchronous jobs (the span is over 7 days) advanced as River runs
//     them (runLikeRiver: the fake's clock jumps over every wait, its jobs
//     take the default 4 seconds): requests (every request the fake
//     served for that pull, active entities and downloads included), jobs,
//     polls (job listings naming job_ids), polls/job, and wall-s and cpu-s
//     of that pull (CPU: this process, which also serves the fake, and
//     Postgres).
func BenchmarkStats(b *testing.B) {
	now, err := fixtures.SuiteNow()
	if err != nil {
		b.Fatal(err)
	}
	pool := synctest.Pool(b, synctest.MigratedDatabase(b))
	fake := synctest.NewFake(b, func(o *fixtures.Options) {
		o.Now = func() time.Time { return now }
		o.RateLimits.Disabled = true
	})
	client := fake.Client(b, pool)
	ctx := context.Background()
	r := &stats.Runner{Client: client, Pool: pool, Now: fake.Srv.Now}
	b.ResetTimer()
	var rep stats.Report
	var pull time.Duration
	for range b.N {
		start := time.Now()
		var err error
		if rep, err = r.Run(ctx, stats.Request{}); err != nil {
			b.Fatal(err)
		}
		pull += time.Since(start)
	}
	b.StopTimer()

	every := everyEntityEveryDay(b, client, rep.AccountDays/max(rep.Accounts, 1))
	b.ReportMetric(float64(rep.ActiveRequests+rep.Requests)/float64(rep.AccountDays), "req/account-day")
	b.ReportMetric(float64(every)/float64(rep.AccountDays), "naive-req/account-day")
	b.ReportMetric(float64(rep.Rows)/(pull.Seconds()/float64(b.N)), "rows/s")
	b.ReportMetric(copyRate(b, pool), "copy-rows/s")
	asyncPull(b, fake, pool)
}

// asyncPull pulls the lookback through asynchronous jobs and reports its
// requests and polls (see BenchmarkStats).
func asyncPull(b *testing.B, fake *synctest.Fake, pool *pgxpool.Pool) {
	b.Helper()
	ctx := context.Background()
	calls := &jobCalls{next: http.DefaultTransport}
	cfg := fake.Config(pool)
	cfg.HTTPClient = &http.Client{Transport: calls}
	client, err := api.NewClient(cfg)
	if err != nil {
		b.Fatal(err)
	}
	runID, err := store.CreateRun(ctx, pool, stats.Pipeline, "bench", map[string]any{})
	if err != nil {
		b.Fatal(err)
	}
	var ids []int64
	r := &stats.Runner{Client: client, Pool: pool, Now: fake.Srv.Now, RunID: runID,
		Enqueue: func(_ context.Context, _ pgx.Tx, got []int64) error {
			ids = append(ids, got...)
			return nil
		}}
	cpu := measure.NewCPU(b, pool)
	before, cpu0, start := fake.Srv.Stats().Total(), cpu.Now(), time.Now()
	rep, err := r.Run(ctx, stats.Request{})
	if err != nil {
		b.Fatal(err)
	}
	runLikeRiver(b, r, fake.Srv, ids)
	wall, used := time.Since(start), cpu.Now()-cpu0
	open, _, missing, err := stats.JobsStatus(ctx, pool, runID)
	if err != nil || open > 0 || len(missing) > 0 || rep.Jobs == 0 {
		b.Fatalf("asynchronous pull: %d jobs, %d open, missing %v, %v", rep.Jobs, open, missing, err)
	}
	polls := calls.polls.Load()
	b.ReportMetric(float64(fake.Srv.Stats().Total()-before), "requests")
	b.ReportMetric(float64(rep.Jobs), "jobs")
	b.ReportMetric(float64(polls), "polls")
	b.ReportMetric(float64(polls)/float64(rep.Jobs), "polls/job")
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(used.Seconds(), "cpu-s")
}

// everyEntityEveryDay is how many requests asking for every entity of the
// default types every day would take over days per account.
func everyEntityEveryDay(b *testing.B, c *api.Client, days int) int {
	b.Helper()
	ctx := context.Background()
	accts, err := stats.Accounts(ctx, c, nil)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, a := range accts {
		for _, path := range []string{"campaigns", "line_items", "promoted_posts", "media_creatives"} {
			ids := 0
			lr := api.ListRequest{Base: api.BaseAds, Path: "/12/accounts/" + a.ID + "/" + path,
				Endpoint: "GET /12/accounts/{account_id}/" + path, Query: url.Values{"with_deleted": {"true"}}, AccountID: a.ID}
			for page, err := range api.Pages[map[string]any](ctx, c, lr) {
				if err != nil {
					b.Fatal(err)
				}
				ids += len(page.Items)
			}
			n += (ids + stats.MaxIDs - 1) / stats.MaxIDs * 2 * days
		}
	}
	return n
}

func copyRate(b *testing.B, pool *pgxpool.Pool) float64 {
	b.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE ad_stats_copy (LIKE ad_stats)`); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	tag, err := pool.Exec(ctx, `INSERT INTO ad_stats_copy SELECT * FROM ad_stats`)
	if err != nil {
		b.Fatal(err)
	}
	return float64(tag.RowsAffected()) / time.Since(start).Seconds()
}
