package jobs

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/store"
)

// Sync is adsync sync: it records an advertising sync run of args and
// queues it. With wait this process works the run, draws its progress,
// writes a summary per entity and fails, naming the failed units, unless
// the run succeeded. Account ids the user's account list does not hold are
// refused first (an *InputError), before anything is recorded.
func (l *Local) Sync(ctx context.Context, args SyncRunArgs, wait bool) error {
	deps, err := l.Open(ctx)
	if err != nil {
		return err
	}
	if err := l.checkAccounts(ctx, deps, "--accounts", args.AccountIDs); err != nil {
		return err
	}
	id, err := CreateSyncRun(ctx, deps, args)
	if err != nil {
		return err
	}
	args.RunID = id
	stop, err := l.queueRun(ctx, deps, "sync", id, args, wait)
	if err != nil || stop == nil {
		return err
	}
	defer stop()
	run, err := l.waitSyncRun(ctx, deps, id)
	if err != nil {
		return err
	}
	ads.WriteRunSummary(l.Out, run)
	if run.Outcome != store.RunSucceeded {
		return ads.RunFailure(ctx, deps.Pool, run)
	}
	return nil
}

// waitSyncRun polls the run until it ends, drawing a progress line on
// Progress.
func (l *Local) waitSyncRun(ctx context.Context, deps *Deps, id int64) (store.Run, error) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		run, err := store.GetRun(ctx, deps.Pool, id)
		if err != nil {
			return run, err
		}
		if l.Progress != nil {
			var units, open int
			var fetched int64
			for _, e := range run.Entities {
				units += e.Units
				open += e.Open
				fetched += e.Fetched
			}
			fmt.Fprintf(l.Progress, "\rsync run %d: %d/%d units done, %d records fetched ", id, units-open, units, fetched)
		}
		if run.Outcome != store.RunRunning {
			if l.Progress != nil {
				fmt.Fprintln(l.Progress)
			}
			return run, nil
		}
		select {
		case <-ctx.Done():
			return run, ctx.Err()
		case <-tick.C:
		}
	}
}

// checkAccounts refuses account ids the user's account list does not hold
// (an *InputError naming flag, one line each), before a run queues a
// failing unit per entity for each. When the list cannot be read, the run
// goes ahead and Err says what failed.
func (l *Local) checkAccounts(ctx context.Context, deps *Deps, flag string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	unknown, err := ads.UnknownAccounts(ctx, deps.API, ids)
	if err != nil {
		fmt.Fprintf(l.Err, "adsync: could not check %s against the account list (%v); going ahead\n", flag, err)
		return nil
	}
	if len(unknown) == 0 {
		return nil
	}
	lines := make([]string, len(unknown))
	for i, id := range unknown {
		lines[i] = ads.Unreachable(id)
	}
	if len(ids) == 1 {
		return inputErrorf("%s: %s", flag, lines[0])
	}
	return inputErrorf("%s: %d of %d accounts are not in the account list of these credentials (adsync api GET /12/accounts lists it):\n%s",
		flag, len(unknown), len(slices.Compact(slices.Sorted(slices.Values(ids)))), strings.Join(lines, "\n"))
}
