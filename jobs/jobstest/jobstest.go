package jobstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
)

// MigratedDatabase returns the URL of a fresh database with every migration
// applied (a copy of a template migrated once per test process), with an
// identity of its own (adsync_database.database_id, which marks the outputs
// an export owns), as a database migrated on its own has. The package's
// TestMain must call localpg.Main.
func MigratedDatabase(t testing.TB) string {
	t.Helper()
	url := localpg.NewDatabaseFrom(t, "migrated", migrate)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := newIdentity(ctx, url); err != nil {
		t.Fatalf("jobstest: %v", err)
	}
	return url
}

// CreateMigratedDatabase is MigratedDatabase for code that has no
// testing.TB (a package's examples): it returns the database's URL and the
// function that drops it.
func CreateMigratedDatabase() (url string, drop func() error, err error) {
	url, drop, err = localpg.CreateDatabase("migrated", migrate)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := newIdentity(ctx, url); err != nil {
		_ = drop()
		return "", nil, err
	}
	return url, drop, nil
}

// newIdentity gives the copy at url an identity of its own, as a database
// migrated on its own has.
func newIdentity(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE adsync_database SET database_id = gen_random_uuid()`); err != nil {
		return fmt.Errorf("a new identity for the copy: %w", err)
	}
	return nil
}

// migrate applies every migration to the database at url.
func migrate(ctx context.Context, url string) error {
	pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: 4})
	if err != nil {
		return err
	}
	defer pool.Close()
	_, err = migrations.Migrate(ctx, pool, nil)
	return err
}

// Pool connects to url with room for a worker's concurrency.
func Pool(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := store.Connect(context.Background(), url, store.ConnectOptions{MaxConns: 20})
	if err != nil {
		t.Fatalf("jobstest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Fake is a fake service served for one test.
type Fake struct {
	Srv                           *fixtures.Server
	APIURL, AdsURL, SandboxAdsURL string
}

// NewFake serves a fake built from DefaultOptions changed by tweak.
func NewFake(t testing.TB, tweak func(*fixtures.Options)) *Fake {
	t.Helper()
	s := fixtures.Serve(t, tweak)
	return &Fake{Srv: s.Server, APIURL: s.APIURL, AdsURL: s.AdsURL, SandboxAdsURL: s.SandboxAdsURL}
}

// Config is a client configuration for the fake with the owner's
// credentials, fast backoff, the fake's own clock (so a fake pinned to
// another date still accepts the client's signatures), and the governor's
// and bearer cache's state in pool (nil: in memory).
func (f *Fake) Config(pool *pgxpool.Pool) api.Config {
	o := f.Srv.Options()
	cfg := api.Config{
		APIURL: f.APIURL, AdsURL: f.AdsURL, SandboxAdsURL: f.SandboxAdsURL,
		Credentials: api.Credentials{ConsumerKey: o.ConsumerKey, ConsumerSecret: o.ConsumerSecret},
		UserToken:   &api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret},
		Timeout:     10 * time.Second, BackoffBase: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		Now: f.Srv.Now,
	}
	if pool != nil {
		cfg.Governor = api.NewGovernor(api.PGStore{Pool: pool})
		cfg.Bearer = api.NewBearerSource(api.PGBearerStore{Pool: pool})
	}
	return cfg
}

// Client is a service client for the fake.
func (f *Fake) Client(t testing.TB, pool *pgxpool.Pool) *api.Client {
	t.Helper()
	c, err := api.NewClient(f.Config(pool))
	if err != nil {
		t.Fatalf("jobstest: %v", err)
	}
	return c
}

// Deps are worker dependencies on pool and the fake.
func (f *Fake) Deps(t testing.TB, pool *pgxpool.Pool) *jobs.Deps {
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
	Fake *Fake
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
	fake := NewFake(t, func(o *fixtures.Options) {
		o.Now = fixtures.RunningFrom(now)
		o.TimestampWindow = max(o.TimestampWindow, time.Since(now).Abs()+time.Hour)
		o.StatsJobs.Delay = time.Second
	})
	pool := Pool(t, MigratedDatabase(t))
	deps := fake.Deps(t, pool)
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
