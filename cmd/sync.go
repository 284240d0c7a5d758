package adsynccmd

import (
	"strings"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/spf13/cobra"
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
			return a.local().Sync(cmd.Context(), args, wait)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&accounts, "accounts", nil, "account ids to sync, comma-separated (default: every account of the user)")
	f.StringSliceVar(&entities, "entities", nil, "entities to sync, comma-separated (default: all)")
	f.BoolVar(&full, "full", false, "page everything instead of stopping at the bookmarks; refresh reference data")
	f.BoolVar(&wait, "wait", false, "work the run in this process and print a summary when it finishes")
	return cmd
}

// splitList splits comma-separated flag values into their trimmed,
// non-empty items.
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
