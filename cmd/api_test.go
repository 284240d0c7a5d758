package adsynccmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAPIRejectsBadCommandLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"PATCH", "/2/posts"}, `method "PATCH": must be GET, POST, PUT or DELETE`},
		{[]string{"GET", "2/posts"}, "must start with /"},
		{[]string{"GET", "/2/posts", "-d", "ids"}, `-d "ids": want k=v`},
		{[]string{"POST", "/12/batch", "--json", "{nope"}, "not valid JSON"},
		{[]string{"GET", "/12/batch", "--json", "{}"}, "--json needs POST or PUT"},
		{[]string{"--sandbox", "GET", "/2/posts"}, "--sandbox applies to advertising paths only"},
		{[]string{"GET"}, "accepts 2 arg(s)"},
	} {
		r := run(t, append([]string{"api"}, tc.args...)...)
		require.Equal(t, 2, r.code, tc.args)
		require.Contains(t, r.stderr, tc.want, tc.args)
	}
}

func TestAPIBearerCallPrintsIndentedJSON(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	r := b.run(t, "api", "--bearer", "GET", "/2/posts", "-d", "ids=1")
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, "{\n  "), r.stdout)
	var body struct {
		Errors []struct {
			ResourceID string `json:"resource_id"`
		} `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &body))
	require.Len(t, body.Errors, 1)
	require.Equal(t, "1", body.Errors[0].ResourceID)
	require.Equal(t, 1, b.srv.Stats().Family("GET /2/posts").ByStatus[200])

	// A second call reuses the bearer token cached in Postgres.
	r = b.run(t, "api", "--bearer", "GET", "/2/posts?ids=1")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 1, b.srv.Stats().Family("POST /oauth2/token").Requests)
	b.requireNoSecrets(t, r.stdout+r.stderr, b.cachedBearer(t))
}

func TestAPISignsFormDataWithTheConfiguredUserToken(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	// A raw call signed with the owner's token and a form parameter passes
	// the fake's signature check (else 401 code 32) and is refused only for
	// the missing query parameter. A successful call would print the token.
	r := b.run(t, "auth", "bearer")
	require.Equal(t, 0, r.code, r.stderr)
	tok := b.cachedBearer(t)
	r = run(t, "api", "POST", "/oauth2/invalidate_token", "-d", "unused=1", "--config", b.conf)
	require.Equal(t, 1, r.code, "the token belongs in the query: %s", r.stdout)
	require.Contains(t, r.stderr, "HTTP 400: code 38")
	b.requireNoSecrets(t, r.stdout+r.stderr, tok)
	require.Equal(t, 1, b.srv.Stats().Family("POST /oauth2/invalidate_token").ByStatus[400])
}

func TestAPIFailureExitsOneWithTheTypedError(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "api", "--bearer", "GET", "/2/posts", "-d", "ids=not-a-number")
	require.Equal(t, 1, r.code)
	require.Empty(t, r.stdout)
	require.Contains(t, r.stderr, "adsync: GET /2/posts: HTTP 400:")
	require.Contains(t, r.stderr, "does not match")
	require.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	b.requireNoSecrets(t, r.stderr, b.cachedBearer(t))

	// No user token and none stored: refused before sending.
	conf := b.writeConfig(t, bundleOptions{}, nil)
	r = run(t, "api", "GET", "/12/accounts", "--config", conf)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "no user access token configured")
}
