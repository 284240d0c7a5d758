package adsynccmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// testSecretKey encrypts stored tokens in these tests.
const testSecretKey = "test-secret-key-never-printed-anywhere"

// busyWait bounds a wait for work the commands do in the background (a
// worker's jobs and schedules, its HTTP server starting, a browser loading
// its pages): far above the few seconds it takes on a quiet machine, so a
// machine loaded by other test processes does not fail the test. A wait
// ends as soon as its condition holds.
const busyWait = 2 * time.Minute

// serviceBundle is a fake service, a migrated database and a configuration
// file pointing at both.
type serviceBundle struct {
	srv  *fixtures.Served
	db   string
	conf string
	// now is the pinned clock of the fake and the commands (zero: time.Now).
	now time.Time
}

// bundleOptions shape the configuration file.
type bundleOptions struct {
	noSecretKey bool
	ownerToken  bool // configure the application owner's access token
	// now pins the fake's clock and the commands' analytics clock to an
	// instant (the fake's OAuth timestamp window widened to reach this
	// machine's clock).
	now time.Time
	// fake adjusts the fake service's options.
	fake func(*fixtures.Options)
}

func setupService(t *testing.T, o bundleOptions) *serviceBundle {
	t.Helper()
	tweak := func(fo *fixtures.Options) {
		// About 2,000 of the tens of thousands of locations: a command
		// that syncs or exports every table handles the whole list, which
		// no test here learns anything from (jobs' targeting option tests
		// sync the full one).
		fo.Locations = 2000
		if !o.now.IsZero() {
			fo.Now = func() time.Time { return o.now }
			fo.TimestampWindow = max(fo.TimestampWindow, time.Since(o.now).Abs()+time.Hour)
		}
		if o.fake != nil {
			o.fake(fo)
		}
	}
	// A copy of a database migrated once per test binary: the migrate
	// command on an empty database is TestMigrateThenStatusShowsNothingPending's.
	b := &serviceBundle{srv: fixtures.Serve(t, tweak), db: synctest.MigratedDatabase(t), now: o.now}
	b.conf = b.writeConfig(t, o, nil)
	return b
}

// writeConfig writes a YAML configuration for the fake; token, when given,
// is configured as the access token.
func (b *serviceBundle) writeConfig(t *testing.T, o bundleOptions, token *api.Token) string {
	t.Helper()
	apiURL, adsURL, sandboxURL := b.srv.APIURL, b.srv.AdsURL, b.srv.SandboxAdsURL
	opts := b.srv.Options()
	var y strings.Builder
	fmt.Fprintf(&y, "api:\n  url: %s\n  ads_url: %s\n  sandbox_ads_url: %s\n  consumer_key: %s\n  consumer_secret: %s\n",
		apiURL, adsURL, sandboxURL, opts.ConsumerKey, opts.ConsumerSecret)
	if o.ownerToken {
		token = &api.Token{Token: opts.OwnerToken, Secret: opts.OwnerSecret}
	}
	if token != nil {
		fmt.Fprintf(&y, "  access_token: %q\n  access_secret: %q\n", token.Token, token.Secret)
	}
	if !o.noSecretKey {
		fmt.Fprintf(&y, "secret_key: %s\n", testSecretKey)
	}
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(file, []byte(y.String()), 0o600))
	return file
}

// run runs adsync with the bundle's configuration and database.
func (b *serviceBundle) run(t *testing.T, args ...string) result {
	t.Helper()
	return b.runCtx(context.Background(), t, args...)
}

// runCtx is run under ctx (cancelling it is an interrupt), on the bundle's
// clock.
func (b *serviceBundle) runCtx(ctx context.Context, t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	if !b.now.IsZero() {
		// The commands' clock starts at the pinned instant and flows, as a
		// real clock does: the analytics jobs' waits are measured on it.
		start := time.Now()
		a.now = func() time.Time { return b.now.Add(time.Since(start)) }
	}
	code := a.run(ctx, append(args, "--config", b.conf, "--database-url", b.db))
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// pool opens the bundle's database.
func (b *serviceBundle) pool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := store.Connect(context.Background(), b.db, store.ConnectOptions{MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

func (b *serviceBundle) creds() api.Credentials {
	o := b.srv.Options()
	return api.Credentials{ConsumerKey: o.ConsumerKey, ConsumerSecret: o.ConsumerSecret}
}

// client is a library client for the fake, for checks the command line
// cannot make.
func (b *serviceBundle) client(t *testing.T) *api.Client {
	t.Helper()
	apiURL, adsURL, sandboxURL := b.srv.APIURL, b.srv.AdsURL, b.srv.SandboxAdsURL
	c, err := api.NewClient(api.Config{APIURL: apiURL, AdsURL: adsURL, SandboxAdsURL: sandboxURL, Credentials: b.creds()})
	require.NoError(t, err)
	return c
}

// userClient is a library client signing with the application owner's
// token.
func (b *serviceBundle) userClient(t *testing.T) *api.Client {
	t.Helper()
	o := b.srv.Options()
	c, err := api.NewClient(api.Config{APIURL: b.srv.APIURL, AdsURL: b.srv.AdsURL, SandboxAdsURL: b.srv.SandboxAdsURL,
		Credentials: b.creds(), UserToken: &api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret}})
	require.NoError(t, err)
	return c
}

// requireNoSecrets fails if any of the fake's application secrets or the
// given values appear in out.
func (b *serviceBundle) requireNoSecrets(t *testing.T, out string, values ...string) {
	t.Helper()
	o := b.srv.Options()
	for _, s := range append([]string{o.ConsumerSecret, o.OwnerToken, o.OwnerSecret, testSecretKey}, values...) {
		require.NotEmpty(t, s)
		require.NotContains(t, out, s)
	}
}

// cachedBearer reads the bearer token adsync cached in Postgres.
func (b *serviceBundle) cachedBearer(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	pool := b.pool(t)
	var app string
	require.NoError(t, pool.QueryRow(ctx, `SELECT app FROM api_bearer_tokens WHERE token_enc IS NOT NULL`).Scan(&app))
	tok, _, err := api.PGBearerStore{Pool: pool}.Load(ctx, app, b.creds())
	require.NoError(t, err)
	return tok
}
