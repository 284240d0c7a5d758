package jobs

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// statusListCap is how many accounts no token reaches status names before
// "... and N more".
const statusListCap = 20

// WriteStatus writes what adsync status shows: the limit most recent runs
// with counts and outcomes, the queues' depth by state, the limit latest
// failed, cancelled and discarded jobs, and the stored accounts no usable
// user's token reaches.
func WriteStatus(ctx context.Context, pool *pgxpool.Pool, limit int, out io.Writer) error {
	st, err := store.ReadStatus(ctx, pool, limit)
	if err != nil {
		return err
	}
	unreached, err := access.Unreached(ctx, pool)
	if err != nil {
		return fmt.Errorf("status: reading the accounts no token reaches: %w", err)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	writeRuns(w, st.Runs)
	fmt.Fprintln(w, "\nQUEUES")
	fmt.Fprintln(w, "QUEUE\tSTATE\tJOBS")
	for _, q := range st.Queues {
		fmt.Fprintf(w, "%s\t%s\t%d\n", q.Queue, q.State, q.Jobs)
	}
	if len(st.Queues) == 0 {
		fmt.Fprintln(w, "(empty)")
	}
	writeFailedJobs(w, st.Failed)
	if len(unreached) > 0 {
		fmt.Fprintln(w, "\nACCOUNTS NO TOKEN REACHES")
		for _, id := range unreached[:min(len(unreached), statusListCap)] {
			fmt.Fprintln(w, id)
		}
		if n := len(unreached) - statusListCap; n > 0 {
			fmt.Fprintf(w, "... and %d more\n", n)
		}
		fmt.Fprintln(w, "adsync auth list shows which users reach what; adsync auth add adds tokens")
	}
	return w.Flush()
}

// writeRuns writes status's table of recent runs.
func writeRuns(w io.Writer, runs []store.RunSummary) {
	fmt.Fprintln(w, "RECENT RUNS")
	fmt.Fprintln(w, "ID\tPIPELINE\tTRIGGER\tSTARTED\tDURATION\tOUTCOME\tCOUNTS")
	for _, r := range runs {
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
	if len(runs) == 0 {
		fmt.Fprintln(w, "(none)")
	}
}

// writeFailedJobs writes status's table of failed, cancelled and
// discarded jobs.
func writeFailedJobs(w io.Writer, failed []store.FailedJob) {
	fmt.Fprintln(w, "\nFAILED JOBS (retryable, cancelled, discarded)")
	fmt.Fprintln(w, "ID\tKIND\tQUEUE\tSTATE\tATTEMPT\tAT\tLAST ERROR")
	for _, f := range failed {
		last := oneLine(f.LastError)
		if last == "" {
			last = "(no error recorded)"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", f.ID, f.Kind, f.Queue, f.State, f.Attempt, f.MaxAttempts,
			f.At.UTC().Format("2006-01-02 15:04:05Z"), last)
	}
	if len(failed) == 0 {
		fmt.Fprintln(w, "(none)")
	}
}

// oneLine is an error as one line of at most 200 bytes, for a listing.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
