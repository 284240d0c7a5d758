package adsynccmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
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

// demoKeywords is the keyword set the demo looks up when none is configured.
var demoKeywords = insights.KeywordSet{Name: "demo", Keywords: []string{"running shoes", "trail shoes"},
	NegativeKeywords: []string{"used"}, Granularity: "DAY"}

func (a *app) runCommand() *cobra.Command {
	var full, demo bool
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one full pipeline pass now: sync, audience upload, insights, posts, export",
		Long: `Run one full pipeline pass: sync every advertising entity, upload the sample CRM file
to a demo audience, fetch keyword insights and v2 posts, and export everything to Parquet.

With nothing configured it is the demo: it starts a local PostgreSQL under .adsync/
(kept between runs) and the fake service in this process with generated data.
Configure the service (see the README) and it runs against it, in the configured
database or the local one. A configured database with no service configured is an
error: the fake's data goes into it only with --demo.`,
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
	pool, err := a.connect(ctx, a.cfg.DatabaseURL)
	if err != nil {
		return err
	}
	if err := a.migrate(ctx, pool); err != nil {
		return err
	}

	step := func(n int, what string) { fmt.Fprintf(a.stdout, "\n== %d/5 %s\n", n, what) }
	step(1, "sync every advertising entity")
	if err := a.sync(ctx, jobs.SyncRunArgs{Full: full, Trigger: "run"}, true); err != nil {
		return err
	}

	step(2, "upload the sample CRM file to a custom audience")
	if err := a.demoUpload(ctx, fakeUsed); err != nil {
		return err
	}

	step(3, "fetch keyword insights")
	if err := a.demoInsights(ctx); err != nil {
		return err
	}

	step(4, "fetch v2 posts of the synced advertising posts")
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	if err := a.postsFetchWait(ctx, deps, jobs.PostsFetchArgs{FromAds: true, FromConfig: len(a.cfg.Posts.IDs) > 0}); err != nil {
		return err
	}

	out := a.cfg.Export.Out
	step(5, "export to Parquet in "+out)
	res, err := export.Run(ctx, pool, export.Options{Out: out, Trigger: "run"})
	if err != nil {
		return err
	}
	if err := printExport(a, res); err != nil {
		return err
	}

	fmt.Fprintf(a.stdout, "\nDone in %s.\n", time.Since(start).Round(100*time.Millisecond))
	fmt.Fprint(a.stdout, `
What to try next:
  adsync status                              recent runs, queues, failures
  adsync run                                 again: the sync is incremental, the same CRM file is skipped
  adsync export --out out --full             every row again, not only what changed
  duckdb -c "SELECT entity_status, count(*) FROM (FROM 'out/campaigns/*/*.parquet' QUALIFY _export_run = max(_export_run) OVER (PARTITION BY account_id, id)) GROUP BY 1"
  adsync worker                              the daemon: nightly schedules, /metrics on 127.0.0.1:9090
  adsync fixtures serve                      the fake service on its own, to point any client at
`)
	if fakeUsed {
		fmt.Fprintln(a.stdout, "\nThis pass ran against the fake service. Set ADSYNC_API_URL, ADSYNC_ADS_URL and the credentials (see the README) to use the real one.")
	}
	return nil
}

// demoEnvironment starts what mode asks for: a local Postgres under .adsync/
// and the fake service in this process.
func (a *app) demoEnvironment(ctx context.Context, mode runMode) error {
	if mode.localDatabase {
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
		a.cfg.DatabaseURL = c.URL("postgres")
		fmt.Fprintf(a.stdout, "local Postgres: %s (data kept in %s)\n", a.cfg.DatabaseURL, c.Dir())
	}
	if !mode.fakeService {
		return nil
	}
	opts := fixtures.DefaultOptions()
	srv := fixtures.New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("starting the fake service: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	a.onClose(func() { _ = hs.Close() })
	apiURL, adsURL, sandboxURL := srv.URLs("http://" + ln.Addr().String())
	a.cfg.API.URL, a.cfg.API.AdsURL, a.cfg.API.SandboxAdsURL = apiURL, adsURL, sandboxURL
	a.cfg.API.ConsumerKey, a.cfg.API.ConsumerSecret = opts.ConsumerKey, opts.ConsumerSecret
	a.cfg.API.AccessToken, a.cfg.API.AccessSecret = opts.OwnerToken, opts.OwnerSecret
	fmt.Fprintf(a.stdout, "fake service: %s (ads %s), %d accounts generated from seed %d\n", apiURL, adsURL, opts.Accounts, opts.Seed)
	return nil
}

// demoUpload uploads the sample CRM file to the demo audience of the first
// synced account, creating the audience the first time.
func (a *app) demoUpload(ctx context.Context, fakeUsed bool) error {
	if !fakeUsed {
		fmt.Fprintln(a.stdout, "skipped: audience uploads change a real audience; use adsync audience upload")
		return nil
	}
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
	f, err := os.CreateTemp("", "adsync-sample-crm-*.csv")
	if err != nil {
		return err
	}
	file := f.Name()
	a.onClose(func() { _ = os.Remove(file) })
	if _, err := f.Write(fixtures.SampleCRM); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	uf := &uploadFlags{account: account, in: file, op: audience.OperationUpdate, mode: audience.ModeAdd, wait: true}
	id, err := audience.CreateAudience(ctx, deps.API, account, demoAudience)
	var dup *audience.DuplicateNameError
	switch {
	case errors.As(err, &dup) && dup.ExistingID != "":
		id = dup.ExistingID
	case err != nil:
		return err
	default:
		fmt.Fprintf(a.stdout, "created custom audience %s (%q) in account %s\n", id, demoAudience, account)
	}
	uf.audienceID = id
	return a.audienceUpload(ctx, uf)
}

// demoInsights looks up the configured keyword sets (or a demo set) over
// the last week.
func (a *app) demoInsights(ctx context.Context) error {
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	sets := deps.Insights.Sets
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
