package adsynccmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a bytes.Buffer safe to write from a command's goroutine
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// interactive is a command running in the background with a pipe on stdin.
type interactive struct {
	stdin          *io.PipeWriter
	stdout, stderr *lockedBuffer
	done           chan result
}

func (b *serviceBundle) start(t *testing.T, args ...string) *interactive {
	t.Helper()
	pr, pw := io.Pipe()
	it := &interactive{stdin: pw, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan result, 1)}
	args = append(args, "--config", b.conf, "--database-url", b.db)
	go func() {
		code := Run(context.Background(), args, pr, it.stdout, it.stderr)
		_ = pr.Close()
		it.done <- result{code: code, stdout: it.stdout.String(), stderr: it.stderr.String()}
	}()
	t.Cleanup(func() { _ = pw.Close() })
	return it
}

var authorizeURLPattern = regexp.MustCompile(`http://\S+/oauth/(authorize|authenticate)\?\S+`)

// authorizeURL waits for the command to print the authorization URL.
func (it *interactive) authorizeURL(t *testing.T) string {
	t.Helper()
	var u string
	require.Eventually(t, func() bool {
		u = authorizeURLPattern.FindString(it.stdout.String())
		return u != ""
	}, 10*time.Second, 10*time.Millisecond, "no authorization URL; stderr: %s", it.stderr.String())
	return u
}

func (it *interactive) wait(t *testing.T) result {
	t.Helper()
	select {
	case r := <-it.done:
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("the command did not finish; stdout: %s; stderr: %s", it.stdout.String(), it.stderr.String())
		return result{}
	}
}

var pinPattern = regexp.MustCompile(`<code id="oauth_pin">([^<]+)</code>`)

// approveInBrowser acts as the user's browser: it opens authURL, signs in
// as the application owner and allows the application. The client follows
// redirects, so in loopback mode the answer is the command's own page.
func approveInBrowser(t *testing.T, authURL string) (status int, page string) {
	t.Helper()
	return approveInBrowserAs(t, authURL, fixtures.DefaultOwnerScreen, fixtures.OwnerPassword)
}

// approveInBrowserAs is approveInBrowser signing in as user.
func approveInBrowserAs(t *testing.T, authURL, user, password string) (status int, page string) {
	t.Helper()
	status, page, err := fixtures.ApproveAs(authURL, user, password)
	require.NoError(t, err, page)
	return status, page
}

// storedToken decrypts the stored token of the owner and checks that the
// row holds it only encrypted.
func (b *serviceBundle) storedToken(t *testing.T) api.UserToken {
	t.Helper()
	ctx := context.Background()
	pool := b.pool(t)
	ut, err := api.PGUserTokenStore{Pool: pool, SecretKey: testSecretKey}.Current(ctx, b.creds())
	require.NoError(t, err)
	require.Equal(t, fixtures.DefaultOwnerUserID, ut.UserID)
	var te, se []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT token_enc, secret_enc FROM api_user_tokens WHERE user_id = $1`, ut.UserID).Scan(&te, &se))
	for _, enc := range [][]byte{te, se} {
		require.NotEmpty(t, enc)
		require.False(t, bytes.Contains(enc, []byte(ut.Token)), "token stored in clear")
		require.False(t, bytes.Contains(enc, []byte(ut.Secret)), "secret stored in clear")
	}
	return ut
}

// revokeAndCheck runs auth revoke and checks that the fake now refuses the
// token with 401 code 89, through a failing `adsync api` call.
func (b *serviceBundle) revokeAndCheck(t *testing.T, ut api.UserToken) {
	t.Helper()
	r := b.run(t, "auth", "revoke")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "revoked the token of @"+fixtures.DefaultOwnerScreen+" (user id "+fixtures.DefaultOwnerUserID+")\n", r.stdout)
	b.requireNoSecrets(t, r.stdout+r.stderr, ut.Token, ut.Secret)

	_, err := api.PGUserTokenStore{Pool: b.pool(t), SecretKey: testSecretKey}.Current(context.Background(), b.creds())
	require.ErrorIs(t, err, api.ErrNoStoredToken, "revoked tokens are forgotten")

	conf := b.writeConfig(t, bundleOptions{}, &api.Token{Token: ut.Token, Secret: ut.Secret})
	r = run(t, "api", "POST", "/1.1/oauth/invalidate_token", "--config", conf)
	require.Equal(t, 1, r.code, r.stdout)
	require.Empty(t, r.stdout)
	require.Contains(t, r.stderr, "POST /1.1/oauth/invalidate_token: HTTP 401: code 89")
	require.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	b.requireNoSecrets(t, r.stderr, ut.Token, ut.Secret)
}

func TestAuthLoginWithPINStoresTheTokenEncrypted(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	it := b.start(t, "auth", "login", "--access-type", "write", "--screen-name", fixtures.DefaultOwnerScreen, "--log-level", "debug")
	authURL := it.authorizeURL(t)
	require.Contains(t, authURL, "screen_name="+fixtures.DefaultOwnerScreen)
	require.Eventually(t, func() bool { return strings.Contains(it.stdout.String(), "Enter the PIN:") }, 5*time.Second, 10*time.Millisecond)

	status, page := approveInBrowser(t, authURL)
	require.Equal(t, http.StatusOK, status, page)
	m := pinPattern.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	_, err := io.WriteString(it.stdin, m[1]+"\n")
	require.NoError(t, err)

	r := it.wait(t)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "logged in as @"+fixtures.DefaultOwnerScreen+" (user id "+fixtures.DefaultOwnerUserID+", access write); token stored encrypted\n")
	ut := b.storedToken(t)
	require.Equal(t, "write", ut.AccessType)
	b.requireNoSecrets(t, r.stdout+r.stderr, ut.Token, ut.Secret)

	b.revokeAndCheck(t, ut)
}

func TestAuthLoginWithLoopbackCatchesTheVerifier(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	it := b.start(t, "auth", "login", "--callback", "loopback", "--access-type", "read", "--force-login", "--timeout", "20s")
	authURL := it.authorizeURL(t)
	require.Contains(t, authURL, "force_login=true")
	require.Regexp(t, `Waiting for the browser's redirect to http://127\.0\.0\.1:\d+/callback`, it.stdout.String())

	status, page := approveInBrowser(t, authURL)
	require.Equal(t, http.StatusOK, status, page)
	require.Contains(t, page, "adsync is authorized")

	r := it.wait(t)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "logged in as @"+fixtures.DefaultOwnerScreen+" (user id "+fixtures.DefaultOwnerUserID+", access read); token stored encrypted\n")
	ut := b.storedToken(t)
	require.Equal(t, "read", ut.AccessType)
	b.requireNoSecrets(t, r.stdout+r.stderr, ut.Token, ut.Secret)

	b.revokeAndCheck(t, ut)
}

func TestAuthLoginLoopbackReportsADenial(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	it := b.start(t, "auth", "login", "--callback", "loopback", "--timeout", "20s")
	authURL := it.authorizeURL(t)
	u, err := url.Parse(authURL)
	require.NoError(t, err)
	resp, err := http.PostForm(u.ResolveReference(&url.URL{Path: "authorize"}).String(),
		url.Values{"oauth_token": {u.Query().Get("oauth_token")}, "cancel": {"1"}})
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(body), "denied")

	r := it.wait(t)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "the user denied the authorization")
	require.Zero(t, b.srv.Stats().Family("POST /oauth/access_token").Requests)
}

func TestAuthLoginWithoutSecretKeyRefusesBeforeContactingTheService(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{noSecretKey: true})
	r := b.run(t, "auth", "login")
	require.Equal(t, 1, r.code)
	require.Equal(t, "adsync: "+api.ErrNoSecretKey.Error()+"\n", r.stderr)
	require.Empty(t, r.stdout)
	require.Zero(t, b.srv.Stats().Total(), "no request reached the service")
}

func TestAuthLoginWithoutDatabaseRefusesBeforeContactingTheService(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	r := run(t, "auth", "login", "--config", b.conf)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "no database configured")
	require.Zero(t, b.srv.Stats().Total(), "no request reached the service")
}

func TestAuthLoginFlagsAreValidated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--access-type", "bogus"}, `--access-type "bogus": must be read or write`},
		{[]string{"--callback", "https://example.com/cb"}, "must be oob or loopback"},
		{[]string{"--callback", "loopback", "--port", "70000"}, "out of range"},
		{[]string{"--port", "8765"}, "--port applies to --callback loopback only"},
		{[]string{"--timeout", "0s"}, "--timeout must be positive"},
	} {
		r := run(t, append([]string{"auth", "login"}, tc.args...)...)
		require.Equal(t, 2, r.code, tc.args)
		require.Contains(t, r.stderr, tc.want, tc.args)
	}
}

func TestAuthRevokeOfAnAlreadyInvalidTokenStillMarksItRevoked(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	// Store a token obtained through the library, then invalidate it behind
	// adsync's back.
	ctx := context.Background()
	c := b.client(t)
	rt, err := api.RequestToken(ctx, c, "oob", "")
	require.NoError(t, err)
	_, page := approveInBrowser(t, api.AuthorizeURL(c, rt.Token, api.AuthorizeOptions{}))
	m := pinPattern.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	ut, err := api.AccessToken(ctx, c, rt, m[1])
	require.NoError(t, err)
	ut.AccessType = "write"
	pool := b.pool(t)
	require.NoError(t, api.PGUserTokenStore{Pool: pool, SecretKey: testSecretKey}.Save(ctx, b.creds(), ut))
	require.NoError(t, api.InvalidateUserToken(ctx, c, api.Token{Token: ut.Token, Secret: ut.Secret}))

	r := b.run(t, "auth", "revoke", "--user-id", ut.UserID)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "was already invalid; marked revoked")
	var revoked bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT revoked_at IS NOT NULL FROM api_user_tokens WHERE user_id = $1`, ut.UserID).Scan(&revoked))
	require.True(t, revoked)
	b.requireNoSecrets(t, r.stdout+r.stderr, ut.Token, ut.Secret)

	r = b.run(t, "auth", "revoke")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, api.ErrNoStoredToken.Error())
}

var maskedBearer = regexp.MustCompile(`^bearer token ready \(…\S{4}\)\n$`)

func TestAuthBearerIsCachedAndPrintedMasked(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "auth", "bearer", "--log-level", "debug")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, maskedBearer, r.stdout)
	require.Contains(t, r.stderr, "api response", "debug logs were written, and are checked for secrets below")
	first := b.cachedBearer(t)
	require.NotEmpty(t, first)
	require.Contains(t, r.stdout, first[len(first)-4:])
	b.requireNoSecrets(t, r.stdout+r.stderr, first)

	r = b.run(t, "auth", "bearer")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, maskedBearer, r.stdout)
	require.Equal(t, 1, b.srv.Stats().Family("POST /oauth2/token").Requests, "the cached token is reused")

	r = b.run(t, "auth", "bearer-revoke")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "bearer token (…"+first[len(first)-4:]+") invalidated\n", r.stdout)
	b.requireNoSecrets(t, r.stdout+r.stderr, first)
	require.Equal(t, 1, b.srv.Stats().Family("POST /oauth2/invalidate_token").ByStatus[200])

	r = b.run(t, "auth", "bearer")
	require.Equal(t, 0, r.code, r.stderr)
	second := b.cachedBearer(t)
	require.NotEqual(t, first, second)
	require.Equal(t, 2, b.srv.Stats().Family("POST /oauth2/token").Requests)
	b.requireNoSecrets(t, r.stdout+r.stderr, first, second)
}

func TestAuthBearerRevokeWithoutOwnerTokenFails(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	r := b.run(t, "auth", "bearer-revoke")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "no user access token configured")
	require.Zero(t, b.srv.Stats().Family("POST /oauth2/invalidate_token").Requests)
	tok := b.cachedBearer(t)
	b.requireNoSecrets(t, r.stdout+r.stderr, tok)
}

func TestAuthLoginGivesUpWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	r := b.run(t, "auth", "login", "--callback", "loopback", "--timeout", "300ms")
	require.Equal(t, 1, r.code)
	require.Equal(t, "adsync: auth login: timed out waiting for the browser's redirect (see --timeout)\n", r.stderr)

	r = b.run(t, "auth", "login") // stdin is empty
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "no PIN entered (end of input)")
	st := b.srv.Stats()
	require.Equal(t, 2, st.Family("POST /oauth/request_token").ByStatus[200])
	require.Zero(t, st.Family("POST /oauth/access_token").Requests)
}

func TestAuthLoginAuthenticateUsesTheAuthenticatePage(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	it := b.start(t, "auth", "login", "--authenticate")
	authURL := it.authorizeURL(t)
	u, err := url.Parse(authURL)
	require.NoError(t, err)
	require.Equal(t, "/oauth/authenticate", u.Path)
	require.NotContains(t, authURL, "oauth_callback")

	_, page := approveInBrowser(t, authURL)
	m := pinPattern.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	_, err = io.WriteString(it.stdin, m[1]+"\n")
	require.NoError(t, err)
	r := it.wait(t)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "access write); token stored encrypted")
	b.requireNoSecrets(t, r.stdout+r.stderr, b.storedToken(t).Token)
}
