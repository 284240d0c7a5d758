package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/adsync/adsync/hashing"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Local is a command's own use of River: it queues the command's jobs
// and, when the command waits, works them in this process until they end
// and reports them to people. The commands of adsync call its methods;
// each method is what one command does.
type Local struct {
	// Open opens what jobs need (the database pool, the service client),
	// once for the command; the methods check their input before they
	// call it.
	Open func(ctx context.Context) (*Deps, error)
	// Concurrency per queue, JobTimeout and Slog shape the clients that
	// work jobs here (see Options); Schedules and AudienceSchedules are
	// the daemon's (see Work).
	Concurrency                  map[string]int
	JobTimeout                   time.Duration
	Slog                         *slog.Logger
	Schedules, AudienceSchedules map[string]string
	// Heartbeat and DeadAfter register a process working jobs as a live
	// worker (see Liveness).
	Heartbeat, DeadAfter time.Duration
	// Out gets the reports, Err the warnings, Progress (a terminal; nil
	// when there is none) the progress lines of a command that waits.
	Out, Err, Progress io.Writer
}

// InputError is a command's input that can never work as given (an
// account the credentials cannot reach, a span that can never be pulled, a
// source no user can be read from): nothing was queued; the input must
// change. The command line exits 2 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// inputErrorf builds an *InputError; %w wraps as in fmt.Errorf.
func inputErrorf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// inputError makes err an *InputError when it is about the input itself
// (a *hashing.InputError: no user can be read from it).
func inputError(err error) error {
	var ie *hashing.InputError
	if errors.As(err, &ie) {
		return &InputError{Err: err}
	}
	return err
}

// Inserter builds a River client that only inserts jobs (Work builds one
// that runs them).
func (l *Local) Inserter(deps *Deps) (*river.Client[pgx.Tx], error) {
	return NewClient(deps, Options{Slog: l.Slog})
}

// Work starts a River client that runs jobs in this process (every queue,
// or only those named; the schedules too when schedules is set),
// registered as a live worker so that, should this process die, other
// workers hand its running jobs back at once. stop stops the client
// (waiting for jobs in flight up to timeout, then cancelling them) and the
// registration.
func (l *Local) Work(ctx context.Context, deps *Deps, schedules bool, queues ...string) (*river.Client[pgx.Tx], func(timeout time.Duration) error, error) {
	id := NewClientID()
	log := deps.logger()
	if !schedules && !log.Core().Enabled(zapcore.DebugLevel) {
		// A command working its own jobs prints their summary itself: the
		// jobs' info lines would only repeat it, as log lines amid the
		// output meant for people. Warnings and errors still show, and
		// everything with --log-level debug.
		quiet := *deps
		quiet.Log = log.WithOptions(zap.IncreaseLevel(zapcore.WarnLevel))
		deps = &quiet
	}
	client, err := NewClient(deps, l.options(id, schedules, queues))
	if err != nil {
		return nil, nil, err
	}
	live := &Liveness{Pool: deps.Pool, Log: log, ClientID: id, Interval: l.Heartbeat, DeadAfter: l.DeadAfter}
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
		defer stopLive()
		return stopClient(client, log, timeout)
	}
	return client, stop, nil
}

// commandFetchPoll is how often a command working its own jobs looks for
// jobs that became due without a notification: a job snoozed for up to
// River's scheduler interval (5 s) waits "available" with a later
// scheduled_at, and River finds it only by polling. Its default poll, a
// second, made every short snooze of a run (an analytics job waiting for
// the service, a parent waiting for its units) up to a second longer
// while the person at the command waited; a daemon keeps River's default.
const commandFetchPoll = 100 * time.Millisecond

// options are the River options of Work's client: the daemon's with the
// schedules and River's maintenance, a command's with commandFetchPoll.
func (l *Local) options(id string, schedules bool, queues []string) Options {
	opts := Options{Concurrency: l.Concurrency, Work: true, Slog: l.Slog, JobTimeout: l.JobTimeout, ClientID: id, Queues: queues}
	if schedules {
		opts.Schedules, opts.AudienceSchedules, opts.Maintenance = l.Schedules, l.AudienceSchedules, true
	} else {
		opts.FetchPollInterval = commandFetchPoll
	}
	return opts
}

// stopClient stops client, waiting for jobs in flight up to timeout, then
// cancelling them.
func stopClient(client *river.Client[pgx.Tx], log *zap.Logger, timeout time.Duration) error {
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := client.Stop(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("jobs still running at the shutdown timeout: cancelling them")
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = client.StopAndCancel(cctx)
		ccancel()
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// localStopTimeout is how long a command's own worker waits for jobs in
// flight when the command is done with them.
const localStopTimeout = 30 * time.Second

// queueRun inserts args, the job of the run id the caller recorded.
// Without wait it says the run is queued and returns a nil stop: a worker
// will take it. With wait it starts this process's worker (no schedules)
// on the run's queue to work the run and returns the func that stops it;
// the caller then waits for the run.
func (l *Local) queueRun(ctx context.Context, deps *Deps, pipeline string, id int64, args river.JobArgs, wait bool) (stop func(), err error) {
	inserter, err := l.Inserter(deps)
	if err != nil {
		return nil, err
	}
	if _, err := inserter.Insert(ctx, args, nil); err != nil {
		return nil, err
	}
	if !wait {
		fmt.Fprintf(l.Out, "%s run %d queued\n", pipeline, id)
		return nil, nil
	}
	// The run's jobs (sync and stats runs and their units) are all on the
	// sync queue: the other queues are left to the workers.
	_, stopWorking, err := l.Work(ctx, deps, false, QueueSync)
	if err != nil {
		return nil, err
	}
	return func() { _ = stopWorking(localStopTimeout) }, nil
}

// jobPoll is how often runJob reads the job it follows.
const jobPoll = 100 * time.Millisecond

// runJob runs args as its job with a worker of this process (no
// schedules) and follows the job in the database until it ends, retries
// included: any worker may run it, this process's or a daemon's. A
// completed job's output is decoded into out; what names the job in
// messages ("posts fetch").
func (l *Local) runJob(ctx context.Context, deps *Deps, args river.JobArgs, what string, out any) error {
	inserter, err := l.Inserter(deps)
	if err != nil {
		return err
	}
	_, stop, err := l.Work(ctx, deps, false)
	if err != nil {
		return err
	}
	defer func() { _ = stop(localStopTimeout) }()
	res, err := inserter.Insert(ctx, args, nil)
	if err != nil {
		return fmt.Errorf("queueing the %s: %w", what, err)
	}
	tick := time.NewTicker(jobPoll)
	defer tick.Stop()
	reported := 0
	for {
		job, err := inserter.JobGet(ctx, res.Job.ID)
		if err != nil {
			return fmt.Errorf("following %s job %d: %w", what, res.Job.ID, err)
		}
		if done, err := l.jobEnded(job, what, &reported, out); done {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s job %d: stopped waiting (it stays queued): %w", what, res.Job.ID, ctx.Err())
		case <-tick.C:
		}
	}
}

// jobEnded says whether job has ended, and how: a completed job's output
// decoded into out, or the last error of one cancelled or discarded. A
// failed attempt River retries is said on Err, once (reported counts the
// errors said).
func (l *Local) jobEnded(job *rivertype.JobRow, what string, reported *int, out any) (bool, error) {
	lastErr := "unknown error"
	if n := len(job.Errors); n > 0 {
		lastErr = job.Errors[n-1].Error
		if n > *reported && job.State == rivertype.JobStateRetryable {
			fmt.Fprintf(l.Err, "%s job %d: attempt %d failed, retrying: %s\n", what, job.ID, job.Attempt, lastErr)
			*reported = n
		}
	}
	switch job.State {
	case rivertype.JobStateCompleted:
		if err := json.Unmarshal(job.Output(), out); err != nil {
			return true, fmt.Errorf("%s job %d: reading its summary: %w", what, job.ID, err)
		}
		return true, nil
	case rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
		msg := strings.TrimPrefix(lastErr, "JobCancelError: ")
		if !strings.HasPrefix(msg, what+":") && !strings.HasPrefix(msg, what+" ") {
			msg = what + ": " + msg // never a doubled prefix: the export's errors name it already
		}
		return true, errors.New(msg)
	}
	return false, nil
}

// now is the time by deps' clock (Now, else the real one).
func (d *Deps) now() time.Time {
	if d.Now == nil {
		return time.Now()
	}
	return d.Now()
}
