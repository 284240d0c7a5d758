package adsynccmd

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAuthBearerAfterACorrectedSecretCallsTheServiceAtOnce(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	opts := b.srv.Options()
	typo := doctorConfig(t, b, t.TempDir(), "consumer_secret: "+opts.ConsumerSecret, "consumer_secret: mistyped-secret-never-shown")

	r := run(t, "auth", "bearer", "--config", typo, "--database-url", b.db)
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "403 code 99")
	r = run(t, "auth", "bearer", "--config", typo, "--database-url", b.db)
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "not sent: these consumer credentials were answered 403 code 99")
	require.Equal(t, 1, b.srv.Stats().Family("POST /oauth2/token").Requests, "the mistyped secret is held back")
	r = run(t, "doctor", "--config", typo, "--database-url", b.db)
	require.Contains(t, r.stdout, "no bearer token request was sent: this consumer key and secret were answered 403 code 99 earlier")
	b.requireNoSecrets(t, r.stdout+r.stderr, "mistyped-secret-never-shown")

	r = b.run(t, "auth", "bearer") // the corrected secret
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, maskedBearer, r.stdout)
	st := b.srv.Stats().Family("POST /oauth2/token")
	require.Equal(t, 1, st.ByStatus[200], "the corrected secret asked the service")
	b.requireNoSecrets(t, r.stdout+r.stderr, "mistyped-secret-never-shown", b.cachedBearer(t))
}
