package ads

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// WriteRunSummary writes an ended sync run for people: one line per
// entity and a total; deleted counts the tombstones written (records that
// arrived deleted or vanished for good).
func WriteRunSummary(out io.Writer, run store.Run) {
	// The table goes out in one write: tabwriter writes each cell on its
	// own, a system call each on an unbuffered stdout.
	w := bufio.NewWriter(out)
	defer w.Flush()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "entity\tfetched\tinserted\tupdated\tunchanged\tdeleted\tfailed units")
	var t store.EntityCounts
	for _, e := range run.Entities {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", e.Entity, e.Fetched, e.Inserted, e.Updated, e.Unchanged, e.Deleted, e.FailedUnits)
		t.Fetched += e.Fetched
		t.Inserted += e.Inserted
		t.Updated += e.Updated
		t.Unchanged += e.Unchanged
		t.Deleted += e.Deleted
		t.FailedUnits += e.FailedUnits
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%d\n", t.Fetched, t.Inserted, t.Updated, t.Unchanged, t.Deleted, t.FailedUnits)
	_ = tw.Flush()
	if len(run.InaccessibleAccounts) > 0 {
		fmt.Fprintf(w, "accounts no longer accessible to the user (not synced, records kept): %s\n", strings.Join(run.InaccessibleAccounts, ", "))
	}
	fmt.Fprintf(w, "sync run %d %s\n", run.ID, run.Outcome)
}

// Unreachable is what adsync says of an account id the user's account
// list does not hold: the service answers 404 both for an id that does not
// exist and for one these credentials may not see.
func Unreachable(id string) string {
	return fmt.Sprintf("account %s: not found, or these credentials cannot reach it", id)
}

// maxFailureLines bounds the failed units a failed run lists; adsync status
// and the run's record hold the rest.
const maxFailureLines = 20

// RunFailure describes a sync run that did not succeed: one line per
// account that is not in the account list (instead of one per entity of
// it), then one line per other failed unit.
func RunFailure(ctx context.Context, pool *pgxpool.Pool, run store.Run) error {
	failures, err := store.FailedUnits(ctx, pool, run.ID)
	if err != nil || len(failures) == 0 {
		return fmt.Errorf("sync run %d %s: %s", run.ID, run.Outcome, run.Error)
	}
	live, err := LiveAccounts(ctx, pool)
	if err != nil {
		return fmt.Errorf("sync run %d %s: %s", run.ID, run.Outcome, run.Error)
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
		head = append(head, fmt.Sprintf("%s (%d units failed)", Unreachable(id), unreachable[id]))
	}
	lines = append(head, lines...)
	if len(lines) > maxFailureLines {
		lines = append(lines[:maxFailureLines], fmt.Sprintf("... and %d more (adsync status)", len(lines)-maxFailureLines))
	}
	return fmt.Errorf("sync run %d %s: %d units failed:\n%s", run.ID, run.Outcome, len(failures), strings.Join(lines, "\n"))
}

// oneLine is an error as one line of at most 200 bytes, for a listing.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
