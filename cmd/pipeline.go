package adsynccmd

import (
	"context"
	"os"
	"time"

	"github.com/adsync/adsync/cmd/internal/logging"
	"github.com/adsync/adsync/jobs"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"golang.org/x/term"
)

// schedules are the configured cron specs by pipeline.
func (a *app) schedules() map[string]string {
	s := a.cfg.Schedules
	return map[string]string{jobs.PipelineSync: s.Sync, jobs.PipelineInsights: s.Insights, jobs.PipelinePosts: s.Posts, jobs.PipelineStats: s.Stats, jobs.PipelineExport: s.Export}
}

// concurrency is the configured concurrency by queue.
func (a *app) concurrency() map[string]int {
	q := a.cfg.Queues
	return map[string]int{jobs.QueueSync: q.Sync, jobs.QueueAudience: q.Audience, jobs.QueueExport: q.Export, jobs.QueueDefault: q.Default}
}

// pipeline opens what running jobs needs: a pool sized for the queues on a
// migrated database, and the service client. It is opened once per command
// (adsync run uses it for every step).
func (a *app) pipeline(ctx context.Context) (*jobs.Deps, error) {
	if a.deps != nil {
		return a.deps, nil
	}
	pool, err := a.openDatabase(ctx, jobs.PoolSize(a.concurrency()), true)
	if err != nil {
		return nil, err
	}
	client, err := a.apiClient(ctx, pool)
	if err != nil {
		return nil, err
	}
	deps := &jobs.Deps{Pool: pool, API: client, Log: a.log, SyncOverlap: time.Duration(a.cfg.Sync.Overlap),
		SyncPageSize: a.cfg.Sync.PageSize, ExportOut: a.cfg.Export.Out, Export: a.cfg.Export.Options(), Metrics: a.metrics}
	deps.Insights, deps.Posts = a.insightsSettings(), jobs.PostsSettings{IDs: a.cfg.Posts.IDs}
	deps.Stats, deps.Now = a.cfg.Stats.Settings(), a.now
	deps.RunRetention = time.Duration(a.cfg.Worker.RunRetention)
	deps.Users = a.userSet(pool, client)
	deps.Audiences = a.cfg.Definitions()
	a.deps = deps
	return deps, nil
}

// local is what the commands that queue and wait for jobs call (see
// jobs.Local): the pipeline opened on demand, the configured queues,
// timeouts and schedules, and this command's streams; progress is drawn
// on stderr when it is a terminal.
func (a *app) local() *jobs.Local {
	l := &jobs.Local{Open: a.pipeline, Concurrency: a.concurrency(), JobTimeout: time.Duration(a.cfg.Worker.JobTimeout),
		Slog: logging.Slog(a.log), Schedules: a.schedules(), AudienceSchedules: a.cfg.AudienceSchedules(),
		Heartbeat: time.Duration(a.cfg.Worker.Heartbeat), DeadAfter: time.Duration(a.cfg.Worker.DeadAfter),
		Out: a.stdout, Err: a.stderr}
	if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		l.Progress = f
	}
	return l
}

// startWorking starts a River client that runs jobs in this process (see
// jobs.Local.Work): the worker's, with the schedules.
func (a *app) startWorking(ctx context.Context, deps *jobs.Deps, schedules bool, queues ...string) (*river.Client[pgx.Tx], func(timeout time.Duration) error, error) {
	return a.local().Work(ctx, deps, schedules, queues...)
}
