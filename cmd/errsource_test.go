package adsynccmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestWrongConsumerSecretNamesWhereKeyAndSecretCameFrom(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	good := b.srv.Options().ConsumerSecret
	conf, err := os.ReadFile(b.conf)
	require.NoError(t, err)
	const wrong = "wrong-consumer-secret-never-printed"
	require.NoError(t, os.WriteFile(b.conf, []byte(strings.Replace(string(conf), good, wrong, 1)), 0o600))
	r := b.run(t, "api", "GET", "/12/accounts")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "code 32")
	require.Contains(t, r.stderr, "check the application's consumer key and consumer secret")
	key := b.srv.Options().ConsumerKey
	require.Contains(t, r.stderr, "consumer key "+key[:4]+"…")
	require.Contains(t, r.stderr, "from file "+b.conf+":5, consumer secret from file "+b.conf+":6")
	require.NotContains(t, r.stderr, key)
	b.requireNoSecrets(t, r.stderr+r.stdout, wrong)
}

func TestRevokedTokenSaysToRunAuthLogin(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	o := b.srv.Options()
	require.NoError(t, api.InvalidateUserToken(t.Context(), b.userClient(t), api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret}))
	r := b.run(t, "api", "GET", "/12/accounts")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "code 89")
	require.Contains(t, r.stderr, "the access token was revoked or has expired: run adsync auth login")
	require.Contains(t, r.stderr, "api.access_token from file "+b.conf+":7")
	b.requireNoSecrets(t, r.stderr+r.stdout)
}

func TestSkewedClockSaysToRunDoctor(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	req, err := http.NewRequest(http.MethodPut, b.srv.APIURL+"/_fixtures/clock", strings.NewReader(`{"offset":"3h"}`))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	r := b.run(t, "api", "GET", "/12/accounts")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "code 135")
	require.Contains(t, r.stderr, "this machine's clock is off")
	require.Contains(t, r.stderr, "run adsync doctor")
	b.requireNoSecrets(t, r.stderr+r.stdout)
}

func TestAPICommandNamesExactlyTheMissingServiceSetting(t *testing.T) {
	t.Parallel()
	conf := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(conf, []byte("api:\n  url: https://api.example\n  consumer_key: ck-never-shown\n  consumer_secret: cs-never-shown\n"), 0o600))
	r := run(t, "api", "GET", "/12/accounts", "--config", conf)
	require.Equal(t, 1, r.code, r.stderr)
	require.Equal(t, "adsync: the service is configured only in part: set ADSYNC_ADS_URL (api.ads_url)\n", r.stderr)
}
