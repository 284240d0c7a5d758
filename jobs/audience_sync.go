package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"go.uber.org/zap"
)

// AudienceSyncArgs run one configured audience (Deps.Audiences) once. They
// name the definition only: its source, and a URL that may hold a
// password, stay in the configuration.
type AudienceSyncArgs struct {
	Name string `json:"name" river:"unique"`
	// Trigger is recorded with the run ("manual" when empty).
	Trigger string `json:"trigger,omitempty"`
}

// Kind names the job.
func (AudienceSyncArgs) Kind() string { return "audience_sync" }

// InsertOpts put the job on the audience queue, one per definition waiting
// or running: a schedule firing during a long run adds nothing.
func (AudienceSyncArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueAudience, MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

// Outcomes of a configured audience's run, as adsync_audience_syncs_total
// counts them.
const (
	// AudienceSyncPlanned: batches were queued (or an unfinished upload resumed).
	AudienceSyncPlanned = "planned"
	// AudienceSyncUnchanged: the source asked for nothing to be sent.
	AudienceSyncUnchanged = "unchanged"
	// AudienceSyncRefused: a bound (max_delete, no valid user, invalid
	// rows) refused the plan; nothing was sent.
	AudienceSyncRefused = "refused"
	// AudienceSyncFailed: the run failed for good otherwise.
	AudienceSyncFailed = "failed"
)

var audienceSyncOutcomes = []string{AudienceSyncPlanned, AudienceSyncUnchanged, AudienceSyncRefused, AudienceSyncFailed}

// inFlightWait is how long a run waits for an earlier upload to its
// audience before it looks again (a cheap look: no source is read);
// inFlightPatience is how long it waits in all before it fails, so an
// upload that never ends (its batch jobs deleted by hand) shows in adsync
// status instead of holding the audience's runs back unseen.
const (
	inFlightWait     = 10 * time.Second
	inFlightPatience = 6 * time.Hour
)

// AudienceSyncWorker runs a configured audience through audience.Sync.
type AudienceSyncWorker struct {
	river.WorkerDefaults[AudienceSyncArgs]
	deps *Deps
}

// Work plans the definition's source against its audience and queues the
// batches in the same transaction. A run waiting for an earlier upload to
// the audience snoozes, for inFlightPatience at most; a refused plan and a
// configuration no retry can change cancel the job (the run is recorded
// failed with why); anything else is retried, and the last attempt's
// failure recorded.
func (w *AudienceSyncWorker) Work(ctx context.Context, job *river.Job[AudienceSyncArgs]) error {
	name := job.Args.Name
	def, ok := w.deps.Audiences[name]
	if !ok {
		w.deps.Metrics.AudienceSync(name, AudienceSyncFailed)
		return river.JobCancel(fmt.Errorf("audience %s is not configured (audiences: in the configuration): nothing to run", name))
	}
	answer := func(err error) (error, bool) {
		var refused *audience.RefusedError
		var taken *audience.TakenNameError
		var inFlight *audience.InFlightError
		switch {
		case errors.As(err, &refused), errors.As(err, &taken):
			return river.JobCancel(err), true
		case errors.As(err, &inFlight) && time.Since(job.CreatedAt) < inFlightPatience:
			return river.JobSnooze(inFlightWait), false
		case errors.As(err, &inFlight):
			return river.JobCancel(fmt.Errorf("%w (waited since %s)", err, job.CreatedAt.UTC().Format(time.RFC3339))), true
		}
		return riverError(ctx, job.JobRow, err)
	}
	res, err := audience.Sync(ctx, w.deps.Pool, audience.SyncOptions{
		Definition: def, Trigger: cmp.Or(job.Args.Trigger, "manual"),
		ClientFor: w.deps.clientFor(access.NeedAudience), Enqueue: AudienceEnqueuer(river.ClientFromContext[pgx.Tx](ctx)),
		Workers: runtime.GOMAXPROCS(0),
		Retried: func(err error) bool { _, final := answer(err); return !final },
	})
	var inFlight *audience.InFlightError
	var refused *audience.RefusedError
	switch {
	case errors.As(err, &inFlight) && res.RunID == 0:
		w.deps.Log.Info("audience waits for an earlier upload", zap.String("audience", name), zap.Int64("upload_id", inFlight.UploadID))
		out, _ := answer(err)
		return out
	case errors.As(err, &refused):
		w.deps.Metrics.AudienceSync(name, AudienceSyncRefused)
		w.deps.Log.Warn("audience run refused: nothing sent", zap.String("audience", name), zap.Int64("run_id", res.RunID), zap.Error(err))
		out, _ := answer(err)
		return out
	case err != nil:
		out, final := answer(err)
		if final {
			w.deps.Metrics.AudienceSync(name, AudienceSyncFailed)
		}
		return out
	}
	outcome := AudienceSyncUnchanged
	if res.Sends() {
		outcome = AudienceSyncPlanned
	}
	w.deps.Metrics.AudienceSync(name, outcome)
	s := res.Plan.Summary
	w.deps.Log.Info("audience run planned", zap.String("audience", name), zap.String("audience_id", res.AudienceID),
		zap.Int64("run_id", res.RunID), zap.String("outcome", outcome), zap.Int("batches", res.Plan.Batches),
		zap.Int64("adds", s.Adds), zap.Int64("deletes", s.Deletes), zap.Int64("unchanged", s.Unchanged))
	return nil
}

// NextRetry backs off from 1 second, doubling to at most 5 minutes.
func (w *AudienceSyncWorker) NextRetry(job *river.Job[AudienceSyncArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}

// AudiencePeriodicJobs turns the configured audiences' cron specs (by
// name; empty specs are skipped) into periodic jobs, inserted by River's
// elected leader like the pipelines' schedules.
func AudiencePeriodicJobs(specs map[string]string) ([]*river.PeriodicJob, error) {
	names := make([]string, 0, len(specs))
	for name, spec := range specs {
		if spec != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := make([]*river.PeriodicJob, 0, len(names))
	for _, name := range names {
		sched, err := ParseCron(specs[name])
		if err != nil {
			return nil, fmt.Errorf("audience %s: schedule: %w", name, err)
		}
		args := AudienceSyncArgs{Name: name, Trigger: "schedule"}
		out = append(out, river.NewPeriodicJob(sched, func() (river.JobArgs, *river.InsertOpts) { return args, nil },
			&river.PeriodicJobOpts{ID: "audience:" + name}))
	}
	return out, nil
}
