package stats_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/stats"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkStats pulls the default entities of 3 accounts over the 14-day
// lookback, synchronously (no River), and reports:
//   - req/account-day: the requests it sent (active entities included) per
//     account-day, and as baseline those of asking for every entity every
//     day (every id of the four entity types, 20 a request, both
//     placements, one request per day);
//   - rows/s: stored rows per second of the whole pull (requests included),
//     and as baseline Postgres copying the same rows (INSERT .. SELECT).
func BenchmarkStats(b *testing.B) {
	now, err := fixtures.SuiteNow()
	if err != nil {
		b.Fatal(err)
	}
	pool := jobstest.Pool(b, jobstest.MigratedDatabase(b))
	fake := jobstest.NewFake(b, func(o *fixtures.Options) {
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
