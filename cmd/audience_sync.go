package adsynccmd

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/spf13/cobra"
)

// syncFlags are the flags of audience sync.
type syncFlags struct {
	dryRun, force, wait bool
}

func (a *app) audienceSyncCommand() *cobra.Command {
	var sf syncFlags
	cmd := &cobra.Command{
		Use:   "sync NAME",
		Short: "Run a configured audience (audiences: in the configuration) now: plan its source against the audience and queue the batches",
		Long: `Run the audience configured under NAME now, as its schedule does: read its source (a
file, or a SQL query), create the audience the first time when it says create:, print the
plan, record the run and queue its batches. A replace plans against the members adsync
knows the audience holds: an unchanged source sends nothing; one that would delete more
than its max_delete is refused: nothing is sent and the run is recorded failed with the plan
in its error (adsync status shows it). So is a source, in either mode, with more invalid
rows than 1% or without a valid user (an empty query result is taken for a broken query),
and a query not read within audience.query_timeout.

A run waits while an earlier upload to the audience is still being sent.

--dry-run prints the plan and whether it would be refused (exit 1), and records, creates and
sends nothing. --force sends a replace beyond its max_delete (look at --dry-run first).
Without --wait the batches are left to 'adsync worker'; with --wait this process sends them
and ends with a report.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.audienceSync(cmd.Context(), args, sf)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&sf.dryRun, "dry-run", false, "print the plan and whether it would be refused; record, create and send nothing")
	f.BoolVar(&sf.force, "force", false, "let a replace delete more than its max_delete")
	f.BoolVar(&sf.wait, "wait", false, "send the batches in this process and wait for the report")
	return cmd
}

func (a *app) audienceSync(ctx context.Context, args []string, sf syncFlags) error {
	names := a.cfg.AudienceNames()
	configured := "none is configured: see audiences: in docs/audiences.md"
	if len(names) > 0 {
		configured = "configured: " + strings.Join(names, ", ")
	}
	if len(args) != 1 {
		return usageError("audience sync: give the name of one configured audience (%s)", configured)
	}
	def, ok := a.cfg.Definitions()[args[0]]
	switch {
	case !ok:
		return usageError("audience sync: %q is not a configured audience (%s)", args[0], configured)
	case sf.dryRun && sf.wait:
		return usageError("audience sync: --dry-run sends nothing: drop --wait")
	}
	deps, err := a.pipeline(ctx)
	if err != nil {
		return fmt.Errorf("audience sync: %w", err)
	}
	return a.syncAudience(ctx, deps, def, sf)
}

// syncAudience runs the configured audience def now, as its schedule
// does: `adsync audience sync NAME` and each audience of `adsync run`.
func (a *app) syncAudience(ctx context.Context, deps *jobs.Deps, def audience.Definition, sf syncFlags) error {
	inserter, err := a.inserter(deps)
	if err != nil {
		return err
	}
	res, err := audience.Sync(ctx, deps.Pool, audience.SyncOptions{
		Definition: def, DryRun: sf.dryRun, Force: sf.force,
		Review: func(r *audience.PlanResult) {
			target := def.Target()
			if r.Upload != nil {
				target = r.Upload.AudienceID
			}
			writePlan(a.stdout, target, def.Mode, audience.OperationUpdate, r)
		},
		ClientFor: func(context.Context, string) (*api.Client, error) { return deps.API, nil },
		Enqueue:   jobs.AudienceEnqueuer(inserter), Workers: runtime.GOMAXPROCS(0),
	})
	if err != nil {
		return err
	}
	writeSyncResult(a.stdout, def, res, sf.dryRun)
	if !res.Sends() || sf.dryRun {
		return nil
	}
	if !sf.wait {
		fmt.Fprintln(a.stdout, "queued: 'adsync worker' sends the batches")
		return nil
	}
	return a.waitUpload(ctx, deps, res.Plan.Upload.ID)
}

// writeSyncResult says what a run of def did, after its plan.
func writeSyncResult(w io.Writer, def audience.Definition, res *audience.SyncResult, dryRun bool) {
	if res.Created {
		fmt.Fprintf(w, "created custom audience %s (%q) for audience %s\n", res.AudienceID, def.Create, def.Name)
	}
	p := res.Plan
	switch {
	case p.Outcome == audience.Previewed, p.Outcome == audience.Skipped && dryRun:
		fmt.Fprintln(w, "dry run: nothing recorded, created or sent")
	case p.Outcome == audience.Resumed && dryRun:
		fmt.Fprintf(w, "dry run: upload %d of the same source is unfinished; the same command without --dry-run resumes it\n", p.Upload.ID)
	case p.Outcome == audience.Skipped:
		fmt.Fprintf(w, "run %d: nothing to send: the same source was uploaded to audience %s as upload %d\n", res.RunID, res.AudienceID, p.Upload.ID)
	case p.Outcome == audience.Resumed:
		fmt.Fprintf(w, "run %d: resuming upload %d of the same source: batches already done are not sent again\n", res.RunID, p.Upload.ID)
	case p.Batches == 0:
		fmt.Fprintf(w, "run %d: nothing to send: audience %s already holds the source\n", res.RunID, res.AudienceID)
	default:
		fmt.Fprintf(w, "run %d: upload %d: %d rows read, %d invalid, %d adds and %d deletes in %d batches to audience %s\n",
			res.RunID, p.Upload.ID, p.Upload.RowsRead, p.Upload.RowsInvalid, p.Summary.Adds, p.Summary.Deletes, p.Batches, res.AudienceID)
	}
}
