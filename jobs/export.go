package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/sync/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"
)

// ExportArgs runs one Parquet export.
type ExportArgs struct {
	// Out is the output directory; empty means the configured export.out.
	Out     string   `json:"out,omitempty"`
	Tables  []string `json:"tables,omitempty"`
	Full    bool     `json:"full,omitempty"`
	Trigger string   `json:"trigger,omitempty"`
}

// Kind implements river.JobArgs.
func (ExportArgs) Kind() string { return "export" }

// InsertOpts puts exports on their queue, one waiting at a time.
func (ExportArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueExport, MaxAttempts: 5, UniqueOpts: river.UniqueOpts{
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled},
	}}
}

func init() {
	pipelineJobs[PipelineExport] = func() (river.JobArgs, *river.InsertOpts) {
		return ExportArgs{Trigger: "schedule"}, nil
	}
}

// ExportWorker runs exports. It waits for a sync in progress, so the
// nightly export runs after the sync.
type ExportWorker struct {
	river.WorkerDefaults[ExportArgs]
	deps *Deps
}

func addExportWorkers(w *river.Workers, deps *Deps) {
	river.AddWorker(w, &ExportWorker{deps: deps})
}

// syncRunningRecently bounds how long an export waits for a sync.
const syncRunningRecently = 6 * time.Hour

// Work implements river.Worker.
func (w *ExportWorker) Work(ctx context.Context, job *river.Job[ExportArgs]) error {
	syncing, err := store.SyncRunning(ctx, w.deps.Pool, syncRunningRecently)
	if err != nil {
		return err
	}
	if syncing {
		w.deps.Log.Info("export waits for the sync in progress")
		return river.JobSnooze(time.Minute)
	}
	out := job.Args.Out
	if out == "" {
		out = w.deps.ExportOut
	}
	opts := w.deps.Export
	opts.Out, opts.Tables, opts.Full, opts.Trigger = out, job.Args.Tables, job.Args.Full, job.Args.Trigger
	res, err := export.Run(ctx, w.deps.Pool, opts)
	if errors.Is(err, export.ErrExportRunning) {
		return river.JobSnooze(30 * time.Second)
	}
	if err != nil {
		out, _ := riverError(ctx, job.JobRow, err)
		return out
	}
	var rows int64
	for _, t := range res.Tables {
		rows += t.Rows
	}
	for _, t := range res.Tables {
		w.deps.Metrics.ExportRows(t.Name, t.Rows)
	}
	w.deps.Log.Info("export finished", zap.Int64("run_id", res.RunID), zap.Int64("rows", rows), zap.String("manifest", res.Manifest))
	// The summary is the job's output: a command that ran the job (adsync
	// run) prints it.
	return river.RecordOutput(ctx, res.Summary())
}
