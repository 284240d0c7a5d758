package adsynccmd

import (
	"context"
	"strings"

	"github.com/adsync/adsync/jobs"
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

// audienceSync runs the configured audience args names (see
// jobs.Local.SyncAudience), after checking it is one.
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
	return a.local().SyncAudience(ctx, def, jobs.AudienceSync{DryRun: sf.dryRun, Force: sf.force, Wait: sf.wait})
}
