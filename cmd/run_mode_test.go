package adsynccmd

import (
	"testing"

	"github.com/adsync/adsync/cmd/internal/config"
	"github.com/stretchr/testify/require"
)

func TestRunModeFillsADatabaseOnlyFromAConfiguredServiceOrAnExplicitDemoAndNeverSuggestsDemoForIt(t *testing.T) {
	t.Parallel()
	const db = "postgres://app:db-password-never-shown@db.example/adsync"
	service := config.API{URL: "https://api.example", AdsURL: "https://ads.example",
		ConsumerKey: "ck-never-shown", ConsumerSecret: "cs-never-shown"}
	with := func(f func(*config.API)) config.API { a := service; f(&a); return a }
	const noDemo = " (to try adsync against the fake service instead, run it with no database configured: it starts a local Postgres)"
	const allFour = "ADSYNC_API_URL, ADSYNC_ADS_URL, ADSYNC_CONSUMER_KEY and ADSYNC_CONSUMER_SECRET (api.url, api.ads_url, api.consumer_key, api.consumer_secret)"
	tests := []struct {
		name    string
		db      string
		api     config.API
		demo    bool
		want    runMode
		wantErr string
	}{
		{name: "nothing configured: the zero-config demo", want: runMode{localDatabase: true, fakeService: true}},
		{name: "nothing configured with --demo", demo: true, want: runMode{localDatabase: true, fakeService: true}},
		{name: "database without service is refused", db: db,
			wantErr: "a database is configured but no service: set " + allFour + noDemo},
		{name: "database without service with --demo", db: db, demo: true, want: runMode{fakeService: true}},
		{name: "database and service", db: db, api: service, want: runMode{}},
		{name: "database and service with the owner's token", db: db,
			api: with(func(a *config.API) { a.AccessToken, a.AccessSecret = "at-never-shown", "as-never-shown" }), want: runMode{}},
		{name: "database and service with --demo", db: db, api: service, demo: true, want: runMode{fakeService: true}},
		{name: "service without database: the local Postgres", api: service, want: runMode{localDatabase: true}},
		{name: "service in part with database", db: db, api: with(func(a *config.API) { a.AdsURL, a.ConsumerSecret = "", "" }),
			wantErr: "the service is configured only in part: set ADSYNC_ADS_URL and ADSYNC_CONSUMER_SECRET (api.ads_url, api.consumer_secret)"},
		{name: "service in part without database", api: with(func(a *config.API) { a.URL = "" }),
			wantErr: "the service is configured only in part: set ADSYNC_API_URL (api.url), or pass --demo to run against the fake service"},
		{name: "only an access token with database", db: db, api: config.API{AccessToken: "at-never-shown"},
			wantErr: "the service is configured only in part: set ADSYNC_API_URL, ADSYNC_ADS_URL, ADSYNC_CONSUMER_KEY, ADSYNC_CONSUMER_SECRET and ADSYNC_ACCESS_SECRET (api.url, api.ads_url, api.consumer_key, api.consumer_secret, api.access_secret)"},
		{name: "only the sandbox without database", api: config.API{SandboxAdsURL: "https://sandbox.example"},
			wantErr: "the service is configured only in part: set " + allFour + ", or pass --demo to run against the fake service"},
		{name: "access token without its secret", db: db, api: with(func(a *config.API) { a.AccessToken = "at-never-shown" }),
			wantErr: "the service is configured only in part: set ADSYNC_ACCESS_SECRET (api.access_secret)"},
		{name: "service in part with --demo", db: db, api: config.API{URL: "https://api.example"}, demo: true, want: runMode{fakeService: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := config.Default()
			cfg.DatabaseURL, cfg.API = tt.db, tt.api
			got, err := decideRunMode(cfg, tt.demo)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				if tt.db != "" {
					require.NotContains(t, err.Error(), "--demo", "never suggest writing the fake's data into a configured database")
				}
				for _, secret := range []string{"db-password-never-shown", "ck-never-shown", "cs-never-shown", "at-never-shown", "as-never-shown"} {
					require.NotContains(t, err.Error(), secret)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}
