package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adsync/adsync/sync/insights"
	"github.com/adsync/adsync/sync/posts"
	"github.com/adsync/adsync/sync/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"
)

// InsightsSettings are the configured keyword sets and how far back a
// scheduled run looks.
type InsightsSettings struct {
	Sets     []insights.KeywordSet
	Lookback time.Duration
}

// PostsSettings are the configured v2 post ids.
type PostsSettings struct {
	IDs []string
}

// InsightsArgs fetch keyword insights for configured sets over the
// configured lookback. The args name sets; their keywords stay in the
// configuration.
type InsightsArgs struct {
	// Sets are set names; empty means every configured set.
	Sets []string `json:"sets,omitempty"`
	// Keywords are sets given in full, fetched instead of configured ones:
	// the demo's, which no worker's configuration names, so that whichever
	// worker takes the job can run it.
	Keywords []insights.KeywordSet `json:"keywords,omitempty"`
	// Trigger is recorded with the run ("manual" when empty).
	Trigger string `json:"trigger,omitempty"`
}

// Kind names the job.
func (InsightsArgs) Kind() string { return "insights_keywords" }

// InsertOpts keep two runs of the same sets from overlapping.
func (InsightsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueSync, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

// unfinished are the states in which a job blocks an equal one: a finished
// run must not stop the next scheduled run of the same args.
var unfinished = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}

// PostsFetchArgs hydrate v2 posts: the given ids, plus those of the
// advertising sync (FromAds) and of the configuration (FromConfig).
type PostsFetchArgs struct {
	IDs        []string `json:"ids,omitempty"`
	FromAds    bool     `json:"from_ads,omitempty"`
	FromConfig bool     `json:"from_config,omitempty"`
	// Trigger is recorded with the run ("manual" when empty).
	Trigger string `json:"trigger,omitempty"`
}

// Kind names the job.
func (PostsFetchArgs) Kind() string { return "posts_fetch" }

// InsertOpts keep two fetches of the same ids from overlapping.
func (PostsFetchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueSync, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

func init() {
	pipelineJobs[PipelineInsights] = func() (river.JobArgs, *river.InsertOpts) { return InsightsArgs{Trigger: "schedule"}, nil }
	pipelineJobs[PipelinePosts] = func() (river.JobArgs, *river.InsertOpts) {
		return PostsFetchArgs{FromAds: true, FromConfig: true, Trigger: "schedule"}, nil
	}
}

// addInsightsPostsWorkers registers the insights and posts workers.
func addInsightsPostsWorkers(w *river.Workers, deps *Deps) {
	river.AddWorker(w, &insightsWorker{deps: deps})
	river.AddWorker(w, &postsWorker{deps: deps})
}

type insightsWorker struct {
	river.WorkerDefaults[InsightsArgs]
	deps *Deps
}

// insightsParams are what an insights run records in sync_runs.params.
type insightsParams struct {
	Sets     []string `json:"sets,omitempty"`
	Lookback string   `json:"lookback"`
}

func (w *insightsWorker) Work(ctx context.Context, job *river.Job[InsightsArgs]) error {
	lookback := w.deps.Insights.Lookback
	if lookback <= 0 {
		lookback = insights.MaxSpan
	}
	runID, err := store.RunForJob(ctx, w.deps.Pool, PipelineInsights, cmp.Or(job.Args.Trigger, "manual"),
		insightsParams{Sets: job.Args.Sets, Lookback: lookback.String()}, job.ID)
	if err != nil {
		return err
	}
	counts, err := w.work(ctx, job.Args, lookback)
	return endRun(ctx, w.deps, job.JobRow, runID, counts, err)
}

func (w *insightsWorker) work(ctx context.Context, args InsightsArgs, lookback time.Duration) (map[string]int, error) {
	sets, err := selectSets(w.deps.Insights.Sets, args.Sets)
	if err != nil {
		return nil, river.JobCancel(err)
	}
	if len(args.Keywords) > 0 {
		sets = args.Keywords
	}
	if len(sets) == 0 {
		w.deps.Log.Info("insights: no keyword sets configured; nothing to fetch")
		return map[string]int{"sets": 0}, nil
	}
	if _, err := insights.PlanSets(sets); err != nil {
		// A set no request can express stays so until the configuration changes.
		return nil, river.JobCancel(err)
	}
	r := &insights.Runner{Client: w.deps.API, Pool: w.deps.Pool}
	rep, err := r.RunLookback(ctx, sets, lookback)
	counts := rep.Counts()
	if err != nil {
		return counts, err
	}
	w.deps.Log.Info("insights: fetched", zap.Int("sets", rep.Sets), zap.Int("windows", rep.Windows),
		zap.Int("requests", rep.Requests), zap.Int("buckets", rep.Buckets))
	return counts, river.RecordOutput(ctx, counts)
}

// endRun records on a job's run how the attempt that returned err ended:
// succeeded, or failed when River will not try again (a cancellation or
// the last attempt). A snooze, a retry or a worker shutting down leave the
// run running for the next attempt. It returns err for River.
func endRun(ctx context.Context, deps *Deps, job *rivertype.JobRow, runID int64, counts any, err error) error {
	out, final := riverError(ctx, job, err)
	outcome, reason := store.RunSucceeded, ""
	switch {
	case err == nil:
	case final:
		outcome, reason = store.RunFailed, err.Error()
	default:
		return out
	}
	if rerr := store.EndRun(ctx, deps.Pool, runID, outcome, counts, reason); rerr != nil {
		return errors.Join(out, rerr)
	}
	return out
}

// selectSets picks the named sets (all when names is empty).
func selectSets(all []insights.KeywordSet, names []string) ([]insights.KeywordSet, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []insights.KeywordSet
	for _, n := range names {
		found := false
		for _, s := range all {
			if s.Name == n {
				out = append(out, s)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("insights: keyword set %q is not configured", n)
		}
	}
	return out, nil
}

type postsWorker struct {
	river.WorkerDefaults[PostsFetchArgs]
	deps *Deps
}

func (w *postsWorker) Work(ctx context.Context, job *river.Job[PostsFetchArgs]) error {
	a := job.Args
	runID, err := store.RunForJob(ctx, w.deps.Pool, PipelinePosts, cmp.Or(a.Trigger, "manual"),
		PostsFetchArgs{IDs: a.IDs, FromAds: a.FromAds, FromConfig: a.FromConfig}, job.ID)
	if err != nil {
		return err
	}
	sum, err := w.work(ctx, a)
	return endRun(ctx, w.deps, job.JobRow, runID, sum, err)
}

func (w *postsWorker) work(ctx context.Context, args PostsFetchArgs) (posts.Summary, error) {
	ids, err := PostIDs(ctx, w.deps, args)
	if err != nil {
		if errors.Is(err, posts.ErrNoAdsPosts) {
			// Retrying cannot help until a sync has run.
			return posts.Summary{}, river.JobCancel(err)
		}
		return posts.Summary{}, err
	}
	f := &posts.Fetcher{Client: w.deps.API, Pool: w.deps.Pool}
	sum, err := f.Fetch(ctx, ids)
	if err != nil {
		return sum, err
	}
	w.deps.Log.Info("posts: fetched", zap.Int("requested", sum.Requested), zap.Int("found", sum.Found),
		zap.Int("not_found", sum.NotFound), zap.Int("media", sum.Media), zap.Int("users", sum.Users))
	return sum, river.RecordOutput(ctx, sum)
}

// PostIDs gathers the ids a posts job fetches. Without advertising tables,
// a job that also has other ids goes on with those; one with none fails
// with posts.ErrNoAdsPosts.
func PostIDs(ctx context.Context, deps *Deps, args PostsFetchArgs) ([]string, error) {
	ids := append([]string(nil), args.IDs...)
	if args.FromConfig {
		ids = append(ids, deps.Posts.IDs...)
	}
	if args.FromAds {
		ads, err := posts.AdsPostIDs(ctx, deps.Pool)
		switch {
		case errors.Is(err, posts.ErrNoAdsPosts) && len(ids) > 0:
			deps.Log.Warn("posts: " + err.Error() + "; fetching the other ids only")
		case err != nil:
			return nil, err
		}
		ids = append(ids, ads...)
	}
	return ids, nil
}

// NextRetry backs off from 1 second, doubling to at most 5 minutes.
func (w *insightsWorker) NextRetry(job *river.Job[InsightsArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}

// NextRetry backs off from 1 second, doubling to at most 5 minutes.
func (w *postsWorker) NextRetry(job *river.Job[PostsFetchArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}
