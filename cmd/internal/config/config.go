package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/store"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
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
	// UIPassword opens the runs page and River's UI, served beside the
	// health endpoints, on an address other than loopback: HTTP basic auth
	// as user admin. Without it they are refused there.
	UIPassword string `yaml:"ui_password"`
	// MCPToken opens the worker's MCP server (/mcp) on an address other
	// than loopback: requests must carry Authorization: Bearer MCPToken.
	// Without it /mcp is refused there.
	MCPToken string `yaml:"mcp_token"`
	// HTTPAllowedHosts are the names, comma-separated, by which browsers
	// may reach the worker's pages besides localhost and IP addresses (a
	// proxy's or DNS name): NAME for any port, NAME:PORT for that one. Any
	// other name in a request's Host is refused (DNS rebinding).
	HTTPAllowedHosts string `yaml:"http_allowed_hosts"`

	API       API       `yaml:"api"`
	Schedules Schedules `yaml:"schedules"`
	Queues    Queues    `yaml:"queues"`
	Sync      Sync      `yaml:"sync"`
	Export    Export    `yaml:"export"`
	Worker    Worker    `yaml:"worker"`
	Insights  Insights  `yaml:"insights"`
	Posts     Posts     `yaml:"posts"`
	Stats     Stats     `yaml:"stats"`
	// Audience tunes every audience upload and configured audience.
	Audience AudienceSettings `yaml:"audience"`
	// Audiences are kept from their sources, each on its schedule.
	Audiences []Audience `yaml:"audiences"`

	// Origins says where each value set by other than the defaults came
	// from, by YAML key path (see Origin).
	Origins map[string]string `yaml:"-"`
}

// Export configures the export.
type Export struct {
	// Out is where scheduled exports write (OUT/<table>/dt=YYYY-MM-DD/...).
	Out string `yaml:"out"`
	// Format is parquet (files and manifests) or iceberg (tables in the
	// Iceberg catalog in adsync's Postgres).
	Format string `yaml:"format"`
	// IcebergCatalog and IcebergNamespace name the Iceberg tables.
	IcebergCatalog   string `yaml:"iceberg_catalog"`
	IcebergNamespace string `yaml:"iceberg_namespace"`
	// SnapshotRetention is how long an Iceberg table keeps a snapshot that
	// is no longer current.
	SnapshotRetention Duration `yaml:"snapshot_retention"`
}

// Options are the export options the configuration sets.
func (e Export) Options() export.Options {
	return export.Options{Out: e.Out, Format: e.Format, Catalog: e.IcebergCatalog, Namespace: e.IcebergNamespace,
		SnapshotRetention: time.Duration(e.SnapshotRetention)}
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

// AudienceSettings tune every audience upload (adsync audience upload and
// hash) and every configured audience (audiences:).
type AudienceSettings struct {
	// QueryTimeout bounds the reading of a query source's result; past it
	// Postgres cuts the query and nothing is recorded or sent.
	QueryTimeout Duration `yaml:"query_timeout"`
}

// Schedules are cron specs (robfig/cron syntax, CRON_TZ= allowed) per
// pipeline. An empty spec disables that schedule.
type Schedules struct {
	Sync     string `yaml:"sync"`
	Insights string `yaml:"insights"`
	Posts    string `yaml:"posts"`
	Stats    string `yaml:"stats"`
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
	// RunRetention is how long the history of finished runs is kept: a
	// worker prunes older runs, their units and stats jobs every hour
	// (see jobs.PruneRuns).
	RunRetention Duration `yaml:"run_retention"`
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

// Stats configures the analytics pipeline; empty fields take the defaults
// of sync/stats (campaigns, line items, promoted posts and media creatives;
// every metric group each allows; DAY; 14 days; half the active entities
// window).
type Stats struct {
	// Entities are entity types (CAMPAIGN, LINE_ITEM, ...).
	Entities []string `yaml:"entities"`
	// MetricGroups are asked for every entity that allows them.
	MetricGroups []string `yaml:"metric_groups"`
	// Granularity is DAY or HOUR.
	Granularity string `yaml:"granularity"`
	// Lookback is the trailing window every run re-pulls: spend and
	// conversions change after the fact.
	Lookback Duration `yaml:"lookback"`
	// Segmentations are pulled besides the unsegmented metrics (AGE,
	// GENDER, REGIONS:96683cc9126741d1, PLATFORM_VERSIONS:1, ...; a
	// country is its location key, as given).
	Segmentations []string `yaml:"segmentations"`
	// MaxBudgetShare is the most of the active entities endpoint's
	// 15-minute window one run may need; a run that needs more is refused
	// before it starts.
	MaxBudgetShare float64 `yaml:"max_budget_share"`
}

// Posts lists v2 posts the posts pipeline hydrates besides those of the
// advertising sync.
type Posts struct {
	IDs []string `yaml:"ids"`
}

// Duration is a time.Duration written as "90s", "1h" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string. It takes the node, not its
// bytes, so a bad value is reported at its key and line like every other
// decoding error (see decodeYAML).
func (d *Duration) UnmarshalYAML(node ast.Node) error {
	var s string
	switch n := node.(type) {
	case *ast.StringNode:
		s = n.Value
	case *ast.NullNode:
	default:
		s = strings.TrimSpace(n.String())
	}
	v, err := parseDuration(s)
	if err != nil {
		return &nodeError{tok: node.GetToken(), msg: keyPath(node) + ": " + err.Error()}
	}
	*d = Duration(v)
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (use forms like 90s, 15m, 1h)", s)
	}
	return v, nil
}

// nodeError is a decoding error at a node; it has the shape of go-yaml's
// own positioned errors (yamlError), so decodeYAML reports it alike.
type nodeError struct {
	tok *token.Token
	msg string
}

func (e *nodeError) Error() string          { return e.msg }
func (e *nodeError) GetMessage() string     { return e.msg }
func (e *nodeError) GetToken() *token.Token { return e.tok }

// keyPath is a node's YAML key path without the root ("api.timeout").
func keyPath(node ast.Node) string {
	return strings.TrimPrefix(strings.TrimPrefix(node.GetPath(), "$"), ".")
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
			Stats:    "CRON_TZ=UTC 15 3 * * *",
			Export:   "CRON_TZ=UTC 0 4 * * *",
		},
		Queues:   Queues{Sync: 4, Audience: 2, Export: 1, Default: 2},
		Audience: AudienceSettings{QueryTimeout: Duration(audience.DefaultQueryTimeout)},
		Sync:     Sync{Overlap: Duration(time.Hour)},
		Export: Export{Out: "out", Format: export.FormatParquet, IcebergCatalog: export.DefaultIcebergName,
			IcebergNamespace: export.DefaultIcebergName, SnapshotRetention: Duration(export.DefaultSnapshotRetention)},
		Worker: Worker{JobTimeout: Duration(30 * time.Minute), Heartbeat: Duration(5 * time.Second), DeadAfter: Duration(30 * time.Second),
			RunRetention: Duration(store.DefaultRunRetention)},
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

// setting binds one YAML key path to its environment variable and field:
// a string (ptr) or a duration (dur).
type setting struct {
	key string
	env string
	ptr func(*Config) *string
	dur func(*Config) *Duration
}

// set assigns v, parsed for the field's type.
func (s setting) set(c *Config, v string) error {
	if s.dur != nil {
		d, err := parseDuration(v)
		if err != nil {
			return err
		}
		*s.dur(c) = Duration(d)
		return nil
	}
	*s.ptr(c) = v
	return nil
}

// settings lists every string setting reachable from the environment or a
// flag. The environment names are part of the public interface.
var settings = []setting{
	{"database_url", "ADSYNC_DATABASE_URL", func(c *Config) *string { return &c.DatabaseURL }, nil},
	{"log_level", "ADSYNC_LOG_LEVEL", func(c *Config) *string { return &c.LogLevel }, nil},
	{"secret_key", "ADSYNC_SECRET_KEY", func(c *Config) *string { return &c.SecretKey }, nil},
	{"http_addr", "ADSYNC_HTTP_ADDR", func(c *Config) *string { return &c.HTTPAddr }, nil},
	{"ui_password", "ADSYNC_UI_PASSWORD", func(c *Config) *string { return &c.UIPassword }, nil},
	{"mcp_token", "ADSYNC_MCP_TOKEN", func(c *Config) *string { return &c.MCPToken }, nil},
	{"http_allowed_hosts", "ADSYNC_HTTP_ALLOWED_HOSTS", func(c *Config) *string { return &c.HTTPAllowedHosts }, nil},
	{"api.url", "ADSYNC_API_URL", func(c *Config) *string { return &c.API.URL }, nil},
	{"api.ads_url", "ADSYNC_ADS_URL", func(c *Config) *string { return &c.API.AdsURL }, nil},
	{"api.sandbox_ads_url", "ADSYNC_SANDBOX_ADS_URL", func(c *Config) *string { return &c.API.SandboxAdsURL }, nil},
	{"api.consumer_key", "ADSYNC_CONSUMER_KEY", func(c *Config) *string { return &c.API.ConsumerKey }, nil},
	{"api.consumer_secret", "ADSYNC_CONSUMER_SECRET", func(c *Config) *string { return &c.API.ConsumerSecret }, nil},
	{"api.access_token", "ADSYNC_ACCESS_TOKEN", func(c *Config) *string { return &c.API.AccessToken }, nil},
	{"api.access_secret", "ADSYNC_ACCESS_SECRET", func(c *Config) *string { return &c.API.AccessSecret }, nil},
	{"api.timeout", "ADSYNC_API_TIMEOUT", nil, func(c *Config) *Duration { return &c.API.Timeout }},
	{"export.out", "ADSYNC_EXPORT_OUT", func(c *Config) *string { return &c.Export.Out }, nil},
	{"export.format", "ADSYNC_EXPORT_FORMAT", func(c *Config) *string { return &c.Export.Format }, nil},
	{"audience.query_timeout", "ADSYNC_AUDIENCE_QUERY_TIMEOUT", nil, func(c *Config) *Duration { return &c.Audience.QueryTimeout }},
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
	origins := map[string]string{}
	if src.File != "" {
		data, err := os.ReadFile(src.File)
		if err != nil {
			return Config{}, fmt.Errorf("config file %s: %w", src.File, err)
		}
		if err := decodeYAML(src.File, data, &cfg); err != nil {
			return Config{}, err
		}
		fileOrigins(src.File, data, origins)
	}
	for _, s := range settings {
		if v := getenv(s.env); v != "" {
			if err := s.set(&cfg, v); err != nil {
				return Config{}, fmt.Errorf("%s (env %s): %w", s.key, s.env, err)
			}
			origins[s.key] = "env " + s.env
		}
	}
	for key, v := range src.Flags {
		found := false
		for _, s := range settings {
			if s.key == key {
				if err := s.set(&cfg, v); err != nil {
					return Config{}, fmt.Errorf("%s (%s): %w", s.key, flagOrigin(key), err)
				}
				origins[s.key] = flagOrigin(key)
				found = true
			}
		}
		if !found {
			return Config{}, fmt.Errorf("internal: flag bound to unknown setting %q", key)
		}
	}
	cfg.Origins = origins
	if err := cfg.Validate(); err != nil {
		var ke *keyError
		if errors.As(err, &ke) {
			if o := cfg.Origin(ke.key); o != "default" {
				return Config{}, fmt.Errorf("%w (%s)", err, o)
			}
		}
		return Config{}, err
	}
	return cfg, nil
}

// flagOrigin names the command-line flag of a setting: the root command's
// flags are the last key segment with dashes (database_url: --database-url).
func flagOrigin(key string) string {
	return "flag --" + strings.ReplaceAll(key[strings.LastIndex(key, ".")+1:], "_", "-")
}

// Origin says where the value of the setting at the YAML key path key came
// from: "default", "flag --NAME", "env NAME" or "file PATH:LINE".
func (c Config) Origin(key string) string {
	if o, ok := c.Origins[key]; ok {
		return o
	}
	return "default"
}

// fileOrigins records "file PATH:LINE" for every key the file sets: a
// list under its key, each item under its index (audiences[1]).
func fileOrigins(file string, data []byte, origins map[string]string) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return // decodeYAML already accepted data; nothing to add
	}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.MappingNode:
			for _, v := range n.Values {
				walk(v)
			}
		case *ast.MappingValueNode:
			origins[keyPath(n.Value)] = fmt.Sprintf("file %s:%d", file, n.Key.GetToken().Position.Line)
			walk(n.Value)
		case *ast.SequenceNode:
			// Items and their keys too (audiences[1].mode), for errors
			// about one item.
			for _, item := range n.Values {
				origins[keyPath(item)] = fmt.Sprintf("file %s:%d", file, item.GetToken().Position.Line)
				walk(item)
			}
		}
	}
	for _, d := range f.Docs {
		if d.Body != nil {
			walk(d.Body)
		}
	}
}

// keyError is a validation error about one setting; Load adds where its
// value came from.
type keyError struct {
	key string
	msg string // the whole message, naming the key
}

func (e *keyError) Error() string { return e.msg }

// keyErrorf is a keyError reading "key: message".
func keyErrorf(key, format string, args ...any) error {
	return &keyError{key: key, msg: key + ": " + fmt.Sprintf(format, args...)}
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
		return &keyError{key: "log_level", msg: fmt.Sprintf("log_level %q: must be debug, info, warn or error", c.LogLevel)}
	}
	for name, n := range map[string]int{"queues.sync": c.Queues.Sync, "queues.audience": c.Queues.Audience,
		"queues.export": c.Queues.Export, "queues.default": c.Queues.Default} {
		if n < 1 || n > 1000 {
			return keyErrorf(name, "concurrency %d out of range 1-1000", n)
		}
	}
	if c.API.Timeout <= 0 {
		return keyErrorf("api.timeout", "%s: must be positive (it bounds every request; default 30s)", time.Duration(c.API.Timeout))
	}
	if strings.TrimSpace(c.Export.Out) == "" {
		return keyErrorf("export.out", "must not be empty (the folder or s3://BUCKET/PREFIX exports write into; default ./out)")
	}
	if _, err := export.ParseOutput(c.Export.Out); err != nil {
		return keyErrorf("export.out", "%s", strings.TrimPrefix(err.Error(), "export: "))
	}
	if c.Export.Format != export.FormatParquet && c.Export.Format != export.FormatIceberg {
		return keyErrorf("export.format", "%q: must be parquet or iceberg", c.Export.Format)
	}
	if strings.TrimSpace(c.Export.IcebergCatalog) == "" || strings.TrimSpace(c.Export.IcebergNamespace) == "" {
		return keyErrorf("export.iceberg_namespace", "the Iceberg catalog and namespace must not be empty (default adsync)")
	}
	if c.Export.SnapshotRetention <= 0 {
		return keyErrorf("export.snapshot_retention", "must be positive (default 720h, 30 days)")
	}
	if _, err := c.AllowedHosts(); err != nil {
		return err
	}
	if c.Sync.Overlap < 0 {
		return keyErrorf("sync.overlap", "must not be negative")
	}
	if c.Sync.PageSize < 0 || c.Sync.PageSize > 1000 {
		return keyErrorf("sync.page_size", "%d out of range 0-1000 (0: each endpoint's maximum)", c.Sync.PageSize)
	}
	if c.Worker.JobTimeout <= 0 || c.Worker.Heartbeat <= 0 {
		return fmt.Errorf("worker.job_timeout and worker.heartbeat must be positive")
	}
	if c.Worker.RunRetention < Duration(24*time.Hour) {
		return keyErrorf("worker.run_retention", "%s: must be at least 24h (default 2160h, 90 days)", time.Duration(c.Worker.RunRetention))
	}
	if c.Worker.DeadAfter < 2*c.Worker.Heartbeat {
		return fmt.Errorf("worker.dead_after (%s) must be at least twice worker.heartbeat (%s)",
			time.Duration(c.Worker.DeadAfter), time.Duration(c.Worker.Heartbeat))
	}
	return c.validatePipelines()
}
