package adsynccmd

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/adsync/adsync/cmd/internal/logging"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
)

func (a *app) migrateCommand() *cobra.Command {
	var status bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply River's and adsync's migrations (idempotent; safe to run concurrently)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pool, err := a.connect(cmd.Context())
			if err != nil {
				return err
			}
			if status {
				return a.printMigrationStatus(cmd.Context(), pool)
			}
			return a.migrate(cmd.Context(), pool)
		},
	}
	cmd.Flags().BoolVar(&status, "status", false, "list applied and pending versions instead of migrating")
	return cmd
}

// connect opens this command's database (see database) and closes the
// pool when the command ends.
func (a *app) connect(ctx context.Context) (*pgxpool.Pool, error) {
	url, err := a.database(ctx)
	if err != nil {
		return nil, err
	}
	pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: 4})
	if err != nil {
		return nil, err
	}
	a.onClose(pool.Close)
	return pool, nil
}

func (a *app) migrate(ctx context.Context, pool *pgxpool.Pool) error {
	res, err := migrations.Migrate(ctx, pool, logging.Slog(a.log))
	if err != nil {
		return err
	}
	if len(res.River)+len(res.App) == 0 {
		fmt.Fprintln(a.stdout, "database is up to date")
		return nil
	}
	fmt.Fprintf(a.stdout, "applied %d River and %d adsync migrations\n", len(res.River), len(res.App))
	return nil
}

func (a *app) printMigrationStatus(ctx context.Context, pool *pgxpool.Pool) error {
	vs, err := migrations.Status(ctx, pool, logging.Slog(a.log))
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
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
	fmt.Fprintf(a.stdout, "%d pending\n", migrations.Pending(vs))
	return nil
}
