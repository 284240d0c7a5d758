package adsynccmd

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// loginWithPIN runs auth login in PIN mode, signing in as user.
func (b *serviceBundle) loginWithPIN(t *testing.T, user, password string) result {
	t.Helper()
	it := b.start(t, "auth", "login")
	authURL := it.authorizeURL(t)
	require.Eventually(t, func() bool { return strings.Contains(it.stdout.String(), "Enter the PIN:") }, 5*time.Second, 10*time.Millisecond)
	status, page := approveInBrowserAs(t, authURL, user, password)
	require.Equal(t, http.StatusOK, status, page)
	m := pinPattern.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	_, err := io.WriteString(it.stdin, m[1]+"\n")
	require.NoError(t, err)
	r := it.wait(t)
	require.Equal(t, 0, r.code, r.stderr)
	return r
}

func TestAuthBearerRevokeWorksWithTheTokenTheOwnerSignedInFor(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{}) // no token from the application's settings
	b.loginWithPIN(t, fixtures.DefaultOwnerScreen, "owner-password")
	r := b.run(t, "auth", "bearer")
	require.Equal(t, 0, r.code, r.stderr)
	tok := b.cachedBearer(t)

	r = b.run(t, "auth", "bearer-revoke")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "bearer token (…"+tok[len(tok)-4:]+") invalidated\n", r.stdout)
	require.Equal(t, 1, b.srv.Stats().Family("POST /oauth2/invalidate_token").ByStatus[200])
	ut := b.storedToken(t)
	b.requireNoSecrets(t, r.stdout+r.stderr, tok, ut.Token, ut.Secret)
}

func TestAuthBearerRevokeByANonOwnerNamesTheUserWhoseTokenSigned(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	b.loginWithPIN(t, "second_user", "second-password")
	r := b.run(t, "auth", "bearer-revoke")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "code 220")
	require.Contains(t, r.stderr, "signed with the access token of @second_user (user id 1000000002), and only a token of the application's owner may invalidate the bearer token")
	require.Contains(t, r.stderr, "sign in as the owner (adsync auth login)")
	require.Equal(t, 1, b.srv.Stats().Family("POST /oauth2/invalidate_token").ByStatus[403])
	b.requireNoSecrets(t, r.stdout+r.stderr, b.cachedBearer(t))
}
