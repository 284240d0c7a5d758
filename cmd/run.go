package adsynccmd

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/adsync/adsync/cmd/internal/demo"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/insights"
	"github.com/spf13/cobra"
)

func (a *app) runCommand() *cobra.Command {
	var full, demoFlag bool
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
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runPass(cmd.Context(), full, demoFlag) },
	}
	cmd.Flags().BoolVar(&full, "full", false, "sync every record, not only what changed since the last run")
	cmd.Flags().BoolVar(&demoFlag, "demo", false, "run against the fake service even when a database or the service is configured")
	return cmd
}

// runPass is `adsync run`: it starts what the demo needs, migrates the
// database, runs the pass (jobs.Local.Pass) and suggests what to try next.
func (a *app) runPass(ctx context.Context, full, demoFlag bool) error {
	start := time.Now()
	mode, err := decideRunMode(a.cfg, demoFlag)
	if err != nil {
		return err
	}
	if err := a.demo.Start(ctx, &a.cfg, mode.localDatabase, mode.fakeService); err != nil {
		return err
	}
	pool, err := a.connectToMigrate(ctx)
	if err != nil {
		return err
	}
	if err := a.migrate(ctx, pool); err != nil {
		return err
	}
	pass, err := a.pass(full, mode.fakeService)
	if err != nil {
		return err
	}
	if err := a.local().Pass(ctx, pass); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nDone in %s.\n", time.Since(start).Round(100*time.Millisecond))
	globals, note := a.passedGlobals()
	fmt.Fprint(a.stdout, nextSteps(a.cfg.Export.Out, globals, note, demoFlag, mode.fakeService))
	if mode.fakeService {
		fmt.Fprintln(a.stdout, "\nThis pass ran against the fake service. Set ADSYNC_API_URL, ADSYNC_ADS_URL and the credentials (see docs/real-service.md) to use the real one.")
	}
	return nil
}

// pass is what adsync run's pass takes beyond the configuration: the
// configured audiences in the order of their names; against the fake
// (fake) with none configured the demo's sample CRM file to upload, and the
// demo's keyword set to look up when none is configured.
func (a *app) pass(full, fake bool) (jobs.Pass, error) {
	p := jobs.Pass{Full: full}
	defs := a.cfg.Definitions()
	for _, name := range a.cfg.AudienceNames() {
		p.Audiences = append(p.Audiences, defs[name])
	}
	if !fake {
		return p, nil
	}
	p.Keywords = []insights.KeywordSet{demo.Keywords}
	if len(p.Audiences) > 0 {
		return p, nil
	}
	file, name, err := a.demo.SampleCRM()
	if err != nil {
		return p, err
	}
	hf := defaultHashFlags()
	norm, ropts, err := hf.build("audience upload")
	if err != nil {
		return p, err
	}
	p.Sample = &jobs.AudienceUpload{Name: name, Wait: true, Plan: audience.PlanOptions{Path: file,
		Operation: audience.OperationUpdate, Mode: audience.ModeAdd, MaxInvalid: hf.maxInvalid, Normalizer: norm, Reader: ropts,
		Workers: runtime.GOMAXPROCS(0), Trigger: "run", QueryTimeout: time.Duration(a.cfg.Audience.QueryTimeout)}}
	p.SampleAudience = demo.Audience
	return p, nil
}
