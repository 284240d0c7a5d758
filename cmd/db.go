package adsynccmd

import (
	"errors"

	"github.com/adsync/adsync/sync/store"
	"github.com/spf13/cobra"
)

func (a *app) dbCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "db [-- PSQL-ARGS...]",
		Short: "Open psql on the configured database, or on the demo's local Postgres",
		Long: `Open psql on adsync's database: the configured one (--database-url,
ADSYNC_DATABASE_URL or database_url), else the demo's local Postgres under
.adsync/pg/, started for the session when no other adsync command runs it.
Arguments after -- go to psql:

  adsync db -- -c 'select count(*) from sync_runs'

psql's exit status is adsync's. The password of a configured URL goes to psql
in its environment, never on its command line. psql comes with the PostgreSQL
client (Debian and Ubuntu: apt-get install postgresql-client).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return usageError("db: psql's arguments go after --, as in adsync db -- -c 'select 1'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			url, err := a.database(cmd.Context())
			if err != nil {
				return err
			}
			err = store.PSQL(store.PSQLSession{URL: url, Args: args, Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr})
			var exit *store.PSQLExitError
			if errors.As(err, &exit) {
				return &exitCodeError{code: exit.Code, err: err}
			}
			return err
		},
	}
}
