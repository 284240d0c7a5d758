package adsynccmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/store"
)

// unreachableAccount is what adsync says of an account id the user's
// account list does not hold: the service answers 404 both for an id that
// does not exist and for one these credentials may not see.
func unreachableAccount(id string) string {
	return fmt.Sprintf("account %s: not found, or these credentials cannot reach it", id)
}

// checkAccounts refuses account ids the user's account list does not hold,
// one line each, before a run queues a failing unit per entity for each.
// When the list cannot be read, the run goes ahead and says what failed.
func (a *app) checkAccounts(ctx context.Context, deps *jobs.Deps, flag string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	unknown, err := ads.UnknownAccounts(ctx, deps.API, ids)
	if err != nil {
		fmt.Fprintf(a.stderr, "adsync: could not check %s against the account list (%v); going ahead\n", flag, err)
		return nil
	}
	if len(unknown) == 0 {
		return nil
	}
	lines := make([]string, len(unknown))
	for i, id := range unknown {
		lines[i] = unreachableAccount(id)
	}
	if len(ids) == 1 {
		return usageError("%s: %s", flag, lines[0])
	}
	return usageError("%s: %d of %d accounts are not in the account list of these credentials (adsync api GET /12/accounts lists it):\n%s",
		flag, len(unknown), len(slices.Compact(slices.Sorted(slices.Values(ids)))), strings.Join(lines, "\n"))
}

// maxFailureLines bounds the failed units a failed run lists; adsync status
// and the run's record hold the rest.
const maxFailureLines = 20

// runFailure describes a sync run that did not succeed: one line per
// account that is not in the account list (instead of one per entity of
// it), then one line per other failed unit.
func runFailure(ctx context.Context, deps *jobs.Deps, run store.Run) error {
	failures, err := store.FailedUnits(ctx, deps.Pool, run.ID)
	if err != nil || len(failures) == 0 {
		return &exitCodeError{code: exitError, err: fmt.Errorf("sync run %d %s: %s", run.ID, run.Outcome, run.Error)}
	}
	live, err := ads.LiveAccounts(ctx, deps.Pool)
	if err != nil {
		return &exitCodeError{code: exitError, err: fmt.Errorf("sync run %d %s: %s", run.ID, run.Outcome, run.Error)}
	}
	var lines []string
	unreachable := map[string]int{}
	var order []string
	for _, f := range failures {
		if f.AccountID != "" && !slices.Contains(live, f.AccountID) {
			if unreachable[f.AccountID] == 0 {
				order = append(order, f.AccountID)
			}
			unreachable[f.AccountID]++
			continue
		}
		lines = append(lines, oneLine(f.Error))
	}
	var head []string
	for _, id := range order {
		head = append(head, fmt.Sprintf("%s (%d units failed)", unreachableAccount(id), unreachable[id]))
	}
	lines = append(head, lines...)
	if len(lines) > maxFailureLines {
		lines = append(lines[:maxFailureLines], fmt.Sprintf("... and %d more (adsync status)", len(lines)-maxFailureLines))
	}
	return &exitCodeError{code: exitError, err: fmt.Errorf("sync run %d %s: %d units failed:\n%s",
		run.ID, run.Outcome, len(failures), strings.Join(lines, "\n"))}
}
