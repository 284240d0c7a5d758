package jobs_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/insights"
	"github.com/adsync/adsync/sync/posts"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(benchFakeEnv); spec != "" {
		os.Exit(serveBenchFake(spec))
	}
	// Most tests here wait on River and the fake more than they compute,
	// but each also polls River every 50 ms: on a loaded machine six at a
	// time took twice as long as two and starved some past their patience.
	os.Exit(synctest.Main(m, 3))
}

type workerBundle struct {
	fake   *synctest.Fake
	pool   *pgxpool.Pool
	deps   *jobs.Deps
	client *river.Client[pgx.Tx]
}

// setupWorker starts a worker whose deps are changed by tweak first.
func setupWorker(t *testing.T, tweak func(*jobs.Deps, *synctest.Fake)) *workerBundle {
	t.Helper()
	return setupWorkerOn(t, nil, tweak)
}

// setupWorkerOn is setupWorker on a fake built with fakeTweak (its clock
// pinned, say).
func setupWorkerOn(t *testing.T, fakeTweak func(*fixtures.Options), tweak func(*jobs.Deps, *synctest.Fake)) *workerBundle {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, fakeTweak)
	deps := jobstest.Deps(t, fake, pool)
	if tweak != nil {
		tweak(deps, fake)
	}
	// StartWorker's default poll interval (50ms) is below River's default
	// fetch cooldown (100ms), which River refuses; 20ms sets both.
	client := jobstest.StartWorker(t, deps, jobs.Options{FetchPollInterval: 20 * time.Millisecond})
	return &workerBundle{fake: fake, pool: pool, deps: deps, client: client}
}

// runJob inserts args and waits for the job to finish, whatever its outcome.
func (b *workerBundle) runJob(t *testing.T, args river.JobArgs) *river.Event {
	t.Helper()
	events, cancel := b.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	defer cancel()
	res, err := b.client.Insert(context.Background(), args, nil)
	require.NoError(t, err)
	deadline := time.After(patience)
	for {
		select {
		case ev := <-events:
			if ev.Job.ID == res.Job.ID {
				return ev
			}
		case <-deadline:
			t.Fatalf("job %d did not finish", res.Job.ID)
		}
	}
}

func (b *workerBundle) count(t *testing.T, query string) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), query).Scan(&n))
	return n
}

func TestPostsFetchJobStoresPostsAndRecordsItsSummary(t *testing.T) {
	t.Parallel()
	b := setupWorker(t, nil)
	truth := b.fake.Srv.V2Truth()
	ids := append(append([]string{}, truth.PostIDs[:5]...), truth.MissingIDs[0])
	ev := b.runJob(t, jobs.PostsFetchArgs{IDs: ids})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)
	var sum posts.Summary
	require.NoError(t, json.Unmarshal(ev.Job.Output(), &sum))
	require.Equal(t, 6, sum.Requested)
	require.Equal(t, 5, sum.Found)
	require.Equal(t, []string{truth.MissingIDs[0]}, sum.NotFoundIDs)
	require.Equal(t, 6, b.count(t, `SELECT count(*) FROM v2_post_status`))

	// A finished run does not block the next one with the same args.
	ev = b.runJob(t, jobs.PostsFetchArgs{IDs: ids})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)
	require.Equal(t, 2, b.fake.Srv.Stats().Family(posts.Endpoint).Requests)
}

func TestScheduledPostsJobFetchesAdsAndConfiguredIDs(t *testing.T) {
	t.Parallel()
	var configured string
	b := setupWorker(t, func(d *jobs.Deps, f *synctest.Fake) {
		truth := f.Srv.V2Truth()
		configured = truth.PostIDs[len(truth.PostIDs)-1]
		d.Posts.IDs = []string{configured}
	})
	var published []string
	for _, acct := range b.fake.Srv.AdsTruth().Accounts {
		published = append(published, acct["posts_published"].IDs...)
	}
	require.NotEmpty(t, published)
	ctx := context.Background()
	for _, id := range published {
		_, err := b.pool.Exec(ctx, `INSERT INTO posts (account_id, id, post_type, deleted, raw, doc_hash) VALUES ('a', $1, 'PUBLISHED', false, '{}', 'h')`, id)
		require.NoError(t, err)
	}
	ev := b.runJob(t, jobs.PostsFetchArgs{FromAds: true, FromConfig: true})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)
	require.Equal(t, len(published)+1, b.count(t, `SELECT count(*) FROM v2_post_status WHERE found`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM v2_posts WHERE id = '`+configured+`'`))
}

func TestPostsJobFromAdsWithoutSyncedPostsIsCancelled(t *testing.T) {
	t.Parallel()
	b := setupWorker(t, nil)
	ev := b.runJob(t, jobs.PostsFetchArgs{FromAds: true})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	require.Contains(t, ev.Job.Errors[len(ev.Job.Errors)-1].Error, "no synced advertising posts: run adsync sync first")
	require.Zero(t, b.fake.Srv.Stats().Family(posts.Endpoint).Requests)
}

func TestInsightsJobFetchesEveryConfiguredSetOverTheLookback(t *testing.T) {
	t.Parallel()
	b := setupWorker(t, func(d *jobs.Deps, _ *synctest.Fake) {
		d.Insights = jobs.InsightsSettings{Lookback: 48 * time.Hour, Sets: []insights.KeywordSet{
			{Name: "coffee", Keywords: []string{"coffee", "espresso"}},
			{Name: "tea", Keywords: []string{"tea"}, Granularity: "HOUR"},
		}}
	})
	ev := b.runJob(t, jobs.InsightsArgs{})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM keyword_insight_windows`))
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM keyword_volumes WHERE set_name = 'coffee'`))
	require.Equal(t, 48, b.count(t, `SELECT count(*) FROM keyword_volumes WHERE set_name = 'tea'`))

	ev = b.runJob(t, jobs.InsightsArgs{Sets: []string{"nope"}})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	require.Contains(t, ev.Job.Errors[len(ev.Job.Errors)-1].Error, `keyword set "nope" is not configured`)
}

func TestInsightsJobWithSetsGivenInFullRunsOnAWorkerThatConfiguresNone(t *testing.T) {
	t.Parallel()
	// The demo's pass queues its keywords in full: a worker beside it,
	// configured with no set, may be the one to take the job.
	b := setupWorker(t, func(d *jobs.Deps, _ *synctest.Fake) {
		d.Insights = jobs.InsightsSettings{Lookback: 48 * time.Hour}
	})
	ev := b.runJob(t, jobs.InsightsArgs{Keywords: []insights.KeywordSet{{Name: "demo", Keywords: []string{"coffee"}}}})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM keyword_volumes WHERE set_name = 'demo'`))
}

func TestInsightsJobWithARejectedSetIsCancelledWithoutRequests(t *testing.T) {
	t.Parallel()
	b := setupWorker(t, func(d *jobs.Deps, _ *synctest.Fake) {
		d.Insights = jobs.InsightsSettings{Lookback: 24 * time.Hour, Sets: []insights.KeywordSet{
			{Name: "neg", Keywords: []string{"coffee"}, NegativeKeywords: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}},
		}}
	})
	ev := b.runJob(t, jobs.InsightsArgs{})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	require.Contains(t, ev.Job.Errors[len(ev.Job.Errors)-1].Error, `keyword set "neg" has 10 negative keywords`)
	require.Zero(t, b.fake.Srv.Stats().Family(insights.Endpoint).Requests)
}

// lastRun reads the newest run of pipeline.
func (b *workerBundle) lastRun(t *testing.T, pipeline string) (outcome, trigger string, counts map[string]any, reason string) {
	t.Helper()
	var e *string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT outcome, trigger, counts, error FROM sync_runs
WHERE pipeline = $1 ORDER BY id DESC LIMIT 1`, pipeline).Scan(&outcome, &trigger, &counts, &e))
	if e != nil {
		reason = *e
	}
	return outcome, trigger, counts, reason
}

func TestInsightsAndPostsJobsEachRecordARunWithCountsAndOutcome(t *testing.T) {
	t.Parallel()
	b := setupWorker(t, func(d *jobs.Deps, _ *synctest.Fake) {
		d.Insights = jobs.InsightsSettings{Lookback: 48 * time.Hour, Sets: []insights.KeywordSet{
			{Name: "coffee", Keywords: []string{"coffee"}}}}
	})
	ev := b.runJob(t, jobs.InsightsArgs{Trigger: "schedule"})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)
	outcome, trigger, counts, _ := b.lastRun(t, "insights")
	require.Equal(t, "succeeded", outcome)
	require.Equal(t, "schedule", trigger)
	require.EqualValues(t, map[string]any{"sets": 1.0, "windows": 1.0, "requests": 1.0, "buckets": 2.0}, counts)

	ev = b.runJob(t, jobs.InsightsArgs{Sets: []string{"nope"}})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	outcome, trigger, _, reason := b.lastRun(t, "insights")
	require.Equal(t, "failed", outcome)
	require.Equal(t, "manual", trigger)
	require.Contains(t, reason, `keyword set "nope" is not configured`)

	ids := b.fake.Srv.V2Truth().PostIDs[:3]
	ev = b.runJob(t, jobs.PostsFetchArgs{IDs: ids})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind)
	outcome, _, counts, _ = b.lastRun(t, "posts")
	require.Equal(t, "succeeded", outcome)
	require.EqualValues(t, 3, counts["found"])

	ev = b.runJob(t, jobs.PostsFetchArgs{FromAds: true})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	outcome, _, _, reason = b.lastRun(t, "posts")
	require.Equal(t, "failed", outcome)
	require.Contains(t, reason, "no synced advertising posts")
	require.Equal(t, 4, b.count(t, `SELECT count(*) FROM sync_runs`), "one run per job")
}
