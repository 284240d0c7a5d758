package adsynccmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/insights"
	"github.com/spf13/cobra"
)

// demoDir holds the zero-config demo's persistent state (git-ignored).
const demoDir = ".adsync"

// demoAudience is the custom audience the demo uploads the sample CRM file to.
const demoAudience = "adsync demo CRM"

// demoKeywords is the keyword set the demo looks up when none is configured:
// the fake's alone, never a configured service's.
var demoKeywords = insights.KeywordSet{Name: "demo", Keywords: []string{"running shoes", "trail shoes"},
	NegativeKeywords: []string{"used"}, Granularity: "DAY"}

func (a *app) runCommand() *cobra.Command {
	var full, demo bool
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one full pipeline pass now: sync, audience upload, insights, posts, analytics, export",
		Long: `Run one full pipeline pass: sync every advertising entity, run each configured audience
(audiences: in the file, as 'adsync audience sync NAME --wait' does; without any, the demo
uploads the sample CRM file to a demo audience of the fake), fetch keyword insights and v2
posts, pull the analytics of the active entities over the trailing stats.lookback, and
export everything to Parquet.

With nothing configured it is the demo: it starts a local PostgreSQL under .adsync/
(kept between runs) and the fake service in this process with generated data.
Configure the service (see docs/real-service.md) and it runs against it, in the configured
database or the local one. A configured database with no service configured is an
error: the fake's data goes into it only with --demo. Keyword insights are those of
insights.keyword_sets; the demo's own set is looked up only against the fake.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runPass(cmd.Context(), full, demo) },
	}
	cmd.Flags().BoolVar(&full, "full", false, "sync every record, not only what changed since the last run")
	cmd.Flags().BoolVar(&demo, "demo", false, "run against the fake service even when a database or the service is configured")
	return cmd
}

// runPass is `adsync run`.
func (a *app) runPass(ctx context.Context, full, demo bool) error {
	start := time.Now()
	mode, err := decideRunMode(a.cfg, demo)
	if err != nil {
		return err
	}
	if err := a.demoEnvironment(ctx, mode); err != nil {
		return err
	}
	fakeUsed := mode.fakeService
	pool, err := a.connectToMigrate(ctx)
	if err != nil {
		return err
	}
	if err := a.migrate(ctx, pool); err != nil {
		return err
	}

	step := func(n int, what string) { fmt.Fprintf(a.stdout, "\n== %d/6 %s\n", n, what) }
	step(1, "sync every advertising entity")
	if err := a.sync(ctx, jobs.SyncRunArgs{Full: full, Trigger: "run"}, true); err != nil {
		return err
	}

	if err := a.runPassAudiences(ctx, fakeUsed, step); err != nil {
		return err
	}

	step(3, "fetch keyword insights")
	if err := a.runInsights(ctx, fakeUsed); err != nil {
		return err
	}

	step(4, "fetch v2 posts of the synced advertising posts")
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	if err := a.postsFetchWait(ctx, deps, jobs.PostsFetchArgs{FromAds: true, FromConfig: len(a.cfg.Posts.IDs) > 0, Trigger: "run"}); err != nil {
		return err
	}

	step(5, "pull performance analytics of the active entities (the trailing "+spanWords(time.Duration(a.cfg.Stats.Lookback))+")")
	if err := a.statsSync(ctx, jobs.StatsArgs{Trigger: "run"}, true); err != nil {
		return err
	}

	out := a.cfg.Export.Out
	step(6, "export to Parquet in "+out)
	res, err := export.Run(ctx, pool, export.Options{Out: out, Trigger: "run"})
	if err != nil {
		return err
	}
	if err := printExport(a, res); err != nil {
		return err
	}

	fmt.Fprintf(a.stdout, "\nDone in %s.\n", time.Since(start).Round(100*time.Millisecond))
	globals, note := a.passedGlobals()
	fmt.Fprint(a.stdout, nextSteps(a.cfg.Export.Out, globals, note, demo, fakeUsed))
	if fakeUsed {
		fmt.Fprintln(a.stdout, "\nThis pass ran against the fake service. Set ADSYNC_API_URL, ADSYNC_ADS_URL and the credentials (see docs/real-service.md) to use the real one.")
	}
	return nil
}

// runPassAudiences is adsync run's second step: each configured audience
// (audiences: in the file) runs as `adsync audience sync NAME --wait` runs
// it, in the order of their names; a refused one fails the pass, with
// nothing sent to it. With none configured, the demo uploads the sample
// CRM file to the fake, and a real service's audiences are left alone.
func (a *app) runPassAudiences(ctx context.Context, fakeUsed bool, step func(int, string)) error {
	names := a.cfg.AudienceNames()
	switch {
	case len(names) > 0:
		step(2, "sync the configured audiences ("+strings.Join(names, ", ")+")")
	case fakeUsed:
		step(2, "upload the sample CRM file to a custom audience")
		return a.demoUpload(ctx)
	default:
		step(2, "audience upload")
		fmt.Fprintln(a.stdout, "skipped: audience uploads change a real audience; configure them under audiences: in the configuration "+
			"file (see docs/audiences.md), or use adsync audience upload")
		return nil
	}
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	defs := a.cfg.Definitions()
	for _, name := range names {
		fmt.Fprintf(a.stdout, "audience %s:\n", name)
		// Its errors name the audience (audience.Sync's do).
		if err := a.syncAudience(ctx, deps, defs[name], syncFlags{wait: true}); err != nil {
			return err
		}
	}
	return nil
}

// nextSteps is what adsync run suggests trying next: commands that run as
// printed, in a shell in the current directory (their descriptions are
// shell comments), each ending by itself or on Ctrl-C.
// globals are the global flags adsync run was given that the commands need
// too, note a comment to print before them; demo is its --demo; fake says
// the pass ran against the fake service (against the real one, no step
// names the demo's sample file or the fake).
func nextSteps(out, globals, note string, demo, fake bool) string {
	self := selfCommand()
	var b strings.Builder
	b.WriteString("\nWhat to try next (from this directory; each line runs as printed):\n")
	if note != "" {
		fmt.Fprintf(&b, "  # %s\n", note)
	}
	line := func(cmd, what string) {
		fmt.Fprintf(&b, "  %-48s # %s\n", cmd, what)
	}
	again := self + " run" + globals
	if demo {
		again += " --demo"
	}
	line(self+" status"+globals, "recent runs, queues, failures")
	line(self+" db"+globals+" -- -c "+shellQuote(runsQuery), "the same runs with psql; adsync db alone opens a session")
	if fake {
		line(again, "again: the sync is incremental, the same CRM file is skipped")
	} else {
		line(again, "again: the sync is incremental")
	}
	line(self+" export --out "+shellQuote(out)+" --full"+globals, "every row again, not only what changed")
	if q := duckdbCommand(out); q != "" {
		fmt.Fprintf(&b, "  # the current campaigns by status, read from the Parquet files with DuckDB:\n  %s\n", q)
	}
	line(self+" worker --http-addr 127.0.0.1:0"+globals, "the daemon: schedules; the runs page at the http:// URL it prints, River's UI at /riverui/; Ctrl-C stops it")
	if fake {
		line(self+" fixtures serve --addr 127.0.0.1:0", "the fake service on its own, to point any client at; Ctrl-C stops it")
	}
	return b.String()
}

// runsQuery is the query the next steps suggest running with adsync db.
const runsQuery = "select pipeline, outcome, count(*) from sync_runs group by 1, 2 order by 1, 2"

// passedGlobals is the --config and --database-url adsync was given, as
// flags to repeat. A database URL holding a password is never printed:
// note then asks for it in ADSYNC_DATABASE_URL instead.
func (a *app) passedGlobals() (flags, note string) {
	if a.configFile != "" {
		flags += " --config " + shellQuote(a.configFile)
	}
	if a.databaseURL != "" {
		if u, err := url.Parse(a.databaseURL); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				return flags, "first: export ADSYNC_DATABASE_URL=<the --database-url given to this run> (its password is not printed)"
			}
		}
		flags += " --database-url " + shellQuote(a.databaseURL)
	}
	return flags, ""
}

// duckdbCommand is a command querying the export in out with DuckDB: the
// Makefile's duckdb target (DuckDB's Node API, installed on first use) in
// the repository's root, else the DuckDB CLI when installed; empty when
// neither is at hand.
func duckdbCommand(out string) string {
	if export.IsObjectStore(out) {
		return "" // DuckDB reads a bucket only through its httpfs extension and its own credentials setup
	}
	if strings.HasPrefix(out, "file://") {
		if loc, err := export.ParseOutput(out); err == nil {
			out = loc
		}
	}
	if strings.ContainsAny(out, "\"'$`\\") {
		return ""
	}
	sql := "SELECT entity_status, count(*) FROM (FROM '" + filepath.ToSlash(filepath.Join(out, "campaigns")) +
		"/*/*.parquet' QUALIFY _export_run = max(_export_run) OVER (PARTITION BY account_id, id)) GROUP BY 1 ORDER BY 1"
	if mk, err := os.ReadFile("Makefile"); err == nil && bytes.Contains(mk, []byte("\nduckdb:")) {
		return `make duckdb SQL="` + sql + `"`
	}
	if _, err := exec.LookPath("duckdb"); err == nil {
		return `duckdb -c "` + sql + `"`
	}
	return ""
}

// selfCommand is how to run this adsync from the current directory, as it
// was invoked (see invokedAs).
func selfCommand() string {
	wd, _ := os.Getwd()
	exe, _ := os.Executable()
	return invokedAs(os.Args[0], wd, exe, exec.LookPath)
}

// invokedAs is the command that runs the binary exe again from wd, given
// the arg0 it was invoked by: the path typed when arg0 holds a path
// separator (relative as typed when it leads to exe from wd, else exe's
// absolute path), the plain name when the shell found it on PATH
// (lookPath). A binary go run or go test built in a temporary directory
// is gone once it ends: the build of make run (./bin/adsync) stands in
// for it, else the plain name adsync.
func invokedAs(arg0, wd, exe string, lookPath func(string) (string, error)) string {
	switch {
	case exe == "" || builtByGo(exe):
	case !strings.ContainsRune(arg0, '/') && !strings.ContainsRune(arg0, filepath.Separator):
		if p, err := lookPath(arg0); err == nil && sameFile(p, exe) {
			return shellQuote(arg0)
		}
		return shellQuote(exe)
	case filepath.IsAbs(arg0) && sameFile(arg0, exe):
		return shellQuote(arg0)
	case !filepath.IsAbs(arg0) && wd != "" && sameFile(filepath.Join(wd, arg0), exe):
		return shellQuote(arg0)
	default:
		return shellQuote(exe)
	}
	if st, err := os.Stat(filepath.Join(wd, "bin", "adsync")); err == nil && st.Mode().IsRegular() {
		return "./bin/adsync"
	}
	return "adsync"
}

// builtByGo says whether exe is a binary go run or go test built in its
// temporary work directory (go-build*).
func builtByGo(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// sameFile says whether paths a and b name the same existing file.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// demoEnvironment starts what mode asks for: a local Postgres under .adsync/
// and the fake service in this process.
func (a *app) demoEnvironment(ctx context.Context, mode runMode) error {
	if mode.localDatabase {
		if !demoDatabaseHere() {
			fmt.Fprintf(a.stdout, "creating a local Postgres in %s/ (once: it is kept between runs)\n", demoPGDir)
		}
		c, err := a.startLocalPostgres(ctx)
		if err != nil {
			return err
		}
		how := "started for this run and stopped when the last adsync command using it ends; commands run in this directory start it again"
		if !c.StartedHere() {
			how = "already running"
		}
		fmt.Fprintf(a.stdout, "local Postgres: %s/ (%s)\n", demoPGDir, how)
	}
	if !mode.fakeService {
		return nil
	}
	apiURL, adsURL, how, err := a.startFake(ctx)
	if err != nil {
		return err
	}
	opts := fixtures.DefaultOptions()
	fmt.Fprintf(a.stdout, "fake service: %s (ads %s), %d accounts generated from seed %d (%s)\n", apiURL, adsURL, opts.Accounts, opts.Seed, how)
	return nil
}

// sampleCRMPath is the sample CRM file in the repository, uploaded by the
// demo when run from the repository's root.
var sampleCRMPath = filepath.Join("fixtures", "sample", "crm.csv")

// demoUpload uploads the sample CRM file to the demo audience of the first
// synced account, creating the audience the first time.
func (a *app) demoUpload(ctx context.Context) error {
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	live, err := ads.LiveAccounts(ctx, deps.Pool)
	if err != nil {
		return err
	}
	if len(live) == 0 {
		return errors.New("no synced account to upload to")
	}
	account := live[0]
	file, name, err := a.sampleCRM()
	if err != nil {
		return err
	}
	uf := &uploadFlags{account: account, sourceFlags: sourceFlags{in: file}, display: name, op: audience.OperationUpdate, mode: audience.ModeAdd, wait: true,
		hf: defaultHashFlags(), trigger: "run"}
	// The demo's fake keeps the audiences earlier runs created: such an
	// audience is named as the earlier run's.
	created, err := audience.CreatedAudiences(ctx, deps.Pool)
	if err != nil {
		return err
	}
	var earlier *string
	for _, c := range created {
		if c.AccountID == account && c.Name == demoAudience {
			earlier = &c.ID
		}
	}
	o := audience.PlanOptions{AccountID: account, Path: file, Operation: uf.op, Mode: uf.mode}
	id, _, err := audience.CreateForUpload(ctx, deps.Pool, deps.API, demoAudience, o)
	var dup *audience.DuplicateNameError
	switch {
	case errors.As(err, &dup) && dup.ExistingID != "":
		id = dup.ExistingID
		fmt.Fprintf(a.stdout, "custom audience %s (%q) in account %s\n", id, demoAudience, account)
	case err != nil:
		return err
	case earlier != nil && *earlier == id:
		fmt.Fprintf(a.stdout, "custom audience %s (%q) in account %s, created by an earlier run\n", id, demoAudience, account)
	default:
		fmt.Fprintf(a.stdout, "created custom audience %s (%q) in account %s\n", id, demoAudience, account)
	}
	uf.audienceID = id
	return a.audienceUpload(ctx, uf)
}

// sampleCRM returns the sample CRM file to upload and the name to show for
// it: the repository's fixtures/sample/crm.csv when run from the
// repository's root, else a temporary copy of the one built in.
func (a *app) sampleCRM() (file, name string, err error) {
	if st, err := os.Stat(sampleCRMPath); err == nil && st.Mode().IsRegular() {
		return sampleCRMPath, sampleCRMPath, nil
	}
	f, err := os.CreateTemp("", "adsync-sample-crm-*.csv")
	if err != nil {
		return "", "", err
	}
	file = f.Name()
	a.onClose(func() { _ = os.Remove(file) })
	if _, err := f.Write(fixtures.SampleCRM); err != nil {
		_ = f.Close()
		return "", "", err
	}
	if err := f.Close(); err != nil {
		return "", "", err
	}
	return file, "the sample CRM file (" + filepath.ToSlash(sampleCRMPath) + ", built in)", nil
}

// insightsNotConfigured is the insights step of adsync run against a
// configured service with no keyword set configured.
const insightsNotConfigured = "skipped: no keyword sets configured; list them under insights.keyword_sets " +
	"in the configuration file (see docs/configuration.md)"

// runInsights looks up the configured keyword sets over the last week.
// Against the fake with none configured it looks up the demo's set; against
// a configured service with none it says the step is skipped and how to
// configure one: a service's quota is never spent on the demo's keywords.
func (a *app) runInsights(ctx context.Context, fakeUsed bool) error {
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	sets := deps.Insights.Sets
	if len(sets) == 0 && !fakeUsed {
		fmt.Fprintln(a.stdout, insightsNotConfigured)
		return nil
	}
	if len(sets) == 0 {
		sets = []insights.KeywordSet{demoKeywords}
	}
	r := &insights.Runner{Client: deps.API, Pool: deps.Pool}
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.Name
	}
	rep, err := insights.Recorded(ctx, deps.Pool, "run", map[string]any{"sets": names, "lookback": "168h0m0s"}, func(ctx context.Context) (insights.Report, error) {
		return r.RunLookback(ctx, sets, 7*24*time.Hour)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d keyword sets, %d windows, %d requests, %d volume buckets stored\n", rep.Sets, rep.Windows, rep.Requests, rep.Buckets)
	return nil
}

// spanWords says a span the way people do: whole days as days, else Go's
// form (36h0m0s).
func spanWords(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == day:
		return "day"
	case d > 0 && d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	}
	return d.String()
}
