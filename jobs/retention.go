package jobs

import (
	"cmp"
	"context"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/riverqueue/river"
	"go.uber.org/zap"
)

// PruneRunsArgs prune the run history once (see PruneRuns). The worker's
// schedule queues them every pruneEvery, and when it starts.
type PruneRunsArgs struct{}

// Kind names the job.
func (PruneRunsArgs) Kind() string { return "prune_runs" }

// InsertOpts put the job on the default queue, one waiting or running at a
// time.
func (PruneRunsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByState: unfinished}}
}

// The pruning's bounds: runs removed per statement (each its own short
// transaction), statements per job, and how often the job runs. A first
// pruning of a long history takes several hours' jobs, 10,000 runs each.
const (
	pruneBatch   = 200
	pruneBatches = 50
	pruneEvery   = time.Hour
)

// prunePeriodic is the worker's periodic pruning job.
func prunePeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(pruneEvery),
		func() (river.JobArgs, *river.InsertOpts) { return PruneRunsArgs{}, nil },
		&river.PeriodicJobOpts{ID: "maintenance:prune_runs", RunOnStart: true})
}

type pruneRunsWorker struct {
	river.WorkerDefaults[PruneRunsArgs]
	deps *Deps
}

func (w *pruneRunsWorker) Work(ctx context.Context, _ *river.Job[PruneRunsArgs]) error {
	_, err := PruneRuns(ctx, w.deps)
	return err
}

// PruneRuns removes, in bounded batches, the runs that finished more than
// deps.RunRetention ago (store.DefaultRunRetention when zero), with their
// units and finished stats jobs (store.PruneRuns says what is always
// kept), and logs what it removed. River prunes its own finished jobs (its
// job cleaner: completed and cancelled ones after a day, discarded ones
// after a week).
func PruneRuns(ctx context.Context, deps *Deps) (store.Pruned, error) {
	retention := cmp.Or(deps.RunRetention, store.DefaultRunRetention)
	before := deps.now().Add(-retention)
	p, err := store.PruneRuns(ctx, deps.Pool, before, pruneBatch, pruneBatches)
	if p.Runs > 0 {
		deps.logger().Info("pruned the run history", zap.Int64("runs", p.Runs), zap.Int64("units", p.Units),
			zap.Int64("stats_jobs", p.StatsJobs), zap.Time("finished_before", before), zap.Duration("retention", retention))
	}
	return p, err
}
