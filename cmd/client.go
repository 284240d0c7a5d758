package adsynccmd

import (
	"context"
	"fmt"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
)

// apiClient builds the service client from the configuration. With a pool,
// rate-limit windows and the bearer token are shared through Postgres with
// every other adsync process; without one they live in this process.
func (a *app) apiClient(ctx context.Context, pool *pgxpool.Pool) (*api.Client, error) {
	cfg, err := a.apiConfig(ctx, pool)
	if err != nil {
		return nil, err
	}
	client, err := api.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	if pool != nil {
		if err := a.replayDemoAudiences(ctx, pool, client); err != nil {
			return nil, err
		}
	}
	return client, nil
}

// apiConfig is the client configuration apiClient builds a client from
// (doctor builds its own client from it): appConfig and, with a pool and no
// configured access token, the token adsync auth login stored.
func (a *app) apiConfig(ctx context.Context, pool *pgxpool.Pool) (api.Config, error) {
	cfg, err := a.appConfig(ctx, pool)
	if err != nil || pool == nil || a.cfg.SecretKey == "" {
		return cfg, err
	}
	if err := (api.PGUserTokenStore{Pool: pool, SecretKey: a.cfg.SecretKey}).UseCurrent(ctx, &cfg); err != nil {
		return api.Config{}, err
	}
	return cfg, nil
}

// appClient is a client without the stored user token: for the commands
// that obtain, replace or forget that token.
func (a *app) appClient(ctx context.Context, pool *pgxpool.Pool) (*api.Client, error) {
	cfg, err := a.appConfig(ctx, pool)
	if err != nil {
		return nil, err
	}
	return api.NewClient(cfg)
}

// appConfig is the client configuration of the configured service,
// application and access token, without the stored user token.
func (a *app) appConfig(ctx context.Context, pool *pgxpool.Pool) (api.Config, error) {
	if err := a.fakeForDemo(ctx); err != nil {
		return api.Config{}, err
	}
	c := a.cfg.API
	if missing := missingService(c); len(missing) > 0 {
		what := "the service is configured only in part"
		if !serviceConfigured(c) {
			what = "no service configured"
		}
		return api.Config{}, fmt.Errorf("%s: %s", what, missingSettings(missing))
	}
	cfg := api.Config{
		APIURL: c.URL, AdsURL: c.AdsURL, SandboxAdsURL: c.SandboxAdsURL,
		Credentials: api.Credentials{ConsumerKey: c.ConsumerKey, ConsumerSecret: c.ConsumerSecret},
		Timeout:     time.Duration(c.Timeout),
		Logger:      a.log.Named("api"),
		BaseOrigins: a.cfg.BaseOrigins(),
	}
	if c.AccessToken != "" { // missingService asks for both or neither
		cfg.UserToken = &api.Token{Token: c.AccessToken, Secret: c.AccessSecret}
	}
	if a.metrics != nil {
		cfg.OnResponse = a.metrics.APIResponse
	}
	if pool != nil {
		gov := api.NewGovernor(api.PGStore{Pool: pool})
		// Before the pool closes: the answers' observations kept for the
		// next reservation (see api.Governor.ObserveDelay).
		a.onClose(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = gov.Flush(ctx)
		})
		cfg.Governor = gov
		cfg.Bearer = api.NewBearerSource(api.PGBearerStore{Pool: pool})
	}
	if a.metrics != nil {
		if cfg.Governor == nil {
			cfg.Governor = api.NewGovernor(api.NewMemoryStore())
		}
		cfg.Governor.OnWait = a.metrics.RateLimitWait
	}
	return cfg, nil
}

// clientMaybePooled builds the client over a database pool when a database
// is configured: the bearer token and rate-limit windows are then shared
// with every other adsync process through Postgres.
func (a *app) clientMaybePooled(ctx context.Context) (*api.Client, error) {
	if !a.hasDatabase() {
		return a.apiClient(ctx, nil)
	}
	pool, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	return a.apiClient(ctx, pool)
}

// userSet is the deployment's users (see access.Set): the configured access
// token, and every token auth login and auth add stored when
// ADSYNC_SECRET_KEY is set to read them.
func (a *app) userSet(pool *pgxpool.Pool, client *api.Client) *access.Set {
	set := &access.Set{Pool: pool, Base: client, Log: a.log.Named("users")}
	if c := a.cfg.API; c.AccessToken != "" {
		set.Configured = &api.Token{Token: c.AccessToken, Secret: c.AccessSecret}
	}
	if a.cfg.SecretKey != "" {
		set.Tokens = &api.PGUserTokenStore{Pool: pool, SecretKey: a.cfg.SecretKey}
	}
	return set
}
