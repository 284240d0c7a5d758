package jobs

import (
	"cmp"
	"context"
	"time"

	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
	"github.com/riverqueue/river"
	"go.uber.org/zap"
)

// PipelineStats is the analytics pipeline's schedule and sync_runs name.
const PipelineStats = stats.Pipeline

// StatsArgs pull analytics: the configured entities (or Entities) of the
// accounts (all when empty) over the configured lookback, or over Start
// and End.
type StatsArgs struct {
	AccountIDs []string `json:"account_ids,omitempty"`
	Entities   []string `json:"entities,omitempty"`
	// Granularity overrides stats.granularity when set.
	Granularity string `json:"granularity,omitempty"`
	// Start and End (RFC 3339 instants or YYYY-MM-DD local dates) bound
	// the span; empty ones default to the lookback and now.
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
	// Full pulls from each account's creation when Start is empty (a
	// backfill) instead of the lookback.
	Full bool `json:"full,omitempty"`
	// Trigger is recorded with the run ("manual" when empty).
	Trigger string `json:"trigger,omitempty"`
	// RunID is the run the command recorded (0: the job records its own).
	RunID int64 `json:"run_id,omitempty"`
}

// Kind names the job.
func (StatsArgs) Kind() string { return "stats_sync" }

// InsertOpts keep two pulls of the same args from overlapping.
func (StatsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueSync, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

func init() {
	pipelineJobs[PipelineStats] = func() (river.JobArgs, *river.InsertOpts) { return StatsArgs{Trigger: "schedule"}, nil }
}

// addStatsWorkers registers the analytics worker.
func addStatsWorkers(w *river.Workers, deps *Deps) {
	river.AddWorker(w, &statsWorker{deps: deps})
}

type statsWorker struct {
	river.WorkerDefaults[StatsArgs]
	deps *Deps
}

// Request turns args into the pull they ask for; a bad bound is final.
func (a StatsArgs) Request() (stats.Request, error) {
	req := stats.Request{AccountIDs: a.AccountIDs, Entities: a.Entities, Full: a.Full, Granularity: a.Granularity}
	var err error
	if req.Start, err = stats.ParseBound(a.Start); err != nil {
		return req, err
	}
	if req.End, err = stats.ParseBound(a.End); err != nil {
		return req, err
	}
	return req, nil
}

func (w *statsWorker) Work(ctx context.Context, job *river.Job[StatsArgs]) error {
	runID := job.Args.RunID
	if runID == 0 {
		params := job.Args
		params.Trigger = ""
		id, err := store.RunForJob(ctx, w.deps.Pool, PipelineStats, cmp.Or(job.Args.Trigger, "manual"), params, job.ID)
		if err != nil {
			return err
		}
		runID = id
	}
	rep, err := w.work(ctx, job.Args)
	return endRun(ctx, w.deps, job.JobRow, runID, rep, err)
}

func (w *statsWorker) work(ctx context.Context, args StatsArgs) (stats.Report, error) {
	req, err := args.Request()
	if err != nil {
		return stats.Report{}, river.JobCancel(err)
	}
	set := w.deps.Stats
	set.Entities = append(set.Entities, args.Entities...)
	set.Granularity = cmp.Or(args.Granularity, set.Granularity)
	if _, err := set.Normalize(); err != nil {
		return stats.Report{}, river.JobCancel(err)
	}
	r := &stats.Runner{Client: w.deps.API, Pool: w.deps.Pool, Settings: w.deps.Stats}
	rep, err := r.Run(ctx, req)
	if err != nil {
		return rep, err
	}
	w.deps.Log.Info("stats: pulled", zap.Int("accounts", rep.Accounts), zap.Int("account_days", rep.AccountDays),
		zap.Int("requests", rep.Requests), zap.Int("active", rep.Active), zap.Int("rows", rep.Rows))
	return rep, river.RecordOutput(ctx, rep)
}

// NextRetry backs off from 1 second, doubling to at most 5 minutes.
func (w *statsWorker) NextRetry(job *river.Job[StatsArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}
