package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"
)

// SyncRunArgs start an advertising sync run: accounts first, then one
// SyncUnitArgs job per (account, entity). It names things only.
type SyncRunArgs struct {
	// RunID is the sync_runs row; 0 creates one (scheduled runs).
	RunID      int64    `json:"run_id"`
	AccountIDs []string `json:"account_ids,omitempty"`
	Entities   []string `json:"entities,omitempty"`
	Full       bool     `json:"full,omitempty"`
	Trigger    string   `json:"trigger,omitempty"`
}

// Kind is the River job kind.
func (SyncRunArgs) Kind() string { return "sync_run" }

// InsertOpts puts runs on the sync queue.
func (SyncRunArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueSync, MaxAttempts: 5}
}

// SyncUnitArgs sync one entity of one account ("" for global entities).
// Account and entity make the unique key, so a unit cannot be queued or run
// twice at once, whichever run asked for it.
type SyncUnitArgs struct {
	RunID     int64  `json:"run_id"`
	AccountID string `json:"account_id" river:"unique"`
	Entity    string `json:"entity" river:"unique"`
	Full      bool   `json:"full,omitempty"`
}

// Kind is the River job kind.
func (SyncUnitArgs) Kind() string { return "sync_unit" }

// InsertOpts make units unique among the non-final states.
func (SyncUnitArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueSync, MaxAttempts: unitMaxAttempts, UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled},
	}}
}

const unitMaxAttempts = 8

// parentWait is how long a unit waits before looking again whether the
// unit of its parents has ended (see ads.Syncer.WaitingFor).
const parentWait = 250 * time.Millisecond

// SyncParams are what a run records in sync_runs.params.
type SyncParams struct {
	AccountIDs []string `json:"account_ids,omitempty"`
	Entities   []string `json:"entities,omitempty"`
	Full       bool     `json:"full"`
}

// CreateSyncRun records a sync run and returns its id.
func CreateSyncRun(ctx context.Context, deps *Deps, args SyncRunArgs) (int64, error) {
	trigger := args.Trigger
	if trigger == "" {
		trigger = "manual"
	}
	return store.CreateRun(ctx, deps.Pool, PipelineSync, trigger, SyncParams{AccountIDs: args.AccountIDs, Entities: args.Entities, Full: args.Full})
}

func init() {
	pipelineJobs[PipelineSync] = func() (river.JobArgs, *river.InsertOpts) {
		return SyncRunArgs{Trigger: "schedule"}, nil
	}
}

func addSyncWorkers(w *river.Workers, deps *Deps) {
	river.AddWorker(w, &syncRunWorker{deps: deps})
	river.AddWorker(w, &syncUnitWorker{deps: deps})
}

func (d *Deps) syncer() *ads.Syncer {
	return &ads.Syncer{API: d.API, Pool: d.Pool, PageSize: d.SyncPageSize, PageHook: d.SyncPageHook, Users: d.Users}
}

func (d *Deps) logger() *zap.Logger {
	if d.Log == nil {
		return zap.NewNop()
	}
	return d.Log
}

type syncRunWorker struct {
	river.WorkerDefaults[SyncRunArgs]
	deps *Deps
}

func (w *syncRunWorker) Work(ctx context.Context, job *river.Job[SyncRunArgs]) error {
	args := job.Args
	if args.RunID == 0 {
		// A scheduled run records itself once: later attempts find the
		// run by their job id.
		var err error
		args.RunID, err = store.RunForJob(ctx, w.deps.Pool, PipelineSync, cmp.Or(args.Trigger, "manual"),
			SyncParams{AccountIDs: args.AccountIDs, Entities: args.Entities, Full: args.Full}, job.ID)
		if err != nil {
			return err
		}
	}
	l := &ads.Lifecycle{Syncer: w.deps.syncer(), Overlap: w.deps.SyncOverlap}
	run := ads.Run{ID: args.RunID, AccountIDs: args.AccountIDs, Entities: args.Entities, Full: args.Full}
	runDone, err := l.Start(ctx, run, syncUnitEnqueuer(river.ClientFromContext[pgx.Tx](ctx)))
	if err == nil {
		if runDone {
			w.deps.logger().Info("sync run finished", zap.Int64("run_id", args.RunID))
		}
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if errors.Is(err, ads.ErrUnitsWaiting) {
		// Another run's job that already did its work still holds a
		// unit: queue it once River has marked that job finished.
		return river.JobSnooze(time.Second)
	}
	out, final := riverError(ctx, job.JobRow, err)
	if final {
		// Nothing was fanned out: the run ends here, failed.
		if ferr := store.FailRun(ctx, w.deps.Pool, args.RunID, err.Error()); ferr != nil {
			return ferr
		}
	}
	return out
}

// syncUnitEnqueuer inserts one SyncUnitArgs job per unit through rc. A
// unit whose unique key another job holds is reported with that job's run.
func syncUnitEnqueuer(rc *river.Client[pgx.Tx]) ads.Enqueuer {
	return func(ctx context.Context, tx pgx.Tx, run ads.Run, units []store.UnitKey) ([]int64, error) {
		params := make([]river.InsertManyParams, len(units))
		for i, u := range units {
			params[i] = river.InsertManyParams{Args: SyncUnitArgs{RunID: u.RunID, AccountID: u.AccountID, Entity: u.Entity, Full: run.Full}}
		}
		res, err := rc.InsertManyTx(ctx, tx, params)
		if err != nil {
			return nil, err
		}
		holders := make([]int64, len(res))
		for i, r := range res {
			if !r.UniqueSkippedAsDuplicate {
				continue
			}
			var held SyncUnitArgs
			if err := json.Unmarshal(r.Job.EncodedArgs, &held); err != nil {
				return nil, fmt.Errorf("reading the args of job %d: %w", r.Job.ID, err)
			}
			holders[i] = held.RunID
		}
		return holders, nil
	}
}

type syncUnitWorker struct {
	river.WorkerDefaults[SyncUnitArgs]
	deps *Deps
}

// NextRetry backs off from 1 second, doubling to at most 5 minutes.
func (w *syncUnitWorker) NextRetry(job *river.Job[SyncUnitArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}

func unitRetryDelay(attempt int) time.Duration {
	return min(time.Second<<min(max(attempt-1, 0), 9), 5*time.Minute)
}

func (w *syncUnitWorker) Work(ctx context.Context, job *river.Job[SyncUnitArgs]) error {
	args := job.Args
	e, ok := ads.Lookup(args.Entity)
	if !ok {
		return river.JobCancel(fmt.Errorf("unknown entity %q", args.Entity))
	}
	pool := w.deps.Pool
	u := &ads.Unit{RunID: args.RunID, AccountID: args.AccountID, Entity: e, Full: args.Full, Overlap: w.deps.SyncOverlap,
		KeepsCursor: true, EndsWithLastPage: true}
	s := w.deps.syncer()
	// An entity listed by its stored parents waits for the run's unit of
	// its parents to end (a snooze costs no attempt and frees the worker).
	if parent, err := s.WaitingFor(ctx, u); err != nil {
		return w.failure(ctx, job, u, err)
	} else if parent != "" {
		return river.JobSnooze(parentWait)
	}
	// Everything runs inside the resumable steps: a retry after the "pages"
	// step completed (a worker killed before the job was marked completed)
	// must meet that step again, or River refuses the retry. The unit keeps
	// its cursor in its own row (ads.Unit.KeepsCursor); River's step cursor
	// is read only for a unit whose job saved one there, before units kept
	// theirs.
	var stepErr error
	skipped := false
	river.ResumableStepCursor(ctx, "pages", nil, func(ctx context.Context, cur ads.Cursor) error {
		skipped, stepErr = s.Begin(ctx, u)
		if stepErr != nil || skipped {
			return stepErr
		}
		stepErr = s.Sync(ctx, u, cur)
		return stepErr
	})
	if stepErr != nil {
		return w.failure(ctx, job, u, stepErr)
	}
	if skipped {
		return nil
	}
	var finishErr error
	river.ResumableStep(ctx, "finish", nil, func(ctx context.Context) error {
		_, finishErr = s.Finish(ctx, u)
		if errors.Is(finishErr, ads.ErrUnitDone) {
			return nil
		}
		if finishErr == nil && w.deps.Metrics != nil {
			if c, err := store.UnitCounts(ctx, pool, u.Key()); err == nil {
				w.deps.Metrics.RecordsSynced(e.Name, c.Fetched, c.Inserted, c.Updated, c.Unchanged, c.Deleted)
			}
		}
		return finishErr
	})
	return finishErr
}

// failure answers River for a unit's failed attempt (see riverError); a
// unit River will not run again ends failed.
func (w *syncUnitWorker) failure(ctx context.Context, job *river.Job[SyncUnitArgs], u *ads.Unit, err error) error {
	out, final := riverError(ctx, job.JobRow, err)
	var snooze *rivertype.JobSnoozeError
	if errors.As(out, &snooze) {
		w.deps.logger().Info("sync unit waits", zap.String("entity", u.Entity.Name),
			zap.String("account_id", u.AccountID), zap.Duration("for", snooze.Duration), zap.Error(err))
	}
	if final {
		if endErr := w.deps.syncer().End(ctx, u, store.UnitFailed, err.Error()); endErr != nil {
			return endErr
		}
	}
	return out
}

// NextRetry backs off like the units: a run that could not fan out is
// tried again soon, not after River's default minutes.
func (w *syncRunWorker) NextRetry(job *river.Job[SyncRunArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}
