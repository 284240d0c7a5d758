package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
)

// Check turns args into the pull they ask for under the configured
// settings, or says why no pull can be: a bad bound, an unknown
// segmentation. A command checks its flags with it before it opens
// anything.
func (a StatsArgs) Check(configured stats.Settings) (stats.Request, stats.Settings, error) {
	req, err := a.Request()
	if err != nil {
		return req, stats.Settings{}, err
	}
	set, err := configured.For(req)
	return req, set, err
}

// Stats is adsync stats sync: it checks args (their span in each
// account's zone and their share of the active entities window too), then
// continues the open run the same arguments recorded (an interrupted wait
// leaves one) or records a new one, queues it, and with wait works it
// until it ends and writes its report; a run that did not succeed is an
// error. Input that can never be pulled is an *InputError, before anything
// is recorded.
func (l *Local) Stats(ctx context.Context, args StatsArgs, wait bool) error {
	deps, err := l.Open(ctx)
	if err != nil {
		return err
	}
	req, set, err := args.Check(deps.Stats)
	if err != nil {
		return inputErrorf("stats sync: %w", err)
	}
	if err := l.checkAccounts(ctx, deps, "--accounts", args.AccountIDs); err != nil {
		return err
	}
	if err := l.checkStatsRequest(ctx, deps, req, set); err != nil {
		return err
	}
	id, open, err := stats.OpenRun(ctx, deps.Pool, args)
	if err != nil {
		return err
	}
	if open {
		fmt.Fprintf(l.Out, "continuing stats run %d, which the same command left unfinished\n", id)
	} else if id, err = store.CreateRun(ctx, deps.Pool, PipelineStats, args.Trigger, args); err != nil {
		return err
	}
	args.RunID = id
	// An open run's job, still waiting, is the same job: inserting it
	// again adopts it (its args are unique while it is unfinished).
	stop, err := l.queueRun(ctx, deps, "stats", id, args, wait)
	if err != nil || stop == nil {
		return err
	}
	defer stop()
	return l.waitStatsRun(ctx, deps, id)
}

// maxClampLines bounds the lines that say how spans were clamped.
const maxClampLines = 10

// checkStatsRequest refuses, before anything is recorded or queued, a span
// that can never be pulled for one of the accounts, or a run over its share
// of the active entities window (stats.Preflight, in each account's zone),
// and says in a line per account (at most maxClampLines) how a requested
// span was clamped to the account's life. When the accounts cannot be read
// the run goes ahead: the worker ends such an account with the same reason,
// and refuses such a run with the same figure.
func (l *Local) checkStatsRequest(ctx context.Context, deps *Deps, req stats.Request, set stats.Settings) error {
	accounts, err := stats.Accounts(ctx, deps.API, req.AccountIDs)
	if err != nil {
		fmt.Fprintf(l.Err, "adsync: could not check the span in the accounts' time zones (%v); going ahead\n", err)
		return nil
	}
	clamped, err := stats.Preflight(accounts, set, req, deps.now())
	for i, line := range clamped {
		if i == maxClampLines {
			fmt.Fprintf(l.Out, "stats sync: %d more accounts' spans clamped to their lives\n", len(clamped)-i)
			break
		}
		fmt.Fprintf(l.Out, "stats sync: %s\n", line)
	}
	if err != nil {
		return inputErrorf("stats sync: %w", err)
	}
	return nil
}

// waitStatsRun waits for run id to end and writes its report; a run that
// did not succeed is an error. An interrupt leaves the run open for the
// same command to continue.
func (l *Local) waitStatsRun(ctx context.Context, deps *Deps, id int64) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		run, err := stats.GetRun(ctx, deps.Pool, id)
		if ctx.Err() != nil {
			return fmt.Errorf("stats run %d: interrupted; run the same command again to resume: %w", id, ctx.Err())
		}
		if err != nil {
			return err
		}
		if run.Outcome != store.RunRunning {
			run.WriteReport(l.Out)
			if run.Outcome != store.RunSucceeded {
				return fmt.Errorf("stats run %d %s: %s", run.ID, run.Outcome, run.Error)
			}
			return nil
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}
