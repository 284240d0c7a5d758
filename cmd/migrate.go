package adsynccmd

import (
	"context"
	"fmt"
	"strings"

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
			pool, err := a.connectToMigrate(cmd.Context())
			if err != nil {
				return err
			}
			if status {
				return migrations.WriteStatus(cmd.Context(), pool, logging.Slog(a.log), a.stdout)
			}
			return a.migrate(cmd.Context(), pool)
		},
	}
	cmd.Flags().BoolVar(&status, "status", false, "list applied and pending versions instead of migrating")
	return cmd
}

// connect opens this command's database (see database), refusing one with
// pending migrations (see requireMigrated), and closes the pool when the
// command ends. Every command that uses adsync's tables opens it here or in
// pipeline.
func (a *app) connect(ctx context.Context) (*pgxpool.Pool, error) {
	return a.openDatabase(ctx, 4, true)
}

// connectToMigrate opens this command's database as it is: for the
// commands that migrate it themselves (adsync migrate, adsync run).
func (a *app) connectToMigrate(ctx context.Context) (*pgxpool.Pool, error) {
	return a.openDatabase(ctx, 4, false)
}

// openDatabase opens this command's database with a pool of maxConns,
// closed when the command ends; with migrated it refuses a database that
// has pending migrations.
func (a *app) openDatabase(ctx context.Context, maxConns int32, migrated bool) (*pgxpool.Pool, error) {
	url, err := a.database(ctx)
	if err != nil {
		return nil, err
	}
	pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: maxConns})
	if err != nil {
		return nil, err
	}
	a.onClose(pool.Close)
	if !migrated {
		return pool, nil
	}
	if err := requireMigrated(ctx, pool); err != nil {
		return nil, err
	}
	return pool, nil
}

// requireMigrated refuses a database with pending migrations, naming them:
// adsync's tables would be missing or out of date, and the command would
// fail on raw SQL instead.
func requireMigrated(ctx context.Context, pool *pgxpool.Pool) error {
	where := store.DatabaseName(pool)
	vs, err := migrations.Status(ctx, pool, nil)
	if err != nil {
		return fmt.Errorf("reading the migrations of %s: %w", where, err)
	}
	if pending := migrations.PendingNames(vs); len(pending) > 0 {
		return fmt.Errorf("%s has %d pending migrations (%s): run adsync migrate", where, len(pending), strings.Join(pending, ", "))
	}
	return nil
}

// migrate applies the migrations and says what it applied (adsync migrate,
// adsync run).
func (a *app) migrate(ctx context.Context, pool *pgxpool.Pool) error {
	res, err := migrations.Migrate(ctx, pool, logging.Slog(a.log))
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, res)
	return nil
}
