package adsynccmd

import (
	"errors"
	"fmt"

	"github.com/adsync/adsync/cmd/internal/config"
	"github.com/adsync/adsync/sync/api"
)

// withSources adds to a credential error where the credentials it is about
// came from (sync/api says what the error means; only the command layer
// knows the sources). Secrets' values are never named.
func (a *app) withSources(err error) error {
	if err == nil || a.demo.FakeStarted() {
		return err // the fake started in this process set the credentials
	}
	c := a.cfg.API
	switch {
	case errors.Is(err, api.ErrCouldNotAuthenticate) && c.ConsumerKey != "":
		return fmt.Errorf("%w; consumer key %s from %s, consumer secret from %s", err,
			config.MaskKey(c.ConsumerKey), a.cfg.Origin("api.consumer_key"), a.cfg.Origin("api.consumer_secret"))
	case errors.Is(err, api.ErrInvalidToken) && c.AccessToken != "":
		return fmt.Errorf("%w; the access token is api.access_token from %s (remove it there to use the one adsync auth login stores)",
			err, a.cfg.Origin("api.access_token"))
	}
	return err
}

// baseOrigins name, by base, the setting its URL came from and where it
// was set, for the client's *api.BaseError.
func (a *app) baseOrigins() map[api.Base]string {
	out := map[api.Base]string{}
	for _, b := range []api.Base{api.BaseAPI, api.BaseAds, api.BaseSandbox} {
		out[b] = a.baseSource(b)
	}
	return out
}

// baseSource names the setting a base URL came from and where it was set.
func (a *app) baseSource(b api.Base) string {
	key := "api.url"
	switch b {
	case api.BaseAds:
		key = "api.ads_url"
	case api.BaseSandbox:
		if a.cfg.API.SandboxAdsURL != "" {
			key = "api.sandbox_ads_url"
		} else {
			key = "api.ads_url"
		}
	}
	origin, env := a.cfg.Origin(key), config.EnvName(key)
	if origin == "env "+env {
		return fmt.Sprintf("%s, from env %s", key, env)
	}
	return fmt.Sprintf("%s, from %s; env %s", key, origin, env)
}
