package adsynccmd

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/adsync/adsync/cmd/internal/config"
	"github.com/adsync/adsync/cmd/internal/demo"
	"github.com/adsync/adsync/cmd/internal/logging"
	"github.com/adsync/adsync/jobs"
	"github.com/spf13/cobra"
	"go.uber.org/zap"
)

// app is what every command shares: streams, configuration and logger.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	configFile  string
	logLevel    string
	databaseURL string
	cpuProfile  string // --cpuprofile: where this command's CPU profile goes

	cfg     config.Config
	log     *zap.Logger
	metrics *jobs.Metrics // set by the worker, so clients and workers record metrics
	deps    *jobs.Deps    // opened once by pipeline
	// demo is what the zero-config demo started for this command.
	demo   demo.Env
	closed []func()
	// now is the clock of the analytics span checks and workers (time.Now
	// when nil; tests pin it).
	now func() time.Time
}

// clock is the time now.
func (a *app) clock() time.Time {
	if a.now == nil {
		return time.Now()
	}
	return a.now()
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "adsync",
		Short:         "Sync an advertising and social-post API into Postgres and Parquet",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.startCPUProfile(); err != nil {
				return err
			}
			return a.load(cmd)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFile, "config", "", "YAML configuration file (env ADSYNC_CONFIG)")
	pf.StringVar(&a.logLevel, "log-level", "", "debug, info, warn or error (env ADSYNC_LOG_LEVEL; default info)")
	pf.StringVar(&a.databaseURL, "database-url", "", "Postgres connection URL (env ADSYNC_DATABASE_URL)")
	pf.StringVar(&a.cpuProfile, "cpuprofile", "", "write this command's CPU profile to `FILE` (read it with go tool pprof)")
	root.AddCommand(
		a.versionCommand(),
		a.configCommand(),
		a.migrateCommand(),
		a.runCommand(),
		a.syncCommand(),
		a.fixturesCommand(),
		a.exportCommand(),
		a.workerCommand(),
		a.statusCommand(),
		a.dbCommand(),
		a.doctorCommand(),
		a.authCommand(),
		a.apiCommand(),
		a.audienceCommand(),
		a.insightsCommand(),
		a.postsCommand(),
		a.statsCommand(),
		a.reportCommand(),
		a.mcpCommand(),
	)
	return root
}

// load builds the effective configuration and the logger.
func (a *app) load(cmd *cobra.Command) error {
	file := a.configFile
	if file == "" {
		file = os.Getenv("ADSYNC_CONFIG")
	}
	flags := map[string]string{}
	if cmd.Flags().Changed("log-level") {
		flags["log_level"] = a.logLevel
	}
	if cmd.Flags().Changed("database-url") {
		flags["database_url"] = a.databaseURL
	}
	cfg, err := config.Load(config.Source{File: file, Flags: flags})
	if err != nil {
		return err
	}
	a.cfg = cfg
	if err := jobs.ValidateSchedules(a.schedules()); err != nil {
		return err
	}
	log, err := logging.New(a.stderr, cfg.LogLevel)
	if err != nil {
		return err
	}
	a.log = log
	a.demo = demo.Env{Out: a.stdout, Err: a.stderr, Log: log, OnClose: a.onClose}
	for _, w := range config.UnknownEnv(os.Environ()) {
		fmt.Fprintf(a.stderr, "adsync: warning: %s\n", w)
	}
	return nil
}

// startCPUProfile starts the CPU profile --cpuprofile asks for; close
// writes it out.
func (a *app) startCPUProfile() error {
	if a.cpuProfile == "" {
		return nil
	}
	f, err := os.Create(a.cpuProfile)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	a.onClose(func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(a.stderr, "adsync: --cpuprofile: %v\n", err)
		}
	})
	return nil
}

// onClose registers cleanup run after the command, last registered first.
func (a *app) onClose(f func()) { a.closed = append(a.closed, f) }

func (a *app) close() {
	for i := len(a.closed) - 1; i >= 0; i-- {
		a.closed[i]()
	}
	a.closed = nil
	if a.log != nil {
		_ = a.log.Sync()
	}
}

// isCobraUsageError recognizes cobra's flag and argument errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument",
		"invalid argument", "accepts ", "requires at least", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
