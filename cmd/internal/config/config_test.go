package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

func TestPrecedenceFlagsOverEnvOverFileOverDefaults(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "database_url: postgres://file/db\nlog_level: warn\napi:\n  url: http://file\n")
	tests := []struct {
		name    string
		file    string
		env     map[string]string
		flags   map[string]string
		wantDB  string
		wantLvl string
		wantAPI string
	}{
		{name: "defaults only", wantDB: "", wantLvl: "info", wantAPI: ""},
		{name: "file over defaults", file: file, wantDB: "postgres://file/db", wantLvl: "warn", wantAPI: "http://file"},
		{name: "env over file", file: file, env: map[string]string{"ADSYNC_DATABASE_URL": "postgres://env/db", "ADSYNC_API_URL": "http://env"},
			wantDB: "postgres://env/db", wantLvl: "warn", wantAPI: "http://env"},
		{name: "flag over env", file: file, env: map[string]string{"ADSYNC_DATABASE_URL": "postgres://env/db", "ADSYNC_LOG_LEVEL": "error"},
			flags: map[string]string{"database_url": "postgres://flag/db", "log_level": "debug"}, wantDB: "postgres://flag/db", wantLvl: "debug", wantAPI: "http://file"},
		{name: "flag over defaults without file or env", flags: map[string]string{"log_level": "error"}, wantLvl: "error"},
		{name: "empty env value does not override file", file: file, env: map[string]string{"ADSYNC_DATABASE_URL": ""}, wantDB: "postgres://file/db", wantLvl: "warn", wantAPI: "http://file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Load(Source{File: tt.file, Getenv: func(k string) string { return tt.env[k] }, Flags: tt.flags})
			require.NoError(t, err)
			require.Equal(t, tt.wantDB, cfg.DatabaseURL)
			require.Equal(t, tt.wantLvl, cfg.LogLevel)
			require.Equal(t, tt.wantAPI, cfg.API.URL)
		})
	}
}

func TestEveryDocumentedEnvironmentVariableIsRead(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	for _, name := range EnvNames() {
		env[name] = "v-" + strings.ToLower(name)
	}
	env["ADSYNC_LOG_LEVEL"] = "debug"
	env["ADSYNC_API_TIMEOUT"] = "45s"
	env["ADSYNC_AUDIENCE_QUERY_TIMEOUT"] = "5m"
	env["ADSYNC_EXPORT_FORMAT"] = "iceberg"
	cfg, err := Load(Source{Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)
	require.Equal(t, "iceberg", cfg.Export.Format)
	require.Equal(t, "v-adsync_database_url", cfg.DatabaseURL)
	require.Equal(t, "v-adsync_api_url", cfg.API.URL)
	require.Equal(t, "v-adsync_ads_url", cfg.API.AdsURL)
	require.Equal(t, "v-adsync_sandbox_ads_url", cfg.API.SandboxAdsURL)
	require.Equal(t, "v-adsync_consumer_key", cfg.API.ConsumerKey)
	require.Equal(t, "v-adsync_consumer_secret", cfg.API.ConsumerSecret)
	require.Equal(t, "v-adsync_access_token", cfg.API.AccessToken)
	require.Equal(t, "v-adsync_access_secret", cfg.API.AccessSecret)
	require.Equal(t, "v-adsync_secret_key", cfg.SecretKey)
	require.Equal(t, "v-adsync_http_addr", cfg.HTTPAddr)
	require.Equal(t, "v-adsync_http_allowed_hosts", cfg.HTTPAllowedHosts)
	require.Equal(t, 45*time.Second, time.Duration(cfg.API.Timeout))
	require.Equal(t, "v-adsync_export_out", cfg.Export.Out)
	require.Equal(t, 5*time.Minute, time.Duration(cfg.Audience.QueryTimeout))
}

func TestUnknownYAMLKeyIsAnErrorNamingKeyAndFile(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "log_level: info\napi:\n  url: http://x\n  consumer_kee: abc\n")
	_, err := Load(Source{File: file, Getenv: func(string) string { return "" }})
	require.Error(t, err)
	require.Contains(t, err.Error(), file)
	require.Contains(t, err.Error(), `"consumer_kee"`)
	require.Contains(t, err.Error(), "line 4")
}

func TestBadYAMLNamesFileAndLine(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "log_level: info\nqueues:\n  sync: [1, 2\n")
	_, err := Load(Source{File: file, Getenv: func(string) string { return "" }})
	require.Error(t, err)
	require.Contains(t, err.Error(), file)
	require.Regexp(t, `line [34]`, err.Error())
	require.NotContains(t, err.Error(), "\n", "one line, no source dump")
}

func TestWrongTypeInYAMLNamesFileAndLine(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "queues:\n  sync: lots\n")
	_, err := Load(Source{File: file, Getenv: func(string) string { return "" }})
	require.Error(t, err)
	require.Contains(t, err.Error(), file)
	require.Contains(t, err.Error(), "line 2")
}

func TestMissingConfigFileIsAnError(t *testing.T) {
	t.Parallel()
	_, err := Load(Source{File: "/nonexistent/adsync.yaml", Getenv: func(string) string { return "" }})
	require.ErrorContains(t, err, "/nonexistent/adsync.yaml")
}

func TestDurationsAndSectionsDecode(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "sync:\n  overlap: 90m\nqueues:\n  sync: 8\nschedules:\n  sync: \"CRON_TZ=Europe/Berlin 0 3 * * *\"\n")
	cfg, err := Load(Source{File: file, Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	require.Equal(t, 90*time.Minute, time.Duration(cfg.Sync.Overlap))
	require.Equal(t, 8, cfg.Queues.Sync)
	require.Equal(t, 2, cfg.Queues.Audience, "unset keys keep their defaults")
	require.Equal(t, "CRON_TZ=Europe/Berlin 0 3 * * *", cfg.Schedules.Sync)
}

func TestInvalidValuesAreRejectedWithTheKeyNamed(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"log_level: loud\n":              "log_level",
		"queues:\n  export: 0\n":         "queues.export",
		"sync:\n  overlap: soon\n":       "invalid duration",
		"worker:\n  run_retention: 1h\n": "worker.run_retention: 1h0m0s: must be at least 24h",
	} {
		_, err := Load(Source{File: writeFile(t, body), Getenv: func(string) string { return "" }})
		require.ErrorContains(t, err, want, body)
	}
}

func TestRunRetentionDefaultsToNinetyDays(t *testing.T) {
	t.Parallel()
	cfg, err := Load(Source{File: writeFile(t, "log_level: info\n"), Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	require.Equal(t, 90*24*time.Hour, time.Duration(cfg.Worker.RunRetention))
	cfg, err = Load(Source{File: writeFile(t, "worker:\n  run_retention: 720h\n"), Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	require.Equal(t, 30*24*time.Hour, time.Duration(cfg.Worker.RunRetention))
}

func TestMaskedHidesEverySecret(t *testing.T) {
	t.Parallel()
	cfg := Default()
	cfg.DatabaseURL = "postgres://app:hunter2@db.internal:5432/adsync?sslmode=require"
	cfg.SecretKey = "s3cr3t-key"
	cfg.API = API{ConsumerKey: "ck-123", ConsumerSecret: "cs-456", AccessToken: "at-789", AccessSecret: "as-000"}
	m := cfg.Masked()
	for _, secret := range []string{"hunter2", "s3cr3t-key", "ck-123", "cs-456", "at-789", "as-000"} {
		require.NotContains(t, m.DatabaseURL+m.SecretKey+m.API.ConsumerKey+m.API.ConsumerSecret+m.API.AccessToken+m.API.AccessSecret, secret)
	}
	require.Contains(t, m.DatabaseURL, "db.internal:5432", "the host stays visible")
	require.Equal(t, "", Default().Masked().SecretKey, "an unset secret stays visibly unset")
}

func TestBadDurationNamesKeyFileAndLine(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"log_level: info\napi:\n  timeout: 30 seconds\n": `line 3: api.timeout: invalid duration "30 seconds"`,
		"sync:\n  overlap: soon\n":                       `line 2: sync.overlap: invalid duration "soon"`,
		"insights:\n  lookback: \"7 days\"\n":            `line 2: insights.lookback: invalid duration "7 days"`,
	} {
		file := writeFile(t, body)
		_, err := Load(Source{File: file, Getenv: func(string) string { return "" }})
		require.ErrorContains(t, err, "config file "+file+": "+want, body)
		require.NotContains(t, err.Error(), "\n", "one line")
	}
}

func TestNonPositiveTimeoutAndEmptyExportOutAreRefusedNamingTheSource(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "log_level: info\napi:\n  timeout: 0s\n")
	_, err := Load(Source{File: file, Getenv: func(string) string { return "" }})
	require.ErrorContains(t, err, "api.timeout: 0s: must be positive")
	require.ErrorContains(t, err, "(file "+file+":3)")

	file = writeFile(t, "export:\n  out: \"\"\n")
	_, err = Load(Source{File: file, Getenv: func(string) string { return "" }})
	require.ErrorContains(t, err, "export.out: must not be empty")
	require.ErrorContains(t, err, "(file "+file+":2)")

	env := map[string]string{"ADSYNC_API_TIMEOUT": "-5s"}
	_, err = Load(Source{Getenv: func(k string) string { return env[k] }})
	require.ErrorContains(t, err, "api.timeout: -5s: must be positive")
	require.ErrorContains(t, err, "(env ADSYNC_API_TIMEOUT)")

	env = map[string]string{"ADSYNC_API_TIMEOUT": "soon"}
	_, err = Load(Source{Getenv: func(k string) string { return env[k] }})
	require.ErrorContains(t, err, `api.timeout (env ADSYNC_API_TIMEOUT): invalid duration "soon"`)

	env = map[string]string{"ADSYNC_EXPORT_OUT": "  "}
	_, err = Load(Source{Getenv: func(k string) string { return env[k] }})
	require.ErrorContains(t, err, "export.out: must not be empty")
	require.ErrorContains(t, err, "(env ADSYNC_EXPORT_OUT)")

	_, err = Load(Source{Getenv: func(string) string { return "" }, Flags: map[string]string{"log_level": "loud"}})
	require.ErrorContains(t, err, `log_level "loud": must be debug, info, warn or error (flag --log-level)`)
}

func TestOriginSaysWhereEachValueCameFrom(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "log_level: warn\napi:\n  url: http://file\n  timeout: 10s\ninsights:\n  keyword_sets:\n    - name: a\n      keywords: [x]\n")
	env := map[string]string{"ADSYNC_API_URL": "http://env", "ADSYNC_CONSUMER_KEY": "ck"}
	cfg, err := Load(Source{File: file, Getenv: func(k string) string { return env[k] }, Flags: map[string]string{"database_url": "postgres://flag/db"}})
	require.NoError(t, err)
	require.Equal(t, "file "+file+":1", cfg.Origin("log_level"))
	require.Equal(t, "file "+file+":4", cfg.Origin("api.timeout"))
	require.Equal(t, "file "+file+":6", cfg.Origin("insights.keyword_sets"))
	require.Equal(t, "env ADSYNC_API_URL", cfg.Origin("api.url"))
	require.Equal(t, "env ADSYNC_CONSUMER_KEY", cfg.Origin("api.consumer_key"))
	require.Equal(t, "flag --database-url", cfg.Origin("database_url"))
	require.Equal(t, "default", cfg.Origin("export.out"))
}

func TestEntriesListEverySettingMaskedWithItsOrigin(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "api:\n  consumer_secret: cs-hidden\n")
	cfg, err := Load(Source{File: file, Getenv: func(k string) string {
		return map[string]string{"ADSYNC_DATABASE_URL": "postgres://app:hunter2@db.internal/adsync"}[k]
	}})
	require.NoError(t, err)
	entries, err := cfg.Entries()
	require.NoError(t, err)
	byKey := map[string]Entry{}
	for _, e := range entries {
		byKey[e.Key] = e
		require.NotContains(t, e.Value, "hunter2")
		require.NotContains(t, e.Value, "cs-hidden")
	}
	require.Equal(t, Entry{Key: "api.consumer_secret", Value: "********", Origin: "file " + file + ":2"}, byKey["api.consumer_secret"])
	require.Equal(t, Entry{Key: "database_url", Value: "postgres://app:xxxxx@db.internal/adsync", Origin: "env ADSYNC_DATABASE_URL"}, byKey["database_url"])
	require.Equal(t, Entry{Key: "api.timeout", Value: "30s", Origin: "default"}, byKey["api.timeout"])
	require.Equal(t, Entry{Key: "insights.keyword_sets", Value: "0 items", Origin: "default"}, byKey["insights.keyword_sets"])
	require.Equal(t, Entry{Key: "api.access_token", Value: "", Origin: "default"}, byKey["api.access_token"])
	require.Contains(t, byKey, "worker.dead_after")
}

// Unset analytics entities and metric groups show what the pipeline runs:
// sync/stats' defaults, said to be defaults; a configured list shows its
// values, normalized as the pipeline takes them.
func TestEntriesShowTheStatsDefaultsThePipelineApplies(t *testing.T) {
	t.Parallel()
	cfg, err := Load(Source{Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	entries, err := cfg.Entries()
	require.NoError(t, err)
	byKey := map[string]Entry{}
	for _, e := range entries {
		byKey[e.Key] = e
	}
	require.Equal(t, Entry{Key: "stats.entities", Value: strings.Join(stats.DefaultEntities, ", "), Origin: "default"}, byKey["stats.entities"])
	require.Equal(t, Entry{Key: "stats.metric_groups", Value: strings.Join(stats.Groups, ", "), Origin: "default"}, byKey["stats.metric_groups"])
	require.Len(t, stats.Groups, 7)
	require.Equal(t, "0 items", byKey["stats.segmentations"].Value)
	require.Empty(t, cfg.Stats.Entities, "the loaded configuration itself stays as configured")

	file := writeFile(t, "stats:\n  entities: [campaign]\n  metric_groups: [billing, engagement]\n")
	cfg, err = Load(Source{File: file, Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	entries, err = cfg.Entries()
	require.NoError(t, err)
	for _, e := range entries {
		byKey[e.Key] = e
	}
	require.Equal(t, Entry{Key: "stats.entities", Value: "CAMPAIGN", Origin: "file " + file + ":2"}, byKey["stats.entities"])
	require.Equal(t, Entry{Key: "stats.metric_groups", Value: "BILLING, ENGAGEMENT", Origin: "file " + file + ":3"}, byKey["stats.metric_groups"])
}
