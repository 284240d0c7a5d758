package adsynccmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adsync/adsync/cmd/internal/logging"
	"github.com/adsync/adsync/jobs"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
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
	deps.Users = a.userSet(pool, client)
	deps.Audiences = a.cfg.Definitions()
	a.deps = deps
	return deps, nil
}

// inserter builds a River client that only inserts jobs (startWorking
// builds one that runs them).
func (a *app) inserter(deps *jobs.Deps) (*river.Client[pgx.Tx], error) {
	return jobs.NewClient(deps, jobs.Options{Slog: logging.Slog(a.log)})
}

// queueRun inserts args, the job of the run id the caller created. Without
// wait it says the run is queued and returns a nil stop: a worker will take
// it. With wait it starts this process's worker (no schedules) to work the
// run and returns the func that stops it; the caller then waits for the run.
func (a *app) queueRun(ctx context.Context, deps *jobs.Deps, pipeline string, id int64, args river.JobArgs, wait bool) (stop func(), err error) {
	inserter, err := a.inserter(deps)
	if err != nil {
		return nil, err
	}
	if _, err := inserter.Insert(ctx, args, nil); err != nil {
		return nil, err
	}
	if !wait {
		fmt.Fprintf(a.stdout, "%s run %d queued\n", pipeline, id)
		return nil, nil
	}
	// The run's jobs (sync and stats runs and their units) are all on the
	// sync queue: the other queues are left to the workers.
	_, stopWorking, err := a.startWorking(ctx, deps, false, jobs.QueueSync)
	if err != nil {
		return nil, err
	}
	return func() { _ = stopWorking(30 * time.Second) }, nil
}

// startWorking starts a River client that runs jobs in this process (the
// configured queues, or only those named; the schedules too when schedules
// is set), registered
// as a live worker so that, should this process die, other workers hand
// its running jobs back at once. stop stops the client (waiting for jobs in
// flight up to timeout, then cancelling them) and the registration.
func (a *app) startWorking(ctx context.Context, deps *jobs.Deps, schedules bool, queues ...string) (*river.Client[pgx.Tx], func(timeout time.Duration) error, error) {
	id := jobs.NewClientID()
	if !schedules && !a.log.Core().Enabled(zapcore.DebugLevel) {
		// A command working its own jobs prints their summary itself: the
		// jobs' info lines would only repeat it, as log lines amid the
		// output meant for people. Warnings and errors still show, and
		// everything with --log-level debug.
		quiet := *deps
		quiet.Log = a.log.WithOptions(zap.IncreaseLevel(zapcore.WarnLevel))
		deps = &quiet
	}
	opts := jobs.Options{Concurrency: a.concurrency(), Work: true, Slog: logging.Slog(a.log),
		JobTimeout: time.Duration(a.cfg.Worker.JobTimeout), ClientID: id, Queues: queues}
	if schedules {
		opts.Schedules, opts.AudienceSchedules = a.schedules(), a.cfg.AudienceSchedules()
	}
	client, err := jobs.NewClient(deps, opts)
	if err != nil {
		return nil, nil, err
	}
	live := &jobs.Liveness{Pool: deps.Pool, Log: a.log, ClientID: id,
		Interval: time.Duration(a.cfg.Worker.Heartbeat), DeadAfter: time.Duration(a.cfg.Worker.DeadAfter)}
	// The registration and the jobs outlive a cancelled ctx until stop: a
	// signal must not cut jobs in flight short.
	runCtx := context.WithoutCancel(ctx)
	stopLive, err := live.Start(runCtx)
	if err != nil {
		return nil, nil, err
	}
	if err := client.Start(runCtx); err != nil {
		stopLive()
		return nil, nil, fmt.Errorf("starting the workers: %w", err)
	}
	stop := func(timeout time.Duration) error {
		sctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		err := client.Stop(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			a.log.Warn("jobs still running at the shutdown timeout: cancelling them")
			cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = client.StopAndCancel(cctx)
			ccancel()
		}
		stopLive()
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		return err
	}
	return client, stop, nil
}
