package adsynccmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
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
REGIONS:US, PLATFORM_VERSIONS:1), always through asynchronous jobs of at most 45 days.

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
			return a.statsSync(cmd.Context(), args, wait)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&accounts, "accounts", nil, "account ids, comma-separated (default: every account of the user)")
	f.StringSliceVar(&entities, "entities", nil, "entity types, comma-separated (default: stats.entities)")
	f.StringVar(&start, "start", "", "first day or time (default: today minus stats.lookback; earliest: the account's creation)")
	f.StringVar(&end, "end", "", "end day or time, exclusive (default and latest: now)")
	f.StringVar(&gran, "granularity", "", "DAY or HOUR (default: stats.granularity)")
	f.StringVar(&segmentation, "segmentation", "", "pull only this segmentation (AGE, GENDER, REGIONS:US, ...) through asynchronous jobs")
	f.BoolVar(&full, "full", false, "start at each account's creation instead of the lookback")
	f.BoolVar(&wait, "wait", false, "work the run in this process and print what it pulled")
	return cmd
}

// statsSync checks args (their span in each account's zone and their
// share of the active entities window too), then
// continues the open run the same arguments recorded (an interrupted --wait
// leaves one) or records a new one, queues it, and with wait works it until
// it ends.
func (a *app) statsSync(ctx context.Context, args jobs.StatsArgs, wait bool) error {
	req, err := args.Request()
	var set stats.Settings
	if err == nil {
		set, err = a.cfg.Stats.Settings().For(req)
	}
	if err != nil {
		return usageError("stats sync: %v", err)
	}
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	if err := a.checkAccounts(ctx, deps, "--accounts", args.AccountIDs); err != nil {
		return err
	}
	if err := a.checkStatsRequest(ctx, deps, req, set); err != nil {
		return err
	}
	id, open, err := stats.OpenRun(ctx, deps.Pool, args)
	if err != nil {
		return err
	}
	if open {
		fmt.Fprintf(a.stdout, "continuing stats run %d, which the same command left unfinished\n", id)
	} else if id, err = store.CreateRun(ctx, deps.Pool, jobs.PipelineStats, args.Trigger, args); err != nil {
		return err
	}
	args.RunID = id
	// An open run's job, still waiting, is the same job: inserting it
	// again adopts it (its args are unique while it is unfinished).
	stop, err := a.queueRun(ctx, deps, "stats", id, args, wait)
	if err != nil || stop == nil {
		return err
	}
	defer stop()
	return a.waitStatsRun(ctx, deps, id)
}

// checkStatsRequest refuses, before anything is recorded or queued, a span
// that can never be pulled for one of the accounts, or a run over its share
// of the active entities window (stats.Preflight, in each account's zone),
// and says in a line per account (at most maxClampLines) how a requested
// span was clamped to the account's life. When the accounts cannot be read
// the run goes ahead: the worker ends such an account with the same reason,
// and refuses such a run with the same figure.
func (a *app) checkStatsRequest(ctx context.Context, deps *jobs.Deps, req stats.Request, set stats.Settings) error {
	accounts, err := stats.Accounts(ctx, deps.API, req.AccountIDs)
	if err != nil {
		fmt.Fprintf(a.stderr, "adsync: could not check the span in the accounts' time zones (%v); going ahead\n", err)
		return nil
	}
	clamped, err := stats.Preflight(accounts, set, req, a.clock())
	for i, line := range clamped {
		if i == maxClampLines {
			fmt.Fprintf(a.stdout, "stats sync: %d more accounts' spans clamped to their lives\n", len(clamped)-i)
			break
		}
		fmt.Fprintf(a.stdout, "stats sync: %s\n", line)
	}
	if err != nil {
		return usageError("stats sync: %v", err)
	}
	return nil
}

// maxClampLines bounds the lines that say how spans were clamped.
const maxClampLines = 10

// waitStatsRun waits for run id to end and prints its report. An
// interrupt leaves the run open for the same command to continue.
func (a *app) waitStatsRun(ctx context.Context, deps *jobs.Deps, id int64) error {
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
			return a.statsReport(run)
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

// statsReport prints an ended run's report; a run that did not succeed is
// exit status 1.
func (a *app) statsReport(run stats.RunState) error {
	r := run.Report
	fmt.Fprintf(a.stdout, "accounts %d, account-days %d, active entities %d, requests %d (active entities %d, synchronous stats %d, asynchronous jobs %d), 429 answers %d, jobs %d, rows %d\n",
		r.Accounts, r.AccountDays, r.Active, r.ActiveRequests+r.Requests+r.JobRequests, r.ActiveRequests, r.Requests, r.JobRequests, r.RateLimited, r.Jobs, r.Rows)
	for _, m := range r.Missing {
		fmt.Fprintf(a.stdout, "missing: %s\n", m)
	}
	for _, e := range r.Empty {
		fmt.Fprintf(a.stdout, "not pulled: %s\n", e)
	}
	fmt.Fprintf(a.stdout, "stats run %d %s\n", run.ID, run.Outcome)
	if run.Outcome != store.RunSucceeded {
		return &exitCodeError{code: exitError, err: fmt.Errorf("stats run %d %s: %s", run.ID, run.Outcome, run.Error)}
	}
	return nil
}
