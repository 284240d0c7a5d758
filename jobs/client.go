package jobs

import (
	"context"
	"errors"
	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/sync/access"
	"log/slog"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/stats"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"go.uber.org/zap"
)

// Queues.
const (
	QueueSync     = "sync"
	QueueAudience = "audience"
	QueueExport   = "export"
	QueueDefault  = river.QueueDefault
)

// Deps are what workers need.
type Deps struct {
	Pool *pgxpool.Pool
	// API is the service client (nil for insert-only clients).
	API *api.Client
	Log *zap.Logger
	// SyncOverlap is subtracted from incremental bookmarks.
	SyncOverlap time.Duration
	// ExportOut is where scheduled exports write.
	ExportOut string
	// Export holds the configured format, Iceberg catalog, namespace and
	// retention of scheduled exports.
	Export export.Options
	// Metrics records what workers do (nil: nothing).
	Metrics *Metrics
	// Insights and Posts are the configured keyword sets and post ids.
	Insights InsightsSettings
	Posts    PostsSettings
	// SyncPageSize is the sync's page size (0: each endpoint's maximum).
	SyncPageSize int
	// SyncPageHook is the sync's ads.Syncer.PageHook (tests).
	SyncPageHook func(entity string, held int)
	// Stats are the configured analytics settings.
	Stats stats.Settings
	// RunRetention is how long the history of finished runs is kept (see
	// PruneRuns; zero: store.DefaultRunRetention).
	RunRetention time.Duration
	// Now is the clock that dates the analytics spans (nil: the real one);
	// tests set it to a fake pinned to another date.
	Now func() time.Time
	// Users are the users the deployment acts for; NewClient sets API's
	// user alone when nil.
	Users *access.Set
	// Audiences are the configured audiences (audiences: in the
	// configuration) by name, which AudienceSyncArgs name.
	Audiences map[string]audience.Definition
}

// clientFor returns the func that gives, for an account, the client of the
// user chosen to act on it for need (see access.Set.For).
func (d *Deps) clientFor(need access.Need) func(ctx context.Context, accountID string) (*api.Client, error) {
	return func(ctx context.Context, accountID string) (*api.Client, error) {
		if d.Users == nil {
			return d.API, nil
		}
		u, err := d.Users.For(ctx, accountID, need)
		if err != nil {
			return nil, err
		}
		return u.Client, nil
	}
}

// Options shape a River client.
type Options struct {
	// Concurrency per queue (QueueSync, QueueAudience, QueueExport, QueueDefault).
	Concurrency map[string]int
	// Schedules are cron specs by pipeline; empty specs are skipped.
	Schedules map[string]string
	// AudienceSchedules are the configured audiences' cron specs by name;
	// empty specs are skipped.
	AudienceSchedules map[string]string
	// Work makes the client fetch and run jobs; false builds an insert-only client.
	Work bool
	// Maintenance adds the daemon's housekeeping to the schedules: the
	// run history's pruning (PruneRunsArgs) every hour and at start.
	Maintenance bool
	// Queues are the queues worked (nil: all four). A command working its
	// own run works the run's queue only: each queue costs a producer that
	// fetches and polls.
	Queues []string
	// Slog receives River's own logs.
	Slog *slog.Logger
	// FetchPollInterval overrides River's default (tests shorten it).
	FetchPollInterval time.Duration
	// JobTimeout bounds one job attempt (default 30 minutes).
	JobTimeout time.Duration
	// ClientID names the River client (see Liveness); empty lets River pick.
	ClientID string
}

// fetchCooldown is the least time between two fetches of jobs. River's
// default, 100ms, starves a queue of many short jobs (a sync run's units,
// a page or two each): a worker that finishes asks for a fetch, and the
// fetch waits out the cooldown while the worker idles. A fetch is one
// indexed query, so 10ms costs Postgres little even when busy.
const fetchCooldown = 10 * time.Millisecond

// NewClient builds a River client over deps.Pool with every worker
// registered.
func NewClient(deps *Deps, opts Options) (*river.Client[pgx.Tx], error) {
	if deps.Pool == nil {
		return nil, errors.New("jobs: no database pool")
	}
	if deps.Users == nil && deps.API != nil {
		deps.Users = &access.Set{Pool: deps.Pool, Base: deps.API, Configured: deps.API.UserToken(), Log: deps.Log}
	}
	cfg := &river.Config{Logger: opts.Slog, ID: opts.ClientID}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Work {
		workers := river.NewWorkers()
		addWorkers(workers, deps)
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{}
		queues := opts.Queues
		if queues == nil {
			queues = []string{QueueSync, QueueAudience, QueueExport, QueueDefault}
		}
		for _, q := range queues {
			n := opts.Concurrency[q]
			if n <= 0 {
				n = 1
			}
			cfg.Queues[q] = river.QueueConfig{MaxWorkers: n}
		}
		periodic, err := PeriodicJobs(opts.Schedules)
		if err != nil {
			return nil, err
		}
		audiences, err := AudiencePeriodicJobs(opts.AudienceSchedules)
		if err != nil {
			return nil, err
		}
		cfg.PeriodicJobs = append(periodic, audiences...)
		if opts.Maintenance {
			cfg.PeriodicJobs = append(cfg.PeriodicJobs, prunePeriodic())
		}
		cfg.FetchPollInterval = opts.FetchPollInterval
		cfg.FetchCooldown = fetchCooldown
		if opts.FetchPollInterval > 0 && opts.FetchPollInterval < fetchCooldown {
			cfg.FetchCooldown = opts.FetchPollInterval
		}
		cfg.JobTimeout = opts.JobTimeout
		if cfg.JobTimeout == 0 {
			cfg.JobTimeout = 30 * time.Minute
		}
	}
	return river.NewClient(riverpgxv5.New(deps.Pool), cfg)
}

// PoolSize is the connection count a worker needs: one per concurrent job,
// one for River's listener, and a few for River's own maintenance and the
// HTTP probes.
func PoolSize(concurrency map[string]int) int32 {
	n := 0
	for _, c := range concurrency {
		n += c
	}
	return int32(n + 1 + 4)
}

// addWorkers registers every pipeline's workers. Each pipeline adds one line.
func addWorkers(w *river.Workers, deps *Deps) {
	addSyncWorkers(w, deps)
	addExportWorkers(w, deps)
	addInsightsPostsWorkers(w, deps)
	addAudienceWorkers(w, deps)
	addStatsWorkers(w, deps)
	river.AddWorker(w, &pruneRunsWorker{deps: deps})
}
