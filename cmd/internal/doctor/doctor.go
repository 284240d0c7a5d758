package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adsync/adsync/cmd/internal/config"
	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Clock offset thresholds. The service checks oauth_timestamp against its
// own clock and refuses a signed call outside a window (401 code 135); the
// fake's window is 5 minutes (fixtures.Options.TimestampWindow), the value
// commonly reported for the real service, which does not document it. Past
// ClockFail every signed call fails. Past ClockWarn the clock is not kept by
// NTP (which holds it within milliseconds) and will drift into the window:
// worth fixing before it breaks a nightly sync. The Date header has
// one-second resolution, so smaller offsets are noise.
const (
	ClockWarn = 30 * time.Second
	ClockFail = 5 * time.Minute
	// timeout bounds each check, so an unreachable host fails the check
	// instead of hanging doctor.
	timeout = 10 * time.Second
)

// Check outcomes.
const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "FAIL"
	statusSkip = "skip"
)

// check is one line of doctor's checks: what was checked, what was found
// and, unless it is ok, what to do.
type check struct {
	status, name, found, todo string
}

// Options are what doctor checks, and where it writes.
type Options struct {
	Config config.Config
	// Database returns the URL of adsync's database (the configured one,
	// or the demo's), "" when none is configured.
	Database func(ctx context.Context) (string, error)
	// APIConfig is the service client's configuration, with the user
	// token adsync auth login stored in pool's database (pool may be nil).
	APIConfig func(ctx context.Context, pool *pgxpool.Pool) (api.Config, error)
	// OnClose registers what to do when the command ends (close the pool).
	OnClose func(func())
	// TempDir is where an audience plan spools its users (os.TempDir()).
	TempDir string
	Out     io.Writer
}

// FailedError says how many checks failed.
type FailedError struct {
	Failed, Total int
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("doctor: %d of %d checks failed", e.Failed, e.Total)
}

// doctor is one run of Run.
type doctor struct {
	Options
}

// Run prints the configuration and the audiences, then runs every check
// and prints its line. It returns a *FailedError when any check failed.
func Run(ctx context.Context, o Options) error {
	d := doctor{o}
	pool, dbCheck := d.checkDatabase(ctx)
	if err := d.printConfigSources(ctx, pool); err != nil {
		return err
	}
	if err := d.printAudiences(); err != nil {
		return err
	}
	checks := []check{dbCheck}
	checks = append(checks, d.checkService(ctx, pool)...)
	checks = append(checks, d.checkExportFolder(ctx, pool))
	checks = append(checks, checkTempFolder(d.TempDir))
	checks = append(checks, d.checkAudiences(ctx, pool)...)
	return d.printChecks(checks)
}

// printChecks prints the checks' lines, then whether all passed.
func (d doctor) printChecks(checks []check) error {
	fmt.Fprintln(d.Out, "\nCHECKS")
	w := tabwriter.NewWriter(d.Out, 0, 4, 2, ' ', 0)
	failed := 0
	for _, c := range checks {
		fmt.Fprintf(w, "%s\t%s\t%s\n", c.status, c.name, strings.ReplaceAll(c.found, "\n", " "))
		if c.todo != "" {
			fmt.Fprintf(w, "\t\t-> %s\n", c.todo)
		}
		if c.status == statusFail {
			failed++
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return &FailedError{Failed: failed, Total: len(checks)}
	}
	fmt.Fprintln(d.Out, "\nall checks passed")
	return nil
}

// from says where a setting came from, for a check's advice.
func (d doctor) from(key string) string {
	return key + " (from " + d.Config.Origin(key) + ")"
}
