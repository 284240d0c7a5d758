package adsynccmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
)

// Clock offset thresholds. The service checks oauth_timestamp against its
// own clock and refuses a signed call outside a window (401 code 135); the
// fake's window is 5 minutes (fixtures.Options.TimestampWindow), the value
// commonly reported for the real service, which does not document it. Past
// clockFail every signed call fails. Past clockWarn the clock is not kept by
// NTP (which holds it within milliseconds) and will drift into the window:
// worth fixing before it breaks a nightly sync. The Date header has
// one-second resolution, so smaller offsets are noise.
const (
	clockWarn = 30 * time.Second
	clockFail = 5 * time.Minute
	// doctorTimeout bounds each check, so an unreachable host fails the
	// check instead of hanging doctor.
	doctorTimeout = 10 * time.Second
)

// Check outcomes.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "FAIL"
	checkSkip = "skip"
)

// doctorCheck is one line of `adsync doctor`: what was checked, what was
// found and, unless it is ok, what to do.
type doctorCheck struct {
	status, name, found, todo string
}

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration, database, service, credentials, clock, export folder and audience sources",
		Long: `Print every setting with where its value came from (flag, environment, file:line or
default; secrets masked) and the configured audiences, then check, one line each: the
database is reachable and migrated; the service answers a call signed with these
credentials (OAuth 1.0a, GET /12/accounts); the app-only bearer token works (GET
/2/posts); this machine's clock agrees with the service's Date header (signed calls fail
past ` + clockFail.String() + `, warned past ` + clockWarn.String() + `); the export folder (export.out) is one adsync may write into; the
temporary folder (TMPDIR), where an audience plan keeps the keys of the users it has seen, takes a file; each
configured audience's source can be read (the file exists; a query parses and returns
identifier columns, run with LIMIT 0), sending nothing. Each line says ok, warn, FAIL or
skip, and what to do. Exit status 1 when any check fails.
Doctor runs no migration and leaves no file behind; it uses the bearer token cached
in the database when there is one (and caches one it obtains, as every command does).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.doctor(cmd.Context())
		},
	}
}

func (a *app) doctor(ctx context.Context) error {
	var checks []doctorCheck
	pool, dbCheck := a.checkDatabase(ctx)
	if err := a.printConfigSources(ctx, pool); err != nil {
		return err
	}
	if err := a.printAudiences(); err != nil {
		return err
	}
	checks = append(checks, dbCheck)
	dates := &dateRecorder{}
	checks = append(checks, a.checkService(ctx, pool, dates)...)
	checks = append(checks, checkClock(dates))
	checks = append(checks, a.checkExportFolder(ctx, pool))
	checks = append(checks, checkTempFolder(os.TempDir()))
	checks = append(checks, a.checkAudiences(ctx, pool)...)

	fmt.Fprintln(a.stdout, "\nCHECKS")
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	failed := 0
	for _, c := range checks {
		fmt.Fprintf(w, "%s\t%s\t%s\n", c.status, c.name, strings.ReplaceAll(c.found, "\n", " "))
		if c.todo != "" {
			fmt.Fprintf(w, "\t\t-> %s\n", c.todo)
		}
		if c.status == checkFail {
			failed++
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return &exitCodeError{code: exitError, err: fmt.Errorf("doctor: %d of %d checks failed", failed, len(checks))}
	}
	fmt.Fprintln(a.stdout, "\nall checks passed")
	return nil
}

// printConfigSources lists every setting, masked, with its origin. With
// no access token configured, one stored by adsync auth login in pool's
// database is shown as such.
func (a *app) printConfigSources(ctx context.Context, pool *pgxpool.Pool) error {
	entries, err := a.cfg.Entries()
	if err != nil {
		return err
	}
	if stored := a.storedTokenLabel(ctx, pool); stored != "" {
		for i, e := range entries {
			if (e.Key == "api.access_token" || e.Key == "api.access_secret") && e.Origin == "default" {
				entries[i].Value, entries[i].Origin = stored, "adsync auth login (database)"
			}
		}
	}
	fmt.Fprintln(a.stdout, "CONFIGURATION")
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tVALUE\tFROM")
	for _, e := range entries {
		v := e.Value
		if v == "" {
			v = "(unset)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", e.Key, v, e.Origin)
	}
	return w.Flush()
}

// storedTokenLabel is "stored: @screen_name" when no access token is
// configured and auth login stored one in pool's database; else "".
func (a *app) storedTokenLabel(ctx context.Context, pool *pgxpool.Pool) string {
	c := a.cfg.API
	if pool == nil || c.AccessToken != "" || c.AccessSecret != "" || a.cfg.SecretKey == "" {
		return ""
	}
	creds := api.Credentials{ConsumerKey: c.ConsumerKey, ConsumerSecret: c.ConsumerSecret}
	tok, err := api.PGUserTokenStore{Pool: pool, SecretKey: a.cfg.SecretKey}.Current(ctx, creds)
	if err != nil {
		return ""
	}
	if tok.ScreenName == "" {
		return "stored: user " + tok.UserID
	}
	return "stored: @" + strings.TrimPrefix(tok.ScreenName, "@")
}

// from says where a setting came from, for a check's advice.
func (a *app) from(key string) string {
	return key + " (from " + a.cfg.Origin(key) + ")"
}

// checkDatabase connects and lists pending migrations. The pool is nil
// unless the database is reachable.
func (a *app) checkDatabase(ctx context.Context) (*pgxpool.Pool, doctorCheck) {
	c := doctorCheck{name: "database"}
	// The configured database, or the demo's when the current directory
	// holds one (see database).
	dbURL, err := a.database(ctx)
	if errors.Is(err, errNoDatabase) {
		c.status, c.found = checkFail, "no database configured"
		c.todo = "set --database-url or ADSYNC_DATABASE_URL (or database_url in the file)"
		return nil, c
	}
	if err != nil {
		c.status, c.found = checkFail, err.Error()
		c.todo = "set " + a.from("database_url") + " to a database you run"
		return nil, c
	}
	pool, err := store.Connect(ctx, dbURL, store.ConnectOptions{MaxConns: 4, Timeout: doctorTimeout})
	if err != nil {
		c.status, c.found = checkFail, err.Error()
		c.todo = "start Postgres or correct " + a.from("database_url")
		return nil, c
	}
	a.onClose(pool.Close)
	cc := pool.Config().ConnConfig
	where := fmt.Sprintf("database %q at %s", cc.Database, store.ServerName(cc.Host, cc.Port))
	vs, err := migrations.Status(ctx, pool, nil)
	if err != nil {
		c.status, c.found = checkFail, where+" is reachable; reading its migrations failed: "+err.Error()
		c.todo = "check that the user may read the database (adsync migrate creates what is missing)"
		return nil, c
	}
	if pending := migrations.PendingNames(vs); len(pending) > 0 {
		c.status = checkFail
		c.found = fmt.Sprintf("%s is reachable; %d pending migrations: %s", where, len(pending), strings.Join(pending, ", "))
		c.todo = "run adsync migrate"
		// The other checks use the database only once it is migrated.
		return nil, c
	}
	c.status, c.found = checkOK, fmt.Sprintf("%s is reachable and migrated (%d migrations applied)", where, len(vs))
	return pool, c
}

// checkService makes one call signed with the user's token and one with
// the app-only bearer token, recording the answers' Date headers.
func (a *app) checkService(ctx context.Context, pool *pgxpool.Pool, dates *dateRecorder) []doctorCheck {
	svc := doctorCheck{name: "service"}
	bearer := doctorCheck{name: "bearer"}
	cfg, err := a.apiConfig(ctx, pool)
	if undecryptable := (*api.UndecryptableTokenError)(nil); errors.As(err, &undecryptable) {
		svc.status, svc.found, svc.todo = checkFail, undecryptable.Error(), undecryptable.WayOut()
		bearer.status, bearer.found = checkSkip, "needs the stored user token readable"
		return []doctorCheck{svc, bearer}
	}
	if err != nil {
		svc.status, svc.found = checkFail, err.Error()
		bearer.status, bearer.found = checkSkip, "needs the service configured"
		return []doctorCheck{svc, bearer}
	}
	// One attempt each: doctor reports a fault, it does not ride it out.
	cfg.MaxAttempts = 1
	cfg.Timeout = min(cfg.Timeout, doctorTimeout)
	cfg.HTTPClient = &http.Client{Transport: &dateTransport{base: http.DefaultTransport, rec: dates}}
	client, err := api.NewClient(cfg)
	if err != nil {
		svc.status, svc.found = checkFail, err.Error()
		svc.todo = "correct " + a.from("api.url") + " and " + a.from("api.ads_url")
		bearer.status, bearer.found = checkSkip, "needs the service configured"
		return []doctorCheck{svc, bearer}
	}

	switch {
	case cfg.UserToken == nil && pool == nil && a.cfg.SecretKey != "":
		// A token stored by adsync auth login is in the database, which
		// failed its check: that, not the token, is what to fix.
		svc.status, svc.found = checkSkip, "needs the database: a token stored by adsync auth login is kept there"
	case cfg.UserToken == nil:
		svc.status, svc.found = checkFail, "no user access token: signed calls cannot be made"
		svc.todo = "run adsync auth login (stores a token; needs secret_key), or set ADSYNC_ACCESS_TOKEN and ADSYNC_ACCESS_SECRET"
	default:
		cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
		resp, err := client.Do(cctx, &api.Request{Method: http.MethodGet, Base: api.BaseAds, Path: "/12/accounts",
			Query: url.Values{"count": {"200"}}, Auth: api.AuthUser})
		cancel()
		if err != nil {
			svc.status, svc.found, svc.todo = checkFail, err.Error(), a.serviceAdvice(err, "api.ads_url")
		} else {
			var page struct {
				Data       []json.RawMessage `json:"data"`
				NextCursor *string           `json:"next_cursor"`
			}
			_ = json.Unmarshal(resp.Body, &page)
			reach := fmt.Sprintf("%d accounts", len(page.Data))
			if page.NextCursor != nil {
				reach = "at least " + reach + " (one page read)"
			}
			svc.status = checkOK
			svc.found = fmt.Sprintf("%s answered a signed GET /12/accounts: these credentials reach %s", cfg.AdsURL, reach)
		}
	}

	cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	// Post 20 is the service's first: found or not, a 200 proves the token.
	_, err = client.Do(cctx, &api.Request{Method: http.MethodGet, Base: api.BaseAPI, Path: "/2/posts",
		Query: url.Values{"ids": {"20"}}, Auth: api.AuthBearer})
	if err != nil {
		bearer.status, bearer.found, bearer.todo = checkFail, err.Error(), a.serviceAdvice(err, "api.url")
	} else {
		bearer.status, bearer.found = checkOK, "app-only bearer token obtained and accepted by GET /2/posts"
	}
	return []doctorCheck{svc, bearer}
}

// serviceAdvice says what to do about a failed call to the base at key.
func (a *app) serviceAdvice(err error, key string) string {
	var terr *api.TransportError
	var rerr *api.RetryAtError
	switch {
	case errors.As(err, &terr), errors.Is(err, context.DeadlineExceeded):
		return "the service did not answer: check " + a.from(key) + " and the network"
	case errors.Is(err, api.ErrTimestampOutOfBounds):
		return "this machine's clock is off (see clock): synchronize it (NTP, e.g. timedatectl set-ntp true)"
	case errors.Is(err, api.ErrInvalidToken):
		return "the access token was revoked or expired: run adsync auth login, or set a valid ADSYNC_ACCESS_TOKEN and ADSYNC_ACCESS_SECRET"
	case errors.Is(err, api.ErrCouldNotAuthenticate), errors.Is(err, api.ErrBadAuthData):
		return "the service refused the credentials: check " + a.from("api.consumer_key") + ", " + a.from("api.consumer_secret") +
			", " + a.from("api.access_token") + " and " + a.from("api.access_secret")
	case errors.As(err, &rerr) && rerr.HeldBack:
		// Nothing was sent: these very credentials were answered 403 code
		// 99 earlier (changed credentials are not held back).
		return "no bearer token request was sent: this consumer key and secret were answered 403 code 99 earlier (a wrong key or secret, or tokens requested too often); check " +
			a.from("api.consumer_key") + " and " + a.from("api.consumer_secret") + " (corrected credentials are not held back), else try again after " + rerr.At.UTC().Format(time.RFC3339)
	case errors.As(err, &rerr) && rerr.Endpoint == "POST /oauth2/token":
		// The service answers 403 code 99 "Unable to verify your
		// credentials" both to a wrong key or secret and to requests
		// that come too often.
		return "the service refused the bearer token request (403 code 99): check " + a.from("api.consumer_key") + " and " +
			a.from("api.consumer_secret") + "; if they are right, tokens were requested too often: try again after " + rerr.At.UTC().Format(time.RFC3339)
	case errors.As(err, &rerr):
		return "rate limited: try again after " + rerr.At.UTC().Format(time.RFC3339)
	}
	var oe *api.OAuthError
	if errors.As(err, &oe) && (oe.Status == http.StatusUnauthorized || oe.Status == http.StatusForbidden) {
		return "the service refused the application credentials: check " + a.from("api.consumer_key") + " and " + a.from("api.consumer_secret")
	}
	return "check " + a.from(key)
}

// checkClock compares this machine's clock with the Date headers of the
// service's answers.
func checkClock(dates *dateRecorder) doctorCheck {
	c := doctorCheck{name: "clock"}
	offset, n := dates.offset()
	if n == 0 {
		c.status, c.found = checkSkip, "no answer from the service carried a Date header to compare with"
		return c
	}
	abs := offset
	if abs < 0 {
		abs = -abs
	}
	ahead := "ahead of"
	if offset < 0 {
		ahead = "behind"
	}
	c.found = fmt.Sprintf("the service's clock is %s %s this machine's (Date header, 1s resolution)", abs.Round(time.Second), ahead)
	if abs < time.Second {
		c.found = "the service's clock agrees with this machine's within a second (Date header)"
	}
	switch {
	case abs >= clockFail:
		c.status = checkFail
		c.todo = fmt.Sprintf("signed calls fail past %s of skew: synchronize this machine's clock (NTP, e.g. timedatectl set-ntp true)", clockFail)
	case abs >= clockWarn:
		c.status = checkWarn
		c.todo = fmt.Sprintf("signed calls still pass, and fail past %s: synchronize this machine's clock (NTP)", clockFail)
	default:
		c.status = checkOK
	}
	return c
}

// checkExportFolder applies the export folder's rules to export.out.
func (a *app) checkExportFolder(ctx context.Context, pool *pgxpool.Pool) doctorCheck {
	out := a.cfg.Export.Out
	if name := export.OutputName(out); export.IsObjectStore(out) {
		out = name
	} else if name != out {
		out = fmt.Sprintf("%s (%s)", out, name)
	}
	c := doctorCheck{name: "export"}
	state, err := export.CheckOutput(ctx, pool, a.cfg.Export.Out)
	var oe *export.OwnershipError
	var refused *export.EndpointRefusedError
	switch {
	case errors.As(err, &refused):
		c.status, c.found = checkFail, err.Error()
		c.todo = "start the S3 server at " + refused.Endpoint + ", or correct the endpoint in " + a.from("export.out")
		return c
	case errors.As(err, &oe):
		c.status, c.found = checkFail, "export would refuse "+out+": "+oe.Reason
		c.todo = "point " + a.from("export.out") + " at a new or empty folder or prefix (adsync marks it and owns it from then on)"
		return c
	case err != nil:
		c.status, c.found = checkFail, err.Error()
		c.todo = "make it writable, or point " + a.from("export.out") + " elsewhere"
		return c
	}
	c.status = checkOK
	switch state {
	case export.FolderMissing:
		c.found = out + " does not exist yet; export will create it (its parent is writable)"
	case export.FolderEmpty:
		c.found = out + " is empty and writable; the first export marks it as adsync's"
	case export.FolderEarlier:
		c.found = out + " holds an earlier adsync export and is writable; the next export adopts it"
	default:
		c.found = out + " is adsync's export output for this database and is writable"
		if pool == nil {
			c.found = out + " has adsync's marker and is writable (which database owns it is not checked: no database)"
		}
	}
	return c
}

// dateRecorder keeps the service's Date headers with the local time of
// each exchange.
type dateRecorder struct {
	mu      sync.Mutex
	offsets []time.Duration
}

// offset is the median of the recorded offsets (service minus local) and
// how many there are.
func (d *dateRecorder) offset() (time.Duration, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.offsets) == 0 {
		return 0, 0
	}
	s := slices.Clone(d.offsets)
	slices.Sort(s)
	return s[len(s)/2], len(s)
}

// dateTransport records each answer's Date header against the midpoint of
// the exchange, the best local estimate of when the service wrote it.
type dateTransport struct {
	base http.RoundTripper
	rec  *dateRecorder
}

func (t *dateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if date, perr := http.ParseTime(resp.Header.Get("Date")); perr == nil {
		mid := start.Add(time.Since(start) / 2)
		// Date truncates to the second: its true instant is on average
		// half a second later.
		off := date.Add(500 * time.Millisecond).Sub(mid)
		t.rec.mu.Lock()
		t.rec.offsets = append(t.rec.offsets, off)
		t.rec.mu.Unlock()
	}
	return resp, nil
}
