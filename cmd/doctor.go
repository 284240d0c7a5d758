package adsynccmd

import (
	"context"
	"errors"
	"os"

	"github.com/adsync/adsync/cmd/internal/doctor"
	"github.com/spf13/cobra"
)

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration, database, service, credentials, clock, export folder and audience sources",
		Long: `Print every setting with where its value came from (flag, environment, file:line or
default; secrets masked) and the configured audiences, then check, one line each: the
database is reachable and migrated; the service answers a call signed with these
credentials (OAuth 1.0a, GET /12/accounts); the app-only bearer token works (GET
/2/posts); this machine's clock agrees with the service's Date header (signed calls fail
past ` + doctor.ClockFail.String() + `, warned past ` + doctor.ClockWarn.String() + `); the export folder (export.out) is one adsync may write into; the
temporary folder (TMPDIR), where an audience plan keeps the keys of the users it has seen, takes a file; each
configured audience's source can be read (the file exists; a query parses and returns
identifier columns, run with LIMIT 0), sending nothing. Each line says ok, warn, FAIL or
skip, and what to do. Exit status 1 when any check fails.
Doctor runs no migration and leaves no file behind; it uses the bearer token cached
in the database when there is one (and caches one it obtains, as every command does).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return doctor.Run(cmd.Context(), doctor.Options{Config: a.cfg, Database: a.configuredDatabase, APIConfig: a.apiConfig,
				OnClose: a.onClose, TempDir: os.TempDir(), Out: a.stdout})
		},
	}
}

// configuredDatabase is this command's database (see database), "" when
// none is configured.
func (a *app) configuredDatabase(ctx context.Context) (string, error) {
	url, err := a.database(ctx)
	if errors.Is(err, errNoDatabase) {
		return "", nil
	}
	return url, err
}
