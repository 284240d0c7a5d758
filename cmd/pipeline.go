package adsynccmd

import (
	"context"
	"fmt"
	"time"

	"github.com/adsync/adsync/cmd/internal/logging"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
)

// schedules are the configured cron specs by pipeline.
func (a *app) schedules() map[string]string {
	s := a.cfg.Schedules
	return map[string]string{jobs.PipelineSync: s.Sync, jobs.PipelineInsights: s.Insights, jobs.PipelinePosts: s.Posts, jobs.PipelineExport: s.Export}
}

// concurrency is the configured concurrency by queue.
func (a *app) concurrency() map[string]int {
	q := a.cfg.Queues
	return map[string]int{jobs.QueueSync: q.Sync, jobs.QueueAudience: q.Audience, jobs.QueueExport: q.Export, jobs.QueueDefault: q.Default}
}

// pipeline opens what running jobs needs: a pool sized for the queues on a
// migrated database, and the service client.
func (a *app) pipeline(ctx context.Context) (*jobs.Deps, error) {
	pool, err := store.Connect(ctx, a.cfg.DatabaseURL, store.ConnectOptions{MaxConns: jobs.PoolSize(a.concurrency())})
	if err != nil {
		return nil, err
	}
	a.onClose(pool.Close)
	if err := requireMigrated(ctx, pool); err != nil {
		return nil, err
	}
	client, err := a.apiClient(ctx, pool)
	if err != nil {
		return nil, err
	}
	deps := &jobs.Deps{Pool: pool, API: client, Log: a.log, SyncOverlap: time.Duration(a.cfg.Sync.Overlap), ExportOut: a.cfg.Export.Out, Metrics: a.metrics}
	deps.Insights, deps.Posts = a.insightsSettings(), jobs.PostsSettings{IDs: a.cfg.Posts.IDs}
	return deps, nil
}

// requireMigrated refuses to run on a database with pending migrations.
func requireMigrated(ctx context.Context, pool *pgxpool.Pool) error {
	vs, err := migrations.Status(ctx, pool, nil)
	if err != nil {
		return err
	}
	if n := migrations.Pending(vs); n > 0 {
		return fmt.Errorf("the database has %d pending migrations: run adsync migrate", n)
	}
	return nil
}

// riverClient builds a River client; work makes it run jobs (with the
// configured queues and schedules) rather than only insert them.
func (a *app) riverClient(deps *jobs.Deps, work bool) (*river.Client[pgx.Tx], error) {
	return jobs.NewClient(deps, jobs.Options{
		Concurrency: a.concurrency(),
		Schedules:   a.schedules(),
		Work:        work,
		Slog:        logging.Slog(a.log),
	})
}
