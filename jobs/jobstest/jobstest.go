package jobstest

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
)

// Deps are worker dependencies on pool and the fake f.
func Deps(t testing.TB, f *synctest.Fake, pool *pgxpool.Pool) *jobs.Deps {
	t.Helper()
	return &jobs.Deps{Pool: pool, API: f.Client(t, pool), Log: zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)), SyncOverlap: time.Hour,
		Now: f.Srv.Now}
}

// StartWorker starts a River client running every worker, stopped when the
// test ends.
func StartWorker(t testing.TB, deps *jobs.Deps, opts jobs.Options) *river.Client[pgx.Tx] {
	t.Helper()
	opts.Work = true
	if opts.Concurrency == nil {
		opts.Concurrency = map[string]int{jobs.QueueSync: 4, jobs.QueueAudience: 2, jobs.QueueExport: 1, jobs.QueueDefault: 2}
	}
	if opts.FetchPollInterval == 0 {
		opts.FetchPollInterval = 50 * time.Millisecond
	}
	c, err := jobs.NewClient(deps, opts)
	if err != nil {
		t.Fatalf("jobstest: %v", err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("jobstest: starting River: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Stop(ctx)
	})
	return c
}

// RunJob inserts args and waits until River finished the job, failing the
// test unless it completed.
func RunJob(t testing.TB, client *river.Client[pgx.Tx], args river.JobArgs) {
	t.Helper()
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	defer cancel()
	res, err := client.Insert(context.Background(), args, nil)
	if err != nil {
		t.Fatalf("jobstest: inserting a %s job: %v", args.Kind(), err)
	}
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case ev := <-events:
			if ev.Job.ID != res.Job.ID {
				continue
			}
			if ev.Kind != river.EventKindJobCompleted {
				t.Fatalf("jobstest: %s job ended %s: %v", args.Kind(), ev.Kind, ev.Job.Errors)
			}
			return
		case <-deadline:
			t.Fatalf("jobstest: %s job %d did not finish", args.Kind(), res.Job.ID)
		}
	}
}

// Pulled is a database holding what a worker stored from a fake: see
// SyncAndPullStats.
type Pulled struct {
	Fake *synctest.Fake
	Pool *pgxpool.Pool
	// Now is the fake's clock at the start (fixtures.SuiteNow); First is
	// the first UTC day pulled, five days before it.
	Now, First time.Time
}

// SyncAndPullStats syncs the fake's accounts, funding instruments,
// campaigns, line items and promoted posts through a running worker, then
// pulls the analytics of the campaigns, line items and promoted posts from
// First on, unsegmented, and of the campaigns and line items by each of
// segmentations. The fake's clock starts at fixtures.SuiteNow and runs on,
// so its asynchronous jobs finish; the days before Now are complete before
// the pull starts, so their truth stands still. The sync run must succeed.
func SyncAndPullStats(t testing.TB, segmentations ...string) *Pulled {
	t.Helper()
	now, err := fixtures.SuiteNow()
	if err != nil {
		t.Fatalf("jobstest: %v", err)
	}
	fake := synctest.NewFake(t, func(o *fixtures.Options) {
		o.Now = fixtures.RunningFrom(now)
		o.TimestampWindow = max(o.TimestampWindow, time.Since(now).Abs()+time.Hour)
		o.StatsJobs.Delay = time.Second
	})
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	deps := Deps(t, fake, pool)
	client := StartWorker(t, deps, jobs.Options{FetchPollInterval: 20 * time.Millisecond})
	ctx := context.Background()

	args := jobs.SyncRunArgs{Entities: []string{"accounts", "funding_instruments", "campaigns", "line_items", "promoted_posts"}}
	if args.RunID, err = jobs.CreateSyncRun(ctx, deps, args); err != nil {
		t.Fatalf("jobstest: %v", err)
	}
	RunJob(t, client, args)
	// The run's job fans out one job per account and entity; the last to
	// end finishes the run.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		run, err := store.GetRun(ctx, pool, args.RunID)
		if err != nil {
			t.Fatalf("jobstest: %v", err)
		}
		if run.Outcome == store.RunSucceeded {
			break
		}
		if run.Outcome != store.RunRunning || time.Now().After(deadline) {
			t.Fatalf("jobstest: sync run %d: %s %s", args.RunID, run.Outcome, run.Error)
		}
		time.Sleep(50 * time.Millisecond)
	}

	p := &Pulled{Fake: fake, Pool: pool, Now: now,
		First: time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -5)}
	start := p.First.Format(time.DateOnly)
	entities := []string{stats.EntityCampaign, stats.EntityLineItem, stats.EntityPromotedPost}
	RunJob(t, client, jobs.StatsArgs{Entities: entities, Start: start})
	for _, seg := range segmentations {
		RunJob(t, client, jobs.StatsArgs{Entities: entities[:2], Segmentation: seg, Start: start})
	}
	return p
}
