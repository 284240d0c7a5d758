package adsynccmd

import (
	"context"
	"testing"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestAuthBearerReplacesACachedTokenTheServiceNoLongerAccepts(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	r := b.run(t, "auth", "bearer")
	require.Equal(t, 0, r.code, r.stderr)
	old := b.cachedBearer(t)

	// Invalidated behind adsync's back: its cache still holds the token.
	opts := b.srv.Options()
	c, err := api.NewClient(api.Config{APIURL: b.srv.APIURL, AdsURL: b.srv.AdsURL, Credentials: b.creds(),
		UserToken: &api.Token{Token: opts.OwnerToken, Secret: opts.OwnerSecret}})
	require.NoError(t, err)
	require.NoError(t, api.InvalidateBearerToken(context.Background(), c, old))
	require.Equal(t, old, b.cachedBearer(t))

	r = b.run(t, "auth", "bearer")
	require.Equal(t, 0, r.code, r.stderr)
	fresh := b.cachedBearer(t)
	require.NotEqual(t, old, fresh)
	require.Equal(t, "the cached bearer token was no longer accepted by the service; obtained a new one\n"+
		"bearer token ready (…"+fresh[len(fresh)-4:]+")\n", r.stdout)
	require.Equal(t, 2, b.srv.Stats().Family("POST /oauth2/token").ByStatus[200])
	b.requireNoSecrets(t, r.stdout+r.stderr, old, fresh)

	r = b.run(t, "auth", "bearer")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, maskedBearer, r.stdout, "an accepted token is reused, said once")
	require.Equal(t, 2, b.srv.Stats().Family("POST /oauth2/token").Requests)
}
