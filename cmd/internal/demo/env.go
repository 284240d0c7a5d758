package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/adsync/adsync/cmd/internal/config"
	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localfake"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// Dir holds the zero-config demo's persistent state (git-ignored).
const Dir = ".adsync"

// PGDir holds the demo's local PostgreSQL cluster.
var PGDir = filepath.Join(Dir, "pg")

// FakeDir holds the demo's shared fake service: where it listens, its
// audiences, its log.
var FakeDir = filepath.Join(Dir, "fake")

// ErrNoDatabase is every command's answer when no database is configured
// and the current directory holds no demo database either.
var ErrNoDatabase = errors.New("no database configured: set --database-url or ADSYNC_DATABASE_URL, " +
	"or run these commands where adsync run (make run) left its local Postgres in " + Dir + "/")

// DatabaseHere reports whether the current directory holds the demo's
// local PostgreSQL cluster (left by adsync run).
func DatabaseHere() bool {
	_, err := os.Stat(filepath.Join(PGDir, "data", "PG_VERSION"))
	return err == nil
}

// Env is one command's view of the demo: what it started for the command
// (the local Postgres, the fake service) and what it has yet to do. The
// command's end stops what it started, through OnClose.
type Env struct {
	// Out gets what adsync run says it started; Err what other commands
	// say they use.
	Out, Err io.Writer
	// Log gets the warnings of stopping what was started.
	Log *zap.Logger
	// OnClose registers cleanup run when the command ends.
	OnClose func(func())

	// db: the database is the demo's local Postgres under .adsync/ (none
	// is configured); fake: the fake service was started for the command.
	db, fake bool
	// replayPending: the fake started for the demo's database has yet to
	// get the audiences earlier commands created (ReplayAudiences).
	replayPending bool
}

// FakeStarted reports whether the fake service was started for this
// command: the credentials are then the fake's, not configured ones.
func (e *Env) FakeStarted() bool { return e.fake }

// Start starts what adsync run asks for, saying so on Out: a local
// Postgres under .adsync/ (localDatabase) and the fake service
// (fakeService), both pointed at by cfg.
func (e *Env) Start(ctx context.Context, cfg *config.Config, localDatabase, fakeService bool) error {
	if localDatabase {
		if !DatabaseHere() {
			fmt.Fprintf(e.Out, "creating a local Postgres in %s/ (once: it is kept between runs)\n", PGDir)
		}
		c, err := e.StartPostgres(ctx, cfg)
		if err != nil {
			return err
		}
		how := "started for this run and stopped when the last adsync command using it ends; commands run in this directory start it again"
		if !c.StartedHere() {
			how = "already running"
		}
		fmt.Fprintf(e.Out, "local Postgres: %s/ (%s)\n", PGDir, how)
	}
	if !fakeService {
		return nil
	}
	apiURL, adsURL, how, err := e.StartFake(ctx, cfg)
	if err != nil {
		return err
	}
	opts := fixtures.DefaultOptions()
	fmt.Fprintf(e.Out, "fake service: %s (ads %s), %d accounts generated from seed %d (%s)\n", apiURL, adsURL, opts.Accounts, opts.Seed, how)
	return nil
}

// Database returns the URL of the command's database (cfg's). With none
// configured it is the demo's local Postgres when the current directory
// holds one, started on demand (stopped by the last adsync command using
// it) and announced in one line on Err; elsewhere no database configured
// is ErrNoDatabase.
func (e *Env) Database(ctx context.Context, cfg *config.Config) (string, error) {
	if cfg.DatabaseURL != "" {
		return cfg.DatabaseURL, nil
	}
	if !DatabaseHere() {
		return "", ErrNoDatabase
	}
	c, err := e.StartPostgres(ctx, cfg)
	if err != nil {
		return "", err
	}
	how := "started for this command, stopped when the last adsync command using it ends"
	if !c.StartedHere() {
		how = "already running"
	}
	fmt.Fprintf(e.Err, "adsync: no database configured: using the demo's local Postgres in %s/ (%s)\n", PGDir, how)
	return cfg.DatabaseURL, nil
}

// StartPostgres starts (or attaches to) the local Postgres under .adsync/,
// makes it cfg's database and, when the command ends, stops it if no other
// adsync command is using it and adsync started it.
func (e *Env) StartPostgres(ctx context.Context, cfg *config.Config) (*localpg.Cluster, error) {
	c, err := localpg.Start(ctx, localpg.Options{Dir: PGDir, Persistent: true, Durable: true})
	if err != nil {
		return nil, fmt.Errorf("starting the local Postgres: %w", err)
	}
	e.OnClose(func() {
		if err := c.Stop(); err != nil {
			e.Log.Sugar().Warnf("stopping the local Postgres: %v", err)
		}
	})
	cfg.DatabaseURL = c.URL("postgres")
	e.db = true
	return c, nil
}

// FakeForDemo points cfg at the demo's shared fake service when the
// database is the demo's and no service is configured (serviceConfigured
// false): every command run in the demo's directory then talks to one
// fake. A configured database never gets its data (the demo database is
// never a configured one).
func (e *Env) FakeForDemo(ctx context.Context, cfg *config.Config, serviceConfigured bool) error {
	if !e.db || e.fake || serviceConfigured {
		return nil
	}
	apiURL, _, how, err := e.StartFake(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Err, "adsync: no service configured: using the demo's fake service at %s (%s)\n", apiURL, how)
	return nil
}

// StartFake points cfg at the fake service with the default generated
// data: for the demo's database the fake shared by every adsync command
// run in its directory (started if none runs), else one served in this
// process. how says which, for people.
func (e *Env) StartFake(ctx context.Context, cfg *config.Config) (apiURL, adsURL, how string, err error) {
	opts := fixtures.DefaultOptions()
	if err := fixtures.FromEnv(&opts); err != nil {
		return "", "", "", err
	}
	if e.db {
		apiURL, how, err = e.sharedFake(ctx)
	} else {
		apiURL, how, err = e.fakeHere(opts)
	}
	if err != nil {
		return "", "", "", err
	}
	apiURL, adsURL, sandboxURL := fixtures.URLs(apiURL)
	cfg.API.URL, cfg.API.AdsURL, cfg.API.SandboxAdsURL = apiURL, adsURL, sandboxURL
	cfg.API.ConsumerKey, cfg.API.ConsumerSecret = opts.ConsumerKey, opts.ConsumerSecret
	cfg.API.AccessToken, cfg.API.AccessSecret = opts.OwnerToken, opts.OwnerSecret
	e.fake = true
	return apiURL, adsURL, how, nil
}

// fakeHere serves a fake generated from opts in this process until the
// command ends.
func (e *Env) fakeHere(opts fixtures.Options) (apiURL, how string, err error) {
	srv := fixtures.New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", fmt.Errorf("starting the fake service: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	e.OnClose(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String(), "served in this process, generated afresh from its seed", nil
}

// sharedFake starts (or attaches to) the demo's shared fake under
// .adsync/fake/ and, when the command ends, stops it if no other adsync
// command is using it and adsync started it.
func (e *Env) sharedFake(ctx context.Context) (apiURL, how string, err error) {
	self, err := os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("starting the demo's fake service: %w", err)
	}
	anchor, err := Anchor(AnchorFile, time.Now())
	if err != nil {
		return "", "", fmt.Errorf("starting the demo's fake service: %w", err)
	}
	f, err := localfake.Start(ctx, localfake.Options{Dir: FakeDir, Command: func(audiences, addr string) *exec.Cmd {
		c := exec.Command(self, "fixtures", "serve", "--addr", "127.0.0.1:0", "--audience-file", audiences, "--addr-file", addr)
		c.Env = append(os.Environ(), fixtures.AnchorEnv+"="+anchor.Format(time.RFC3339))
		return c
	}})
	if err != nil {
		return "", "", fmt.Errorf("starting the demo's fake service: %w", err)
	}
	e.OnClose(func() {
		if err := f.Stop(); err != nil {
			e.Log.Sugar().Warnf("stopping the demo's fake service: %v", err)
		}
	})
	switch {
	case f.StartedHere():
		how = "started for this command, stopped when the last adsync command using it ends"
	case f.ByHand:
		how = fmt.Sprintf("already running, pid %d, started by hand", f.PID)
	default:
		how = fmt.Sprintf("already running, pid %d, shared by the adsync commands run here", f.PID)
	}
	// A fake that starts with no audiences kept by an earlier one gets
	// those earlier commands created (a demo directory older than the
	// shared fake).
	e.replayPending = f.StartedHere() && f.Fresh()
	return f.URL, how, nil
}

// ReplayAudiences creates again, in a shared fake this command started
// with no audiences kept (a demo directory left by an adsync whose fakes
// lived in each command), the audiences adsync created in earlier commands
// (recorded in audience_creates), in the order they were created: the
// fake, generated afresh from its seed, then holds them under the same ids,
// and an audience created now gets an id no earlier one has.
func (e *Env) ReplayAudiences(ctx context.Context, pool *pgxpool.Pool, c *api.Client) error {
	if !e.replayPending {
		return nil
	}
	e.replayPending = false
	recs, err := audience.CreatedAudiences(ctx, pool)
	if err != nil {
		return fmt.Errorf("listing the audiences earlier commands created: %w", err)
	}
	for _, r := range recs {
		id, err := audience.CreateAudience(ctx, c, r.AccountID, r.Name)
		if err != nil {
			return fmt.Errorf("creating the demo's audience %s (%q) again in the fake service: %w", r.ID, r.Name, err)
		}
		if id != r.ID {
			e.Log.Sugar().Warnf("the fake service gave the demo's audience %q the id %s, not %s as before", r.Name, id, r.ID)
		}
	}
	return nil
}
