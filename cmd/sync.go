package adsynccmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/store"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// syncCommand is `adsync sync`: record a run and queue it, or with --wait
// work it here until it finishes.
func (a *app) syncCommand() *cobra.Command {
	var (
		accounts, entities []string
		full, wait         bool
	)
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Sync every advertising entity of the accounts into Postgres",
		Long: `Record a sync run and queue it. A worker (adsync worker) picks it up; with --wait
this process works the run itself, shows progress on a terminal, prints a summary per
entity and exits 1 if any unit failed. Incremental unless --full: each entity resumes
from its bookmark minus sync.overlap where the service can sort by updated_at.

Entities: ` + strings.Join(ads.Names(), ", ") + ".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names, err := ads.ParseNames(splitList(entities))
			if err != nil {
				return usageError("sync: --entities: %v", err)
			}
			args := jobs.SyncRunArgs{AccountIDs: splitList(accounts), Entities: names, Full: full, Trigger: "manual"}
			return a.sync(cmd.Context(), args, wait)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&accounts, "accounts", nil, "account ids to sync, comma-separated (default: every account of the user)")
	f.StringSliceVar(&entities, "entities", nil, "entities to sync, comma-separated (default: all)")
	f.BoolVar(&full, "full", false, "page everything instead of stopping at the bookmarks; refresh reference data")
	f.BoolVar(&wait, "wait", false, "work the run in this process and print a summary when it finishes")
	return cmd
}

func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (a *app) sync(ctx context.Context, args jobs.SyncRunArgs, wait bool) error {
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	if err := a.checkAccounts(ctx, deps, "--accounts", args.AccountIDs); err != nil {
		return err
	}
	id, err := jobs.CreateSyncRun(ctx, deps, args)
	if err != nil {
		return err
	}
	args.RunID = id
	stop, err := a.queueRun(ctx, deps, "sync", id, args, wait)
	if err != nil || stop == nil {
		return err
	}
	defer stop()
	run, err := a.waitRun(ctx, deps, id)
	if err != nil {
		return err
	}
	printSummary(a.stdout, run)
	if run.Outcome != "succeeded" {
		return runFailure(ctx, deps, run)
	}
	return nil
}

// waitRun polls the run until it finishes, drawing a progress line on a
// terminal.
func (a *app) waitRun(ctx context.Context, deps *jobs.Deps, id int64) (store.Run, error) {
	tty := false
	if f, ok := a.stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		run, err := store.GetRun(ctx, deps.Pool, id)
		if err != nil {
			return run, err
		}
		if tty {
			var units, open int
			var fetched int64
			for _, e := range run.Entities {
				units += e.Units
				open += e.Open
				fetched += e.Fetched
			}
			fmt.Fprintf(a.stderr, "\rsync run %d: %d/%d units done, %d records fetched ", id, units-open, units, fetched)
		}
		if run.Outcome != "running" {
			if tty {
				fmt.Fprintln(a.stderr)
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

// printSummary writes one line per entity and a total; deleted counts the
// tombstones written (records that arrived deleted or vanished for good).
func printSummary(out io.Writer, run store.Run) {
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
