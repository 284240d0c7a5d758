package adsynccmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localfake"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5/pgxpool"
)

// demoPGDir holds the demo's local PostgreSQL cluster.
var demoPGDir = filepath.Join(demoDir, "pg")

// demoFakeDir holds the demo's shared fake service: where it listens, its
// audiences, its log.
var demoFakeDir = filepath.Join(demoDir, "fake")

// errNoDatabase is every command's answer when no database is configured
// and the current directory holds no demo database either.
var errNoDatabase = errors.New("no database configured: set --database-url or ADSYNC_DATABASE_URL, " +
	"or run these commands where adsync run (make run) left its local Postgres in " + demoDir + "/")

// demoDatabaseHere reports whether the current directory holds the demo's
// local PostgreSQL cluster (left by adsync run).
func demoDatabaseHere() bool {
	_, err := os.Stat(filepath.Join(demoPGDir, "data", "PG_VERSION"))
	return err == nil
}

// hasDatabase reports whether this command has a database: a configured
// one, or the demo's in the current directory.
func (a *app) hasDatabase() bool { return a.cfg.DatabaseURL != "" || demoDatabaseHere() }

// database returns the URL of this command's database. With none
// configured it is the demo's local Postgres when the current directory
// holds one, started on demand (stopped by the last adsync command using
// it) and announced in one line on stderr; elsewhere no
// database configured is an error.
func (a *app) database(ctx context.Context) (string, error) {
	if a.cfg.DatabaseURL != "" {
		return a.cfg.DatabaseURL, nil
	}
	if !demoDatabaseHere() {
		return "", errNoDatabase
	}
	c, err := a.startLocalPostgres(ctx)
	if err != nil {
		return "", err
	}
	how := "started for this command, stopped when the last adsync command using it ends"
	if !c.StartedHere() {
		how = "already running"
	}
	fmt.Fprintf(a.stderr, "adsync: no database configured: using the demo's local Postgres in %s/ (%s)\n", demoPGDir, how)
	return a.cfg.DatabaseURL, nil
}

// startLocalPostgres starts (or attaches to) the local Postgres under
// .adsync/, makes it this command's database and, when the command ends,
// stops it if no other adsync command is using it and adsync started it.
func (a *app) startLocalPostgres(ctx context.Context) (*localpg.Cluster, error) {
	c, err := localpg.Start(ctx, localpg.Options{Dir: demoPGDir, Persistent: true, Durable: true})
	if err != nil {
		return nil, fmt.Errorf("starting the local Postgres: %w", err)
	}
	a.onClose(func() {
		if err := c.Stop(); err != nil {
			a.log.Sugar().Warnf("stopping the local Postgres: %v", err)
		}
	})
	a.cfg.DatabaseURL = c.URL("postgres")
	a.demoDB = true
	return c, nil
}

// serviceConfigured reports whether any service setting is configured.
func (a *app) serviceConfigured() bool {
	for _, s := range serviceSettings(a.cfg.API) {
		if s.value != "" {
			return true
		}
	}
	return false
}

// fakeForDemo points this command at the demo's shared fake service when
// the database is the demo's and no service is configured: every command
// run in the demo's directory then talks to one fake. A configured database
// never gets its data (the demo database is never a configured one).
func (a *app) fakeForDemo(ctx context.Context) error {
	if !a.demoDB || a.fakeStarted || a.serviceConfigured() {
		return nil
	}
	apiURL, _, how, err := a.startFake(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "adsync: no service configured: using the demo's fake service at %s (%s)\n", apiURL, how)
	return nil
}

// startFake points the configuration at the fake service with the default
// generated data: for the demo's database the fake shared by every adsync
// command run in its directory (started if none runs), else one served in
// this process. how says which, for people.
func (a *app) startFake(ctx context.Context) (apiURL, adsURL, how string, err error) {
	anchor, err := fixtures.AnchorFromEnv()
	if err != nil {
		return "", "", "", err
	}
	opts := fixtures.DefaultOptions()
	opts.Anchor = anchor
	if a.demoDB {
		f, err := a.startSharedFake(ctx)
		if err != nil {
			return "", "", "", err
		}
		apiURL = f.URL
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
		a.replayPending = f.StartedHere() && f.Fresh()
	} else {
		srv := fixtures.New(opts)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", "", "", fmt.Errorf("starting the fake service: %w", err)
		}
		hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = hs.Serve(ln) }()
		a.onClose(func() { _ = hs.Close() })
		apiURL, how = "http://"+ln.Addr().String(), "served in this process, generated afresh from its seed"
	}
	apiURL, adsURL, sandboxURL := fixtures.URLs(apiURL)
	a.cfg.API.URL, a.cfg.API.AdsURL, a.cfg.API.SandboxAdsURL = apiURL, adsURL, sandboxURL
	a.cfg.API.ConsumerKey, a.cfg.API.ConsumerSecret = opts.ConsumerKey, opts.ConsumerSecret
	a.cfg.API.AccessToken, a.cfg.API.AccessSecret = opts.OwnerToken, opts.OwnerSecret
	a.fakeStarted = true
	return apiURL, adsURL, how, nil
}

// demoAnchorFile records the hour the demo's shared fake generates its data
// at (see demoAnchor).
var demoAnchorFile = filepath.Join(demoFakeDir, "anchor")

// demoAnchorFor is how long the demo's fakes keep one anchor.
const demoAnchorFor = 24 * time.Hour

// demoAnchor is the hour the demo's shared fake anchors its generated data
// to: ADSYNC_FAKE_ANCHOR when set, else the hour recorded in file while it
// is less than demoAnchorFor old, else the current hour, recorded. Every
// fake started for the demo within a day so holds the same data, and a
// second pass an hour later finds its records unchanged; after a day the
// data moves to the present (one pass then sees every record changed), so
// the analytics' trailing days stay covered.
func demoAnchor(file string, now time.Time) (time.Time, error) {
	if t, err := fixtures.AnchorFromEnv(); err != nil || !t.IsZero() {
		return t, err
	}
	if b, err := os.ReadFile(file); err == nil {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
		if age := now.Sub(t); err == nil && age >= 0 && age < demoAnchorFor {
			return t.UTC(), nil
		}
	}
	t := now.UTC().Truncate(time.Hour)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return time.Time{}, err
	}
	return t, os.WriteFile(file, []byte(t.Format(time.RFC3339)+"\n"), 0o644)
}

// startSharedFake starts (or attaches to) the demo's shared fake under
// .adsync/fake/ and, when the command ends, stops it if no other adsync
// command is using it and adsync started it.
func (a *app) startSharedFake(ctx context.Context) (*localfake.Fake, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting the demo's fake service: %w", err)
	}
	anchor, err := demoAnchor(demoAnchorFile, time.Now())
	if err != nil {
		return nil, fmt.Errorf("starting the demo's fake service: %w", err)
	}
	f, err := localfake.Start(ctx, localfake.Options{Dir: demoFakeDir, Command: func(audiences, addr string) *exec.Cmd {
		c := exec.Command(self, "fixtures", "serve", "--addr", "127.0.0.1:0", "--audience-file", audiences, "--addr-file", addr)
		c.Env = append(os.Environ(), fixtures.AnchorEnv+"="+anchor.Format(time.RFC3339))
		return c
	}})
	if err != nil {
		return nil, fmt.Errorf("starting the demo's fake service: %w", err)
	}
	a.onClose(func() {
		if err := f.Stop(); err != nil {
			a.log.Sugar().Warnf("stopping the demo's fake service: %v", err)
		}
	})
	return f, nil
}

// replayDemoAudiences creates again, in a shared fake this command started
// with no audiences kept (a demo directory left by an adsync whose fakes
// lived in each command), the audiences adsync created in earlier commands
// (recorded in audience_creates), in the order they were created: the
// fake, generated afresh from its seed, then holds them under the same ids,
// and an audience created now gets an id no earlier one has.
func (a *app) replayDemoAudiences(ctx context.Context, pool *pgxpool.Pool, c *api.Client) error {
	if !a.replayPending {
		return nil
	}
	a.replayPending = false
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
			a.log.Sugar().Warnf("the fake service gave the demo's audience %q the id %s, not %s as before", r.Name, id, r.ID)
		}
	}
	return nil
}
