package adsynccmd

import (
	"fmt"
	"strings"

	"github.com/adsync/adsync/cmd/internal/config"
)

// runMode is what `adsync run` runs against.
type runMode struct {
	// localDatabase starts the local Postgres under .adsync/ (no database is
	// configured).
	localDatabase bool
	// fakeService serves the fake service in this process, with generated
	// data, in place of a configured one.
	fakeService bool
}

// serviceSetting is one setting that locates the service or identifies the
// application to it.
type serviceSetting struct {
	key      string // YAML key path
	value    string
	required bool // the client cannot be built without it
}

// serviceSettings lists the service settings of api. The access token is
// not required: `adsync auth login` can store one instead.
func serviceSettings(api config.API) []serviceSetting {
	return []serviceSetting{
		{"api.url", api.URL, true},
		{"api.ads_url", api.AdsURL, true},
		{"api.consumer_key", api.ConsumerKey, true},
		{"api.consumer_secret", api.ConsumerSecret, true},
		{"api.sandbox_ads_url", api.SandboxAdsURL, false},
		{"api.access_token", api.AccessToken, api.AccessSecret != ""},
		{"api.access_secret", api.AccessSecret, api.AccessToken != ""},
	}
}

// decideRunMode decides what `adsync run` runs against. With nothing
// configured it is the zero-config demo: a local Postgres and the fake
// service. A configured database is only ever filled from a configured
// service, or from the fake when demo (--demo) asks for it explicitly: the
// fake's generated data must never land unasked in a real database. A
// service configured in part is an error naming what is missing, whatever
// the database.
func decideRunMode(cfg config.Config, demo bool) (runMode, error) {
	m := runMode{localDatabase: cfg.DatabaseURL == ""}
	if demo {
		m.fakeService = true
		return m, nil
	}
	configured, missing := serviceConfigured(cfg.API), missingService(cfg.API)
	switch {
	case !configured && m.localDatabase:
		m.fakeService = true
		return m, nil
	case !configured:
		return runMode{}, &serviceNotConfiguredError{missing: missing, database: true, noService: true}
	case len(missing) > 0:
		return runMode{}, &serviceNotConfiguredError{missing: missing, database: !m.localDatabase}
	}
	return m, nil
}

// serviceNotConfiguredError is `adsync run` refusing to run without a
// complete service configuration. With a database configured it never
// suggests --demo: that would write the fake's generated data into it.
type serviceNotConfiguredError struct {
	missing   []string // YAML key paths
	database  bool     // a database is configured
	noService bool     // no service setting at all
}

func (e *serviceNotConfiguredError) Error() string {
	set := missingSettings(e.missing)
	switch {
	case e.database && e.noService:
		return "a database is configured but no service: " + set +
			" (to try adsync against the fake service instead, run it with no database configured: it starts a local Postgres)"
	case e.database:
		return "the service is configured only in part: " + set
	}
	return "the service is configured only in part: " + set + ", or pass --demo to run against the fake service"
}

// missingSettings says to set the settings at the YAML key paths keys:
// "set ADSYNC_A and ADSYNC_B (a, b)".
func missingSettings(keys []string) string {
	envs := make([]string, len(keys))
	for i, k := range keys {
		envs[i] = config.EnvName(k)
	}
	return fmt.Sprintf("set %s (%s)", joinAnd(envs), strings.Join(keys, ", "))
}

// serviceConfigured reports whether any service setting is set.
func serviceConfigured(api config.API) bool {
	for _, s := range serviceSettings(api) {
		if s.value != "" {
			return true
		}
	}
	return false
}

// missingService lists the YAML key paths of the required service
// settings api lacks.
func missingService(api config.API) []string {
	var missing []string
	for _, s := range serviceSettings(api) {
		if s.required && s.value == "" {
			missing = append(missing, s.key)
		}
	}
	return missing
}

// joinAnd joins words as "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
