package adsynccmd

import (
	"fmt"
	"strings"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/stats"
	"github.com/spf13/cobra"
)

// statsCommand is the parent of the analytics commands.
func (a *app) statsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "stats", Short: "Pull performance analytics into Postgres"}
	cmd.AddCommand(a.statsSyncCommand())
	return cmd
}

func (a *app) statsSyncCommand() *cobra.Command {
	var (
		accounts, entities []string
		start, end, gran   string
		segmentation       string
		full, wait         bool
	)
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Pull analytics of the accounts' active entities into Postgres",
		Long: `Record an analytics run and queue it; with --wait this process works it and prints
what it pulled. For each account and entity type the run asks which entities were active
in the span, then asks for the stats of those only (20 ids a request, only the placements
they ran on, over their activity), and stores each answer in one transaction that replaces
what an earlier run stored for the same ids and days.

The span defaults to the trailing stats.lookback (14 days) through today: spend and
conversions change after the fact, so every run pulls them again. --start and --end take
a date (2006-01-02: that day in each account's time zone) or an RFC 3339 time; --end is
exclusive. --full starts at each account's creation (a backfill). --segmentation TYPE
pulls only that segmentation (TYPE:VALUE for the types that need a country or platform:
REGIONS:96683cc9126741d1, PLATFORM_VERSIONS:1; a country is its location key, the
targeting_value of its COUNTRIES row in targeting_criteria_locations, kept as given),
always through asynchronous jobs of at most 45 days.

A span is clamped to each account's life: it starts no earlier than the account's creation
and ends no later than today in the account's time zone (the current hour for HOUR); a line
says so for each account whose --start or --end was moved.

A request that can never finish exits 2 before anything is queued: an --end at or before
the start, a start after an account's today in its own time zone, or an end before the
account's creation (each refused account is named with the two days), or a segmentation
type not among these:
` + strings.Join(stats.SegmentationTypes, ", ") + `.

So does a run that needs more active entities requests (one per account, entity type and
90 days of the clamped span) than stats.max_budget_share (default ` + fmt.Sprint(stats.DefaultMaxBudgetShare) + `) of the
` + fmt.Sprint(stats.ActiveBudget.Limit) + ` the endpoint takes in a ` + fmt.Sprint(stats.ActiveBudget.Window.Minutes()) + `-minute window, which every adsync process of the
user shares. The message gives the figure: pull a shorter span, fewer accounts or entity
types, or raise the share. The worker holds queued and scheduled runs to the same share.

Ctrl-C during --wait leaves the run open: run the same command again (same flags) and it
continues that run and its waiting jobs instead of starting another.

Entities: ` + strings.Join(stats.Entities, ", ") + ` (default ` + strings.Join(stats.DefaultEntities, ", ") + `).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			args := jobs.StatsArgs{AccountIDs: splitList(accounts), Entities: splitList(entities),
				Granularity: strings.ToUpper(gran), Segmentation: segmentation, Start: start, End: end, Full: full, Trigger: "manual"}
			if _, _, err := args.Check(a.cfg.Stats.Settings()); err != nil {
				return usageError("stats sync: %v", err)
			}
			return a.local().Stats(cmd.Context(), args, wait)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&accounts, "accounts", nil, "account ids, comma-separated (default: every account of the user)")
	f.StringSliceVar(&entities, "entities", nil, "entity types, comma-separated (default: stats.entities)")
	f.StringVar(&start, "start", "", "first day or time (default: today minus stats.lookback; earliest: the account's creation)")
	f.StringVar(&end, "end", "", "end day or time, exclusive (default and latest: now)")
	f.StringVar(&gran, "granularity", "", "DAY or HOUR (default: stats.granularity)")
	f.StringVar(&segmentation, "segmentation", "", "pull only this segmentation (AGE, GENDER, REGIONS:<country key>, ...) through asynchronous jobs")
	f.BoolVar(&full, "full", false, "start at each account's creation instead of the lookback")
	f.BoolVar(&wait, "wait", false, "work the run in this process and print what it pulled")
	return cmd
}
