package migrations

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"
)

// String says what the Migrate call applied, for a person.
func (r Result) String() string {
	if len(r.River)+len(r.App) == 0 {
		return "database is up to date"
	}
	return fmt.Sprintf("applied %d River and %d adsync migrations", len(r.River), len(r.App))
}

// WriteStatus writes every version of River's and adsync's migrations to
// w, applied or pending, as a table, then how many are pending.
func WriteStatus(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger, w io.Writer) error {
	vs, err := Status(ctx, pool, logger)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMPONENT\tVERSION\tNAME\tSTATE\tAPPLIED AT")
	for _, v := range vs {
		state, at := "pending", ""
		if v.Applied {
			state = "applied"
			if !v.AppliedAt.IsZero() {
				at = v.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", v.Component, v.Version, v.Name, state, at)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d pending\n", Pending(vs))
	return nil
}
