package config

import (
	"errors"
	"fmt"
	"testing"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestNameSourcesSaysWhereTheRefusedCredentialsCameFromWithoutTheirValues(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "api:\n  consumer_key: ck-0123456789-never-shown\n  consumer_secret: cs-never-shown\n")
	env := map[string]string{"ADSYNC_ACCESS_TOKEN": "1-token-never-shown", "ADSYNC_ACCESS_SECRET": "as-never-shown"}
	cfg, err := Load(Source{File: file, Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)

	refused := fmt.Errorf("GET /12/accounts: HTTP 401: %w", api.ErrCouldNotAuthenticate)
	err = cfg.NameSources(refused)
	require.ErrorIs(t, err, api.ErrCouldNotAuthenticate)
	require.Contains(t, err.Error(), "; consumer key ck-0…")
	require.Contains(t, err.Error(), " from file "+file+":2, consumer secret from file "+file+":3")
	revoked := fmt.Errorf("GET /12/accounts: HTTP 401: %w", api.ErrInvalidToken)
	require.Contains(t, cfg.NameSources(revoked).Error(),
		"; the access token is api.access_token from env ADSYNC_ACCESS_TOKEN (remove it there to use the one adsync auth login stores)")
	for _, e := range []error{cfg.NameSources(refused), cfg.NameSources(revoked)} {
		for _, secret := range []string{"ck-0123456789-never-shown", "cs-never-shown", "1-token-never-shown", "as-never-shown"} {
			require.NotContains(t, e.Error(), secret)
		}
	}
	other := errors.New("some other failure")
	require.Equal(t, other, cfg.NameSources(other))
	require.NoError(t, cfg.NameSources(nil))
}

func TestBaseOriginsNameTheSettingAndWhereItWasSet(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "api:\n  ads_url: https://ads.example\n")
	env := map[string]string{"ADSYNC_API_URL": "https://api.example"}
	cfg, err := Load(Source{File: file, Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)
	got := cfg.BaseOrigins()
	require.Equal(t, "api.url, from env ADSYNC_API_URL", got[api.BaseAPI])
	require.Equal(t, "api.ads_url, from file "+file+":2; env ADSYNC_ADS_URL", got[api.BaseAds])
	require.Equal(t, got[api.BaseAds], got[api.BaseSandbox], "without a sandbox URL, the sandbox is derived from the ads base")
}
