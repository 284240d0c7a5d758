package adsynccmd

import (
	"context"

	"github.com/adsync/adsync/cmd/internal/demo"
	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The commands ask the demo (cmd/internal/demo) through these: the names
// the command files have always used.

// demoDir holds the zero-config demo's persistent state (git-ignored).
const demoDir = demo.Dir

// demoFakeDir holds the demo's shared fake service.
var demoFakeDir = demo.FakeDir

// demoAnchorFile records the hour the demo's shared fake generates its
// data at, which demoAnchor reads.
var demoAnchorFile = demo.AnchorFile

// demoAnchor is the hour the demo's shared fake anchors its data to (see
// demo.Anchor).
var demoAnchor = demo.Anchor

// errNoDatabase is every command's answer when no database is configured
// and the current directory holds no demo database either.
var errNoDatabase = demo.ErrNoDatabase

// demoDatabaseHere reports whether the current directory holds the demo's
// local PostgreSQL cluster (left by adsync run).
func demoDatabaseHere() bool { return demo.DatabaseHere() }

// hasDatabase reports whether this command has a database: a configured
// one, or the demo's in the current directory.
func (a *app) hasDatabase() bool { return a.cfg.DatabaseURL != "" || demo.DatabaseHere() }

// database returns the URL of this command's database: the configured one,
// else the demo's (see demo.Env.Database).
func (a *app) database(ctx context.Context) (string, error) { return a.demo.Database(ctx, &a.cfg) }

// fakeForDemo points this command at the demo's shared fake service when
// the database is the demo's and no service is configured.
func (a *app) fakeForDemo(ctx context.Context) error {
	return a.demo.FakeForDemo(ctx, &a.cfg, serviceConfigured(a.cfg.API))
}

// replayDemoAudiences gives a shared fake this command started afresh the
// audiences earlier commands created (see demo.Env.ReplayAudiences).
func (a *app) replayDemoAudiences(ctx context.Context, pool *pgxpool.Pool, c *api.Client) error {
	return a.demo.ReplayAudiences(ctx, pool, c)
}
