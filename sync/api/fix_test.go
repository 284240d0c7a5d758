package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

// listAccounts is a signed call every credential problem shows on.
func listAccounts(c *api.Client) error {
	_, err := c.Do(context.Background(), &api.Request{Method: "GET", Base: api.BaseAds, Path: "/12/accounts", Auth: api.AuthUser})
	return err
}

func TestWrongConsumerSecretNamesTheConsumerKeyAndSecret(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	cfg := f.config()
	cfg.Credentials.ConsumerSecret = "wrong-consumer-secret-value"
	err := listAccounts(newClient(t, cfg))
	require.ErrorIs(t, err, api.ErrCouldNotAuthenticate)
	require.ErrorContains(t, err, "consumer key and consumer secret")
	m := api.Explain(err)
	require.Equal(t, api.Final, m.Verdict)
	require.Contains(t, m.Fix, "consumer key and consumer secret")
	require.NotContains(t, err.Error(), cfg.Credentials.ConsumerSecret)
}

func TestRevokedTokenSaysToLogInAgain(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	cfg := f.config()
	c := newClient(t, cfg)
	require.NoError(t, api.InvalidateUserToken(context.Background(), c, *cfg.UserToken))
	err := listAccounts(c)
	require.ErrorIs(t, err, api.ErrInvalidToken)
	require.ErrorContains(t, err, "revoked or has expired: run adsync auth login")
	require.Contains(t, api.Explain(err).Fix, "adsync auth login")
	for _, s := range []string{cfg.UserToken.Token, cfg.UserToken.Secret, cfg.Credentials.ConsumerSecret} {
		require.NotContains(t, err.Error(), s)
	}
}

func TestSkewedClockSaysToRunDoctor(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.SetClockOffset(3 * time.Hour)
	err := listAccounts(newClient(t, f.config()))
	require.ErrorIs(t, err, api.ErrTimestampOutOfBounds)
	require.ErrorContains(t, err, "clock is off")
	require.ErrorContains(t, err, "run adsync doctor")
	require.Contains(t, api.Explain(err).Fix, "adsync doctor")
}
