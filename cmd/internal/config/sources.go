package config

import (
	"errors"
	"fmt"

	"github.com/adsync/adsync/sync/api"
)

// NameSources adds to a credential error where the credentials it is
// about came from (sync/api says what the error means; only the
// configuration knows where each setting was set). Secrets' values are
// never named; the consumer key is masked.
func (c Config) NameSources(err error) error {
	a := c.API
	switch {
	case err == nil:
		return nil
	case errors.Is(err, api.ErrCouldNotAuthenticate) && a.ConsumerKey != "":
		return fmt.Errorf("%w; consumer key %s from %s, consumer secret from %s", err,
			MaskKey(a.ConsumerKey), c.Origin("api.consumer_key"), c.Origin("api.consumer_secret"))
	case errors.Is(err, api.ErrInvalidToken) && a.AccessToken != "":
		return fmt.Errorf("%w; the access token is api.access_token from %s (remove it there to use the one adsync auth login stores)",
			err, c.Origin("api.access_token"))
	}
	return err
}

// BaseOrigins name, by base, the setting its URL came from and where it
// was set, for the client's *api.BaseError.
func (c Config) BaseOrigins() map[api.Base]string {
	out := map[api.Base]string{}
	for _, b := range []api.Base{api.BaseAPI, api.BaseAds, api.BaseSandbox} {
		out[b] = c.baseSource(b)
	}
	return out
}

// baseSource names the setting a base URL came from and where it was set.
func (c Config) baseSource(b api.Base) string {
	key := "api.url"
	switch b {
	case api.BaseAds:
		key = "api.ads_url"
	case api.BaseSandbox:
		if c.API.SandboxAdsURL != "" {
			key = "api.sandbox_ads_url"
		} else {
			key = "api.ads_url"
		}
	}
	origin, env := c.Origin(key), EnvName(key)
	if origin == "env "+env {
		return fmt.Sprintf("%s, from env %s", key, env)
	}
	return fmt.Sprintf("%s, from %s; env %s", key, origin, env)
}
