// Package config loads adsync's configuration: flags over environment
// (ADSYNC_*) over an optional YAML file over built-in defaults.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/token"
)

// Config is the effective configuration.
type Config struct {
	// DatabaseURL is the Postgres connection string. Empty means "start a
	// local Postgres" for `adsync run` and is an error for the other commands.
	DatabaseURL string `yaml:"database_url"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `yaml:"log_level"`
	// SecretKey encrypts stored user tokens (AES-GCM). Base64 or hex of 32 bytes,
	// or any passphrase (derived with SHA-256).
	SecretKey string `yaml:"secret_key"`
	// HTTPAddr is where `adsync worker` serves /healthz, /readyz and /metrics.
	HTTPAddr string `yaml:"http_addr"`

	API       API       `yaml:"api"`
	Schedules Schedules `yaml:"schedules"`
	Queues    Queues    `yaml:"queues"`
	Sync      Sync      `yaml:"sync"`
	Export    Export    `yaml:"export"`
	Worker    Worker    `yaml:"worker"`
	Insights  Insights  `yaml:"insights"`
	Posts     Posts     `yaml:"posts"`
}

// Export configures the Parquet export.
type Export struct {
	// Out is where scheduled exports write (OUT/<table>/dt=YYYY-MM-DD/...).
	Out string `yaml:"out"`
}

// API locates the service and holds the application's credentials.
type API struct {
	URL            string `yaml:"url"`
	AdsURL         string `yaml:"ads_url"`
	SandboxAdsURL  string `yaml:"sandbox_ads_url"`
	ConsumerKey    string `yaml:"consumer_key"`
	ConsumerSecret string `yaml:"consumer_secret"`
	AccessToken    string `yaml:"access_token"`
	AccessSecret   string `yaml:"access_secret"`
	// Timeout bounds every request.
	Timeout Duration `yaml:"timeout"`
}

// Schedules are cron specs (robfig/cron syntax, CRON_TZ= allowed) per
// pipeline. An empty spec disables that schedule.
type Schedules struct {
	Sync     string `yaml:"sync"`
	Insights string `yaml:"insights"`
	Posts    string `yaml:"posts"`
	Export   string `yaml:"export"`
}

// Queues set each River queue's concurrency.
type Queues struct {
	Sync     int `yaml:"sync"`
	Audience int `yaml:"audience"`
	Export   int `yaml:"export"`
	Default  int `yaml:"default"`
}

// Sync tunes the advertising sync.
type Sync struct {
	// Overlap is subtracted from a bookmark so records updated around the
	// previous run's end are seen again.
	Overlap Duration `yaml:"overlap"`
	// PageSize is the records per page; 0 uses each endpoint's maximum.
	PageSize int `yaml:"page_size"`
}

// Worker tunes how workers run jobs and notice each other's deaths.
type Worker struct {
	// JobTimeout bounds one job attempt.
	JobTimeout Duration `yaml:"job_timeout"`
	// Heartbeat is how often a worker records that it is alive; a worker
	// silent for DeadAfter is dead and its running jobs go back to the queue.
	Heartbeat Duration `yaml:"heartbeat"`
	DeadAfter Duration `yaml:"dead_after"`
}

// Insights lists the keyword sets the insights pipeline fetches.
type Insights struct {
	KeywordSets []KeywordSet `yaml:"keyword_sets"`
	// Lookback is how far back each scheduled run fetches.
	Lookback Duration `yaml:"lookback"`
}

// KeywordSet is one set of keywords looked up together.
type KeywordSet struct {
	Name             string   `yaml:"name"`
	Keywords         []string `yaml:"keywords"`
	NegativeKeywords []string `yaml:"negative_keywords"`
	// Location is one country-level targeting value (empty: worldwide).
	Location string `yaml:"location"`
	// Granularity is DAY (default) or HOUR.
	Granularity string `yaml:"granularity"`
}

// Posts lists v2 posts the posts pipeline hydrates besides those of the
// advertising sync.
type Posts struct {
	IDs []string `yaml:"ids"`
}

// Duration is a time.Duration written as "90s", "1h" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"'`)
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q (use forms like 90s, 15m, 1h)", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as a string.
func (d Duration) MarshalYAML() ([]byte, error) {
	return []byte(time.Duration(d).String()), nil
}

// Default returns the built-in defaults.
func Default() Config {
	return Config{
		LogLevel: "info",
		HTTPAddr: "127.0.0.1:9090",
		API:      API{Timeout: Duration(30 * time.Second)},
		Schedules: Schedules{
			Sync:     "CRON_TZ=UTC 0 2 * * *",
			Insights: "CRON_TZ=UTC 30 2 * * *",
			Posts:    "CRON_TZ=UTC 45 2 * * *",
			Export:   "CRON_TZ=UTC 0 4 * * *",
		},
		Queues: Queues{Sync: 4, Audience: 2, Export: 1, Default: 2},
		Sync:   Sync{Overlap: Duration(time.Hour)},
		Export: Export{Out: "out"},
		Worker: Worker{JobTimeout: Duration(30 * time.Minute), Heartbeat: Duration(5 * time.Second), DeadAfter: Duration(30 * time.Second)},
	}.withPipelineDefaults()
}

// Source says where configuration comes from.
type Source struct {
	// File is the YAML file path; empty means none.
	File string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Flags holds values of flags the user set, by YAML key path
	// (for example "database_url", "log_level").
	Flags map[string]string
}

// setting binds one YAML key path to its environment variable and field.
type setting struct {
	key string
	env string
	ptr func(*Config) *string
}

// settings lists every string setting reachable from the environment or a
// flag. The environment names are part of the public interface.
var settings = []setting{
	{"database_url", "ADSYNC_DATABASE_URL", func(c *Config) *string { return &c.DatabaseURL }},
	{"log_level", "ADSYNC_LOG_LEVEL", func(c *Config) *string { return &c.LogLevel }},
	{"secret_key", "ADSYNC_SECRET_KEY", func(c *Config) *string { return &c.SecretKey }},
	{"http_addr", "ADSYNC_HTTP_ADDR", func(c *Config) *string { return &c.HTTPAddr }},
	{"api.url", "ADSYNC_API_URL", func(c *Config) *string { return &c.API.URL }},
	{"api.ads_url", "ADSYNC_ADS_URL", func(c *Config) *string { return &c.API.AdsURL }},
	{"api.sandbox_ads_url", "ADSYNC_SANDBOX_ADS_URL", func(c *Config) *string { return &c.API.SandboxAdsURL }},
	{"api.consumer_key", "ADSYNC_CONSUMER_KEY", func(c *Config) *string { return &c.API.ConsumerKey }},
	{"api.consumer_secret", "ADSYNC_CONSUMER_SECRET", func(c *Config) *string { return &c.API.ConsumerSecret }},
	{"api.access_token", "ADSYNC_ACCESS_TOKEN", func(c *Config) *string { return &c.API.AccessToken }},
	{"api.access_secret", "ADSYNC_ACCESS_SECRET", func(c *Config) *string { return &c.API.AccessSecret }},
}

// EnvNames returns the environment variables adsync reads, for documentation.
func EnvNames() []string {
	out := []string{"ADSYNC_CONFIG"}
	for _, s := range settings {
		out = append(out, s.env)
	}
	return out
}

// EnvName returns the environment variable of the setting at the YAML key
// path key (for example "api.url"), or "" when the setting has none.
func EnvName(key string) string {
	for _, s := range settings {
		if s.key == key {
			return s.env
		}
	}
	return ""
}

// Load builds the effective configuration: defaults, then the YAML file,
// then the environment, then flags.
func Load(src Source) (Config, error) {
	cfg := Default()
	getenv := src.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if src.File != "" {
		data, err := os.ReadFile(src.File)
		if err != nil {
			return Config{}, fmt.Errorf("config file %s: %w", src.File, err)
		}
		if err := decodeYAML(src.File, data, &cfg); err != nil {
			return Config{}, err
		}
	}
	for _, s := range settings {
		if v := getenv(s.env); v != "" {
			*s.ptr(&cfg) = v
		}
	}
	for key, v := range src.Flags {
		found := false
		for _, s := range settings {
			if s.key == key {
				*s.ptr(&cfg) = v
				found = true
			}
		}
		if !found {
			return Config{}, fmt.Errorf("internal: flag bound to unknown setting %q", key)
		}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// yamlError is the shape of go-yaml's positioned errors.
type yamlError interface {
	GetMessage() string
	GetToken() *token.Token
}

// decodeYAML strictly decodes data (unknown keys are errors) and turns the
// library's errors into one line naming the file, line and key.
func decodeYAML(file string, data []byte, cfg *Config) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	err := yaml.UnmarshalWithOptions(data, cfg, yaml.DisallowUnknownField())
	if err == nil {
		return nil
	}
	var ye yamlError
	if errors.As(err, &ye) && ye.GetToken() != nil {
		msg := ye.GetMessage()
		var uf *yaml.UnknownFieldError
		if errors.As(err, &uf) {
			msg = fmt.Sprintf("unknown key %q", ye.GetToken().Value)
		}
		return fmt.Errorf("config file %s: line %d: %s", file, ye.GetToken().Position.Line, msg)
	}
	return fmt.Errorf("config file %s: %s", file, strings.SplitN(err.Error(), "\n", 2)[0])
}

// Validate checks values that do not depend on other packages.
func (c Config) Validate() error {
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log_level %q: must be debug, info, warn or error", c.LogLevel)
	}
	for name, n := range map[string]int{"queues.sync": c.Queues.Sync, "queues.audience": c.Queues.Audience,
		"queues.export": c.Queues.Export, "queues.default": c.Queues.Default} {
		if n < 1 || n > 1000 {
			return fmt.Errorf("%s: concurrency %d out of range 1-1000", name, n)
		}
	}
	if c.Sync.Overlap < 0 {
		return fmt.Errorf("sync.overlap: must not be negative")
	}
	if c.Sync.PageSize < 0 || c.Sync.PageSize > 1000 {
		return fmt.Errorf("sync.page_size: %d out of range 0-1000 (0: each endpoint's maximum)", c.Sync.PageSize)
	}
	if c.Worker.JobTimeout <= 0 || c.Worker.Heartbeat <= 0 {
		return fmt.Errorf("worker.job_timeout and worker.heartbeat must be positive")
	}
	if c.Worker.DeadAfter < 2*c.Worker.Heartbeat {
		return fmt.Errorf("worker.dead_after (%s) must be at least twice worker.heartbeat (%s)",
			time.Duration(c.Worker.DeadAfter), time.Duration(c.Worker.Heartbeat))
	}
	return c.validatePipelines()
}
