package adsynccmd

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
)

func (a *app) statusCommand() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show recent runs with counts and outcomes, queue depth by state, and failed, cancelled and discarded jobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return usageError("status: --limit %d: must be at least 1", limit)
			}
			ctx := cmd.Context()
			pool, err := a.connect(ctx)
			if err != nil {
				return err
			}
			st, err := readStatus(ctx, pool, limit)
			if err != nil {
				return err
			}
			return printStatus(a, st)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "how many recent runs and failed, cancelled or discarded jobs to show (at least 1)")
	return cmd
}

// statusReport is what adsync status shows: the store's runs, queues and
// failed jobs, and the accounts no usable token reaches.
type statusReport struct {
	*store.Status
	// Unreached are the stored accounts no usable user's token reaches
	// (access.Unreached).
	Unreached []string
}

// readStatus reads everything adsync status shows.
func readStatus(ctx context.Context, pool *pgxpool.Pool, limit int) (*statusReport, error) {
	st, err := store.ReadStatus(ctx, pool, limit)
	if err != nil {
		return nil, err
	}
	unreached, err := access.Unreached(ctx, pool)
	if err != nil {
		return nil, fmt.Errorf("status: reading the accounts no token reaches: %w", err)
	}
	return &statusReport{Status: st, Unreached: unreached}, nil
}

func printStatus(a *app, st *statusReport) error {
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "RECENT RUNS")
	fmt.Fprintln(w, "ID\tPIPELINE\tTRIGGER\tSTARTED\tDURATION\tOUTCOME\tCOUNTS")
	for _, r := range st.Runs {
		dur := "running"
		if r.FinishedAt != nil {
			dur = r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Pipeline, r.Trigger, r.StartedAt.UTC().Format("2006-01-02 15:04:05Z"),
			dur, r.Outcome, r.CountsSummary())
		if r.Error != "" {
			fmt.Fprintf(w, "\t\t\t\t\terror:\t%s\n", oneLine(r.Error))
		}
	}
	if len(st.Runs) == 0 {
		fmt.Fprintln(w, "(none)")
	}
	fmt.Fprintln(w, "\nQUEUES")
	fmt.Fprintln(w, "QUEUE\tSTATE\tJOBS")
	for _, q := range st.Queues {
		fmt.Fprintf(w, "%s\t%s\t%d\n", q.Queue, q.State, q.Jobs)
	}
	if len(st.Queues) == 0 {
		fmt.Fprintln(w, "(empty)")
	}
	fmt.Fprintln(w, "\nFAILED JOBS (retryable, cancelled, discarded)")
	fmt.Fprintln(w, "ID\tKIND\tQUEUE\tSTATE\tATTEMPT\tAT\tLAST ERROR")
	for _, f := range st.Failed {
		last := oneLine(f.LastError)
		if last == "" {
			last = "(no error recorded)"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", f.ID, f.Kind, f.Queue, f.State, f.Attempt, f.MaxAttempts,
			f.At.UTC().Format("2006-01-02 15:04:05Z"), last)
	}
	if len(st.Failed) == 0 {
		fmt.Fprintln(w, "(none)")
	}
	if len(st.Unreached) > 0 {
		fmt.Fprintln(w, "\nACCOUNTS NO TOKEN REACHES")
		for _, id := range st.Unreached[:min(len(st.Unreached), listCap)] {
			fmt.Fprintln(w, id)
		}
		if n := len(st.Unreached) - listCap; n > 0 {
			fmt.Fprintf(w, "... and %d more\n", n)
		}
		fmt.Fprintln(w, "adsync auth list shows which users reach what; adsync auth add adds tokens")
	}
	return w.Flush()
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
