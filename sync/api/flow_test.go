package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

// pinPattern finds the PIN on the fake's out-of-band page.
var pinPattern = regexp.MustCompile(`<code id="oauth_pin">([^<]+)</code>`)

// approve acts as the user's browser: it opens authURL, signs in as
// screenName and allows the application. It returns the final answer
// without following a redirect to the callback.
func approve(t *testing.T, authURL, screenName, password string) *http.Response {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	br := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := br.Get(authURL)
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", page)
	u, err := url.Parse(authURL)
	require.NoError(t, err)
	action := u.ResolveReference(&url.URL{Path: "authorize"})
	resp, err = br.PostForm(action.String(), url.Values{
		"oauth_token":                {u.Query().Get("oauth_token")},
		"session[username_or_email]": {screenName},
		"session[password]":          {password},
		"allow":                      {"1"},
	})
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// pinFrom reads the PIN from an out-of-band approval answer.
func pinFrom(t *testing.T, resp *http.Response) string {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	m := pinPattern.FindSubmatch(body)
	require.NotNil(t, m, "no PIN on the page: %s", body)
	return string(m[1])
}

// flowClient is a client with no user token of its own.
func flowClient(t *testing.T, f *fake) *api.Client {
	t.Helper()
	cfg := f.config()
	cfg.UserToken = nil
	return newClient(t, cfg)
}

// loginPIN runs the whole out-of-band flow as the owner.
func loginPIN(t *testing.T, f *fake, c *api.Client, accessType string) api.UserToken {
	t.Helper()
	ctx := context.Background()
	rt, err := api.RequestToken(ctx, c, "oob", accessType)
	require.NoError(t, err)
	pin := pinFrom(t, approve(t, api.AuthorizeURL(c, rt.Token, api.AuthorizeOptions{}), fixtures.DefaultOwnerScreen, "owner-password"))
	ut, err := api.AccessToken(ctx, c, rt, pin)
	require.NoError(t, err)
	return ut
}

func TestPINFlowYieldsTheOwnersAccessToken(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := flowClient(t, f)
	ut := loginPIN(t, f, c, "")
	require.Equal(t, fixtures.DefaultOwnerUserID, ut.UserID)
	require.Equal(t, fixtures.DefaultOwnerScreen, ut.ScreenName)
	require.NotEmpty(t, ut.Token)
	require.NotEmpty(t, ut.Secret)

	// The token works: it signs its own invalidation.
	require.NoError(t, api.InvalidateUserToken(context.Background(), c, api.Token{Token: ut.Token, Secret: ut.Secret}))
	st := f.srv.Stats()
	require.Equal(t, 1, st.Family("POST /oauth/request_token").ByStatus[200])
	require.Equal(t, 1, st.Family("POST /oauth/access_token").ByStatus[200])
}

func TestCallbackFlowCarriesTheVerifierToTheCallback(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := flowClient(t, f)
	ctx := context.Background()
	const callback = "http://127.0.0.1:8765/callback"
	rt, err := api.RequestToken(ctx, c, callback, "write")
	require.NoError(t, err)

	authURL := api.AuthorizeURL(c, rt.Token, api.AuthorizeOptions{ForceLogin: true, ScreenName: "@second_user"})
	u, err := url.Parse(authURL)
	require.NoError(t, err)
	require.Equal(t, "/oauth/authorize", u.Path)
	require.Equal(t, url.Values{"oauth_token": {rt.Token}, "force_login": {"true"}, "screen_name": {"second_user"}}, u.Query())
	require.NotContains(t, authURL, "oauth_callback")

	resp := approve(t, authURL, "second_user", "second-password")
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(loc.String(), callback+"?"), loc.String())
	require.Equal(t, rt.Token, loc.Query().Get("oauth_token"))

	ut, err := api.AccessToken(ctx, c, rt, loc.Query().Get("oauth_verifier"))
	require.NoError(t, err)
	require.Equal(t, "second_user", ut.ScreenName)
	require.NotEqual(t, fixtures.DefaultOwnerUserID, ut.UserID)
}

func TestAuthenticateURLUsesTheAuthenticatePage(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := flowClient(t, f)
	got := api.AuthorizeURL(c, "rt&1", api.AuthorizeOptions{Authenticate: true})
	require.Equal(t, f.apiURL+"/oauth/authenticate?oauth_token=rt%261", got)
}

func TestReadAccessTypeYieldsAReadOnlyToken(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := flowClient(t, f)
	ut := loginPIN(t, f, c, "read")

	// Reads work, writes are refused with 403 code 220.
	cfg := f.config()
	cfg.UserToken = &api.Token{Token: ut.Token, Secret: ut.Secret}
	rc := newClient(t, cfg)
	ctx := context.Background()
	acct := firstAccount(t, f)
	camp := f.srv.AdsTruth().Accounts[acct]["campaigns"].IDs[0]
	_, err := rc.Do(ctx, &api.Request{Method: "GET", Base: api.BaseAds, Path: "/12/accounts/" + acct + "/campaigns/" + camp})
	require.NoError(t, err)
	_, err = rc.Do(ctx, &api.Request{Method: "PUT", Base: api.BaseAds, Path: "/12/accounts/" + acct + "/campaigns/" + camp,
		Form: url.Values{"name": {"renamed"}}})
	require.ErrorIs(t, err, api.ErrNoAccess)
	var oe *api.OAuthError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, 403, oe.Status)

	// A write login of the same user gets a different, writable token.
	wt := loginPIN(t, f, c, "write")
	require.NotEqual(t, ut.Token, wt.Token)
}

func TestRequestTokenRefusesAnUnknownAccessType(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := flowClient(t, f)
	_, err := api.RequestToken(context.Background(), c, "oob", "admin")
	require.ErrorContains(t, err, "must be read or write")
	require.Zero(t, f.srv.Stats().Family("POST /oauth/request_token").Requests)
}

func TestInvalidatedUserTokenAnswersCode89(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := flowClient(t, f)
	ctx := context.Background()
	ut := loginPIN(t, f, c, "")
	tok := api.Token{Token: ut.Token, Secret: ut.Secret}
	require.NoError(t, api.InvalidateUserToken(ctx, c, tok))

	err := api.InvalidateUserToken(ctx, c, tok)
	require.ErrorIs(t, err, api.ErrInvalidToken)
	var oe *api.OAuthError
	require.True(t, errors.As(err, &oe))
	require.Equal(t, http.StatusUnauthorized, oe.Status)
	require.NotContains(t, err.Error(), ut.Token)
	require.NotContains(t, err.Error(), ut.Secret)

	// A new login yields a different token.
	again := loginPIN(t, f, c, "")
	require.NotEqual(t, ut.Token, again.Token)
}

func TestAccessTokenWithoutVerifierIsRefused(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	c := flowClient(t, f)
	ctx := context.Background()
	rt, err := api.RequestToken(ctx, c, "oob", "")
	require.NoError(t, err)
	pin := pinFrom(t, approve(t, api.AuthorizeURL(c, rt.Token, api.AuthorizeOptions{}), fixtures.DefaultOwnerScreen, "owner-password"))

	_, err = api.AccessToken(ctx, c, rt, " ")
	require.ErrorIs(t, err, api.ErrMissingVerifier)
	require.Zero(t, f.srv.Stats().Family("POST /oauth/access_token").Requests, "refused before sending")

	// The service refuses a wrong verifier, and the right one still works.
	_, err = api.AccessToken(ctx, c, rt, pin+"0")
	require.ErrorIs(t, err, api.ErrCouldNotAuthenticate)
	_, err = api.AccessToken(ctx, c, rt, pin)
	require.NoError(t, err)
}
