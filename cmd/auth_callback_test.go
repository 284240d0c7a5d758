package adsynccmd

import (
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// freePort returns a port nothing listens on just now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

func TestAuthLoginLoopbackWithFixedCallbackURLsNeedsPort(t *testing.T) {
	t.Parallel()
	port := strconv.Itoa(freePort(t))
	approved := "http://127.0.0.1:" + port + "/callback"
	b := setupService(t, bundleOptions{fake: func(o *fixtures.Options) {
		o.Callbacks = []string{approved}
		o.AllowLoopbackCallbacks = false
	}})

	r := b.run(t, "auth", "login", "--callback", "loopback", "--timeout", "5s")
	require.Equal(t, 1, r.code, r.stdout)
	require.Regexp(t, `^adsync: auth login: POST /oauth/request_token: HTTP 403: code 415: Callback URL not approved.* \(callback URL sent: http://127\.0\.0\.1:\d+/callback; `, r.stderr)
	require.NotContains(t, r.stderr, approved, "the URL sent is a free port's, not the approved one")
	require.Contains(t, r.stderr, "pass --port PORT")

	it := b.start(t, "auth", "login", "--callback", "loopback", "--port", port, "--timeout", "20s")
	authURL := it.authorizeURL(t)
	require.Contains(t, it.stdout.String(), "Waiting for the browser's redirect to "+approved)
	status, page := approveInBrowser(t, authURL)
	require.Equal(t, http.StatusOK, status, page)
	r = it.wait(t)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "logged in as @"+fixtures.DefaultOwnerScreen)
	ut := b.storedToken(t)
	b.requireNoSecrets(t, r.stdout+r.stderr, ut.Token, ut.Secret)
}
