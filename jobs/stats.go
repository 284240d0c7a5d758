package jobs

import (
	"cmp"
	"context"
	"errors"
	"github.com/adsync/adsync/sync/access"
	"time"

	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
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
	// Segmentation pulls only that segmentation (TYPE or TYPE:VALUE).
	Segmentation string `json:"segmentation,omitempty"`
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
	river.AddWorker(w, &statsJobWorker{deps: deps})
}

type statsWorker struct {
	river.WorkerDefaults[StatsArgs]
	deps *Deps
}

// Request turns args into the pull they ask for; a bad bound is final.
func (a StatsArgs) Request() (stats.Request, error) {
	req := stats.Request{AccountIDs: a.AccountIDs, Entities: a.Entities, Full: a.Full, Granularity: a.Granularity,
		Segmentation: a.Segmentation}
	var err error
	if req.Start, err = stats.ParseBound(a.Start); err != nil {
		return req, err
	}
	if req.End, err = stats.ParseBound(a.End); err != nil {
		return req, err
	}
	return req, nil
}

// statsWaitPoll is how often a run looks whether its asynchronous jobs
// are done (by snoozing).
const statsWaitPoll = 2 * time.Second

// Work pulls the synchronous part of the run and plans its asynchronous
// jobs (one stats_job each, inserted with their rows and the run's
// checkpoint, account by account, so a later attempt goes on from the
// first account not done), then snoozes until every job is stored or given
// up, and ends the run: succeeded, or partial naming the ids and days that
// are missing and the accounts whose span can never be pulled (those end at
// once, without a retry; failed when every account is such an account).
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
	// An earlier attempt's checkpoint: the accounts it finished, or that
	// only the asynchronous jobs remain.
	run, err := stats.GetRun(ctx, w.deps.Pool, runID)
	if err != nil {
		return err
	}
	rep := run.Report
	if !rep.Planned {
		rep, err = w.work(ctx, job.Args, runID, rep)
		if err != nil {
			if serr := keepRateLimited(ctx, w.deps, runID, rep.RateLimited); serr != nil {
				return serr
			}
			return endRun(ctx, w.deps, job.JobRow, runID, rep, err)
		}
		if rep.Jobs == 0 {
			return endStatsRun(ctx, w.deps, runID, rep)
		}
		// The attempts that wait find the run planned.
		if err := store.SetRun(ctx, w.deps.Pool, runID, store.RunRunning, rep, ""); err != nil {
			return err
		}
	}
	open, rows, missing, err := stats.JobsStatus(ctx, w.deps.Pool, runID)
	if err != nil {
		return err
	}
	if open > 0 {
		return river.JobSnooze(statsWaitPoll)
	}
	rep.Rows += rows
	rep.Missing = missing
	jobRequests, jobLimited, err := stats.JobsRequests(ctx, w.deps.Pool, runID)
	if err != nil {
		return err
	}
	rep.JobRequests = jobRequests
	rep.RateLimited += jobLimited // the planning's own 429s are in the checkpoint
	return endStatsRun(ctx, w.deps, runID, rep)
}

// keepRateLimited records in the run's checkpoint the 429 answers an
// attempt that ended early (a snooze, a retry) met, so the report counts
// them though the attempt's other counts are redone by the next one.
func keepRateLimited(ctx context.Context, deps *Deps, runID int64, limited int) error {
	run, err := stats.GetRun(ctx, deps.Pool, runID)
	if err != nil || run.Outcome != store.RunRunning || run.Report.RateLimited >= limited {
		return err
	}
	run.Report.RateLimited = limited
	return store.SetRun(ctx, deps.Pool, runID, store.RunRunning, run.Report, "")
}

// endStatsRun ends a run that pulled rep with the outcome rep says
// (stats.Report.Outcome).
func endStatsRun(ctx context.Context, deps *Deps, runID int64, rep stats.Report) error {
	outcome, reason := rep.Outcome()
	return store.EndRun(ctx, deps.Pool, runID, outcome, rep, reason)
}

func (w *statsWorker) work(ctx context.Context, args StatsArgs, runID int64, resume stats.Report) (stats.Report, error) {
	req, err := args.Request()
	if err != nil {
		return stats.Report{}, river.JobCancel(err)
	}
	req.Resume = resume
	if _, err := w.deps.Stats.For(req); err != nil {
		return stats.Report{}, river.JobCancel(err)
	}
	r := &stats.Runner{Client: w.deps.API, ClientFor: w.deps.clientFor(access.NeedAnalytics), Pool: w.deps.Pool, Settings: w.deps.Stats, Now: w.deps.Now, RunID: runID,
		Checkpoint: func(ctx context.Context, tx pgx.Tx, rep stats.Report) error {
			return store.SetRun(ctx, tx, runID, store.RunRunning, rep, "")
		},
		Enqueue: func(ctx context.Context, tx pgx.Tx, ids []int64) error {
			rc, err := river.ClientFromContextSafely[pgx.Tx](ctx)
			if err != nil {
				return err
			}
			params := make([]river.InsertManyParams, len(ids))
			for i, id := range ids {
				params[i] = river.InsertManyParams{Args: StatsJobArgs{ID: id}}
			}
			_, err = rc.InsertManyTx(ctx, tx, params)
			return err
		}}
	rep, err := r.Run(ctx, req)
	if err != nil {
		return rep, err
	}
	w.deps.Log.Info("stats: pulled", zap.Int("accounts", rep.Accounts), zap.Int("account_days", rep.AccountDays),
		zap.Int("requests", rep.Requests), zap.Int("active", rep.Active), zap.Int("rows", rep.Rows), zap.Int("jobs", rep.Jobs))
	return rep, nil
}

// StatsJobArgs advance one asynchronous analytics job (a stats_jobs row).
type StatsJobArgs struct {
	ID int64 `json:"id"`
}

// Kind names the job.
func (StatsJobArgs) Kind() string { return "stats_job" }

// InsertOpts keep one River job per stats_jobs row.
func (StatsJobArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueSync, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

type statsJobWorker struct {
	river.WorkerDefaults[StatsJobArgs]
	deps *Deps
}

// Work advances the row as far as it can; a service job still running, a
// result file not readable yet or no free slot snooze the job (nothing
// sleeps). When River will not try again the row is given up, so its run
// ends naming what is missing.
func (w *statsJobWorker) Work(ctx context.Context, job *river.Job[StatsJobArgs]) error {
	r := &stats.Runner{Client: w.deps.API, ClientFor: w.deps.clientFor(access.NeedAnalytics), Pool: w.deps.Pool, Settings: w.deps.Stats, Now: w.deps.Now}
	step, err := r.Advance(ctx, job.Args.ID)
	if err == nil {
		if step.Done {
			w.wakeRun(ctx, job.Args.ID)
			return nil
		}
		return river.JobSnooze(step.Wait)
	}
	out, final := riverError(ctx, job.JobRow, err)
	if final {
		if gerr := stats.GiveUp(context.WithoutCancel(ctx), w.deps.Pool, job.Args.ID, err.Error()); gerr != nil {
			return errors.Join(out, gerr)
		}
		w.wakeRun(context.WithoutCancel(ctx), job.Args.ID)
	}
	return out
}

// wakeRun lets the run of row id end now when id was its last open row
// (see stats.WakeWaitingRun). Failing to is only logged: the run's job
// looks again after its snooze.
func (w *statsJobWorker) wakeRun(ctx context.Context, id int64) {
	if _, err := stats.WakeWaitingRun(ctx, w.deps.Pool, id); err != nil {
		w.deps.logger().Warn("stats: waking the run's job", zap.Int64("stats_job", id), zap.Error(err))
	}
}

// NextRetry backs off from 1 second, doubling to at most 5 minutes.
func (w *statsJobWorker) NextRetry(job *river.Job[StatsJobArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}

// NextRetry backs off from 1 second, doubling to at most 5 minutes.
func (w *statsWorker) NextRetry(job *river.Job[StatsArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}
