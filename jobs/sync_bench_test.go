package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// BenchmarkSync syncs 100 accounts of 1,000 campaigns and 200 cards each
// from the fake (rate limits off) through River, and, as the baseline, COPYs
// the same rows into a bare table of the same database.
func BenchmarkSync(b *testing.B) {
	fake := jobstest.NewFake(b, func(o *fixtures.Options) {
		o.Accounts, o.CampaignsPerAccount, o.CardsPerAccount = 100, 1000, 200
		o.LineItemsPerCampaign, o.PostsPerAccount, o.AudiencesPerAccount, o.MediaPerAccount = 1, 3, 1, 5
		o.RateLimits.Disabled = true
	})
	entities := []string{"campaigns", "cards"}
	var records int
	for _, per := range fake.Srv.AdsTruth().Accounts {
		for _, k := range entities {
			records += per[k].Live + per[k].Deleted
		}
	}
	ctx := context.Background()
	var rows [][]any
	url := jobstest.MigratedDatabase(b)
	pool := jobstest.Pool(b, url)
	deps := fake.Deps(b, pool)
	c := jobstest.StartWorker(b, deps, jobs.Options{})

	b.Run("sync", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			_, err := pool.Exec(ctx, `TRUNCATE campaigns, cards, accounts, sync_bookmarks`)
			require.NoError(b, err)
			id, err := jobs.CreateSyncRun(ctx, deps, jobs.SyncRunArgs{Entities: entities, Full: true})
			require.NoError(b, err)
			b.StartTimer()
			start := time.Now()
			_, err = c.Insert(ctx, jobs.SyncRunArgs{RunID: id, Entities: entities, Full: true}, nil)
			require.NoError(b, err)
			for {
				var outcome string
				require.NoError(b, pool.QueryRow(ctx, `SELECT outcome FROM sync_runs WHERE id = $1`, id).Scan(&outcome))
				if outcome != "running" {
					require.Equal(b, "succeeded", outcome)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			b.ReportMetric(float64(records)/time.Since(start).Seconds(), "records/s")
		}
		b.StopTimer()
		r, err := pool.Query(ctx, `SELECT account_id, id, raw FROM campaigns UNION ALL SELECT account_id, id, raw FROM cards`)
		require.NoError(b, err)
		rows, err = pgx.CollectRows(r, func(row pgx.CollectableRow) ([]any, error) {
			var a, id string
			var raw []byte
			err := row.Scan(&a, &id, &raw)
			return []any{a, id, string(raw)}, err
		})
		require.NoError(b, err)
		require.Len(b, rows, records)
	})

	b.Run("raw_copy", func(b *testing.B) {
		require.NotEmpty(b, rows, "run with the sync sub-benchmark")
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			_, err := pool.Exec(ctx, `DROP TABLE IF EXISTS bench_raw; CREATE TABLE bench_raw (account_id text, id text, raw jsonb)`)
			require.NoError(b, err)
			b.StartTimer()
			start := time.Now()
			n, err := pool.CopyFrom(ctx, pgx.Identifier{"bench_raw"}, []string{"account_id", "id", "raw"}, pgx.CopyFromRows(rows))
			require.NoError(b, err)
			require.Equal(b, int64(len(rows)), n)
			b.ReportMetric(float64(len(rows))/time.Since(start).Seconds(), "records/s")
		}
	})
}
