package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/insights"
)

// Pass is one full pipeline pass (adsync run): what its steps take
// beyond the configuration in Deps.
type Pass struct {
	// Full syncs every record, not only what changed since the last run.
	Full bool
	// Audiences are the configured audiences the second step syncs, in
	// order. With none, Sample (the demo's sample CRM file, its account and
	// audience left empty) is uploaded when set, else the step is skipped.
	Audiences []audience.Definition
	Sample    *AudienceUpload
	// SampleAudience names the custom audience Sample goes to, created in
	// the first synced account the first time.
	SampleAudience string
	// Keywords are looked up when no keyword set is configured (the demo's
	// own, against the fake alone); none: the step says it is skipped.
	Keywords []insights.KeywordSet
}

// Pass runs one full pipeline pass, each step through its job as a worker
// would run it, in this order: sync every advertising entity, the
// audiences, keyword insights, v2 posts, analytics, export. Each step
// starts with a "== n/6" line on Out and writes what its command writes;
// the first step that fails ends the pass with its error.
func (l *Local) Pass(ctx context.Context, p Pass) error {
	step := func(n int, what string) { fmt.Fprintf(l.Out, "\n== %d/6 %s\n", n, what) }
	step(1, "sync every advertising entity")
	if err := l.Sync(ctx, SyncRunArgs{Full: p.Full, Trigger: "run"}, true); err != nil {
		return err
	}
	deps, err := l.Open(ctx)
	if err != nil {
		return err
	}
	if err := l.passAudiences(ctx, deps, p, step); err != nil {
		return err
	}
	step(3, "fetch keyword insights")
	if err := l.passInsights(ctx, deps, p.Keywords); err != nil {
		return err
	}
	step(4, "fetch v2 posts of the synced advertising posts")
	if err := l.fetchPostsHere(ctx, deps, PostsFetchArgs{FromAds: true, FromConfig: len(deps.Posts.IDs) > 0, Trigger: "run"}); err != nil {
		return err
	}
	step(5, "pull performance analytics of the active entities (the trailing "+spanWords(deps.Stats.Lookback)+")")
	if err := l.Stats(ctx, StatsArgs{Trigger: "run"}, true); err != nil {
		return err
	}
	step(6, "export to Parquet in "+deps.ExportOut)
	var sum export.Summary
	if err := l.runJob(ctx, deps, ExportArgs{Out: deps.ExportOut, Trigger: "run"}, "export", &sum); err != nil {
		return err
	}
	return sum.WriteText(l.Out)
}

// passAudiences is the pass's second step: each configured audience runs
// as `adsync audience sync NAME --wait` runs it, in order; a refused one
// fails the pass, with nothing sent to it. With none configured, the demo
// uploads its sample, and a real service's audiences are left alone.
func (l *Local) passAudiences(ctx context.Context, deps *Deps, p Pass, step func(int, string)) error {
	switch {
	case len(p.Audiences) > 0:
		names := make([]string, len(p.Audiences))
		for i, d := range p.Audiences {
			names[i] = d.Name
		}
		step(2, "sync the configured audiences ("+strings.Join(names, ", ")+")")
	case p.Sample != nil:
		step(2, "upload the sample CRM file to a custom audience")
		return l.uploadSample(ctx, deps, *p.Sample, p.SampleAudience)
	default:
		step(2, "audience upload")
		fmt.Fprintln(l.Out, "skipped: audience uploads change a real audience; configure them under audiences: in the configuration "+
			"file (see docs/audiences.md), or use adsync audience upload")
		return nil
	}
	for _, def := range p.Audiences {
		fmt.Fprintf(l.Out, "audience %s:\n", def.Name)
		// Its errors name the audience (audience.Sync's do).
		if err := l.SyncAudience(ctx, def, AudienceSync{Wait: true}); err != nil {
			return err
		}
	}
	return nil
}

// uploadSample uploads u (the demo's sample) to the custom audience named
// name of the first synced account, creating the audience the first time.
func (l *Local) uploadSample(ctx context.Context, deps *Deps, u AudienceUpload, name string) error {
	live, err := ads.LiveAccounts(ctx, deps.Pool)
	if err != nil {
		return err
	}
	if len(live) == 0 {
		return errors.New("no synced account to upload to")
	}
	account := live[0]
	u.Plan.AccountID = account
	// The demo's fake keeps the audiences earlier runs created: such an
	// audience is named as the earlier run's.
	created, err := audience.CreatedAudiences(ctx, deps.Pool)
	if err != nil {
		return err
	}
	var earlier *string
	for _, c := range created {
		if c.AccountID == account && c.Name == name {
			earlier = &c.ID
		}
	}
	o := audience.PlanOptions{AccountID: account, Path: u.Plan.Path, Operation: u.Plan.Operation, Mode: u.Plan.Mode}
	id, _, err := audience.CreateForUpload(ctx, deps.Pool, deps.API, name, o)
	var dup *audience.DuplicateNameError
	switch {
	case errors.As(err, &dup) && dup.ExistingID != "":
		id = dup.ExistingID
		fmt.Fprintf(l.Out, "custom audience %s (%q) in account %s\n", id, name, account)
	case err != nil:
		return err
	case earlier != nil && *earlier == id:
		fmt.Fprintf(l.Out, "custom audience %s (%q) in account %s, created by an earlier run\n", id, name, account)
	default:
		fmt.Fprintf(l.Out, "created custom audience %s (%q) in account %s\n", id, name, account)
	}
	u.Plan.AudienceID = id
	return l.UploadAudience(ctx, u)
}

// insightsNotConfigured is the pass's insights step against a configured
// service with no keyword set configured.
const insightsNotConfigured = "skipped: no keyword sets configured; list them under insights.keyword_sets " +
	"in the configuration file (see docs/configuration.md)"

// passInsights is the pass's third step: the insights job over the
// configured keyword sets and insights.lookback. With none configured it
// looks up keywords (the demo's, against the fake), or says the step is
// skipped and how to configure a set: a service's quota is never spent on
// the demo's keywords.
func (l *Local) passInsights(ctx context.Context, deps *Deps, keywords []insights.KeywordSet) error {
	args := InsightsArgs{Trigger: "run"}
	if len(deps.Insights.Sets) == 0 {
		if len(keywords) == 0 {
			fmt.Fprintln(l.Out, insightsNotConfigured)
			return nil
		}
		// In full: a worker beside this process may take the job, and its
		// configuration names no such set.
		args.Keywords = keywords
	}
	var counts map[string]int
	if err := l.runJob(ctx, deps, args, "insights", &counts); err != nil {
		return err
	}
	fmt.Fprintf(l.Out, "%d keyword sets, %d windows, %d requests, %d volume buckets stored\n",
		counts["sets"], counts["windows"], counts["requests"], counts["buckets"])
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
