package adsynccmd

import (
	"fmt"
	"path/filepath"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/spf13/cobra"
)

// demoDir holds the zero-config demo's persistent state (git-ignored).
const demoDir = ".adsync"

func (a *app) runCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Run one full pipeline pass now; with no database configured, start a local Postgres under .adsync/",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			url := a.cfg.DatabaseURL
			if url == "" {
				c, err := localpg.Start(ctx, localpg.Options{
					Dir: filepath.Join(demoDir, "pg"), Persistent: true, Durable: true,
					Logf: func(f string, args ...any) { a.log.Sugar().Infof(f, args...) },
				})
				if err != nil {
					return fmt.Errorf("starting the local Postgres: %w", err)
				}
				a.onClose(func() {
					if err := c.Stop(); err != nil {
						a.log.Sugar().Warnf("stopping the local Postgres: %v", err)
					}
				})
				url = c.URL("postgres")
				fmt.Fprintf(a.stdout, "local Postgres: %s (data kept in %s)\n", url, c.Dir())
			}
			pool, err := a.connect(ctx, url)
			if err != nil {
				return err
			}
			if err := a.migrate(ctx, pool); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, "The sync pipeline is not wired yet: this build sets up and migrates the database only.")
			return nil
		},
	}
}
