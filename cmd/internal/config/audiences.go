package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/audience"
	"github.com/goccy/go-yaml/ast"
)

// Audience is one audience kept from a source (an item of audiences:): on
// its schedule by the worker, now by adsync audience sync NAME.
type Audience struct {
	Name    string `yaml:"name"`
	Account string `yaml:"account"`
	// Audience is the audience id kept; or Create names a CRM audience
	// adsync creates on the first run and keeps from then on.
	Audience string         `yaml:"audience,omitempty"`
	Create   string         `yaml:"create,omitempty"`
	Source   AudienceSource `yaml:"source"`
	// Mode is add (default) or replace.
	Mode string `yaml:"mode"`
	// MaxDelete bounds a replace's deletes: N, P% or -1 (default 10%).
	MaxDelete Scalar `yaml:"max_delete,omitempty"`
	// Schedule is a cron spec; empty: only adsync audience sync NAME.
	Schedule string `yaml:"schedule"`
}

// AudienceSource is a file, or a query run on SourceURL (empty: adsync's
// own database).
type AudienceSource struct {
	File      string `yaml:"file,omitempty"`
	Query     string `yaml:"query,omitempty"`
	SourceURL string `yaml:"source_url,omitempty"`
}

// Scalar is a YAML scalar read as its text whatever its type, so
// max_delete: 500 and max_delete: 10% both read.
type Scalar string

// UnmarshalYAML reads any scalar; a list or a mapping is reported at its
// key and line.
func (s *Scalar) UnmarshalYAML(node ast.Node) error {
	switch n := node.(type) {
	case *ast.StringNode:
		*s = Scalar(n.Value)
	case *ast.NullNode:
		*s = ""
	case ast.ScalarNode:
		*s = Scalar(strings.TrimSpace(n.String()))
	default:
		return &nodeError{tok: node.GetToken(), msg: keyPath(node) + ": want a single value"}
	}
	return nil
}

// audienceName is what a name may hold: it is typed on command lines and
// names a periodic job.
var audienceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Definitions are the configured audiences in the audience package's
// terms, by name. The configuration was validated at load.
func (c Config) Definitions() map[string]audience.Definition {
	out := make(map[string]audience.Definition, len(c.Audiences))
	for _, a := range c.Audiences {
		var limit bound.Max
		if a.MaxDelete != "" {
			limit, _ = bound.Parse(string(a.MaxDelete))
		}
		out[a.Name] = audience.Definition{Name: a.Name, AccountID: a.Account, AudienceID: a.Audience, Create: a.Create,
			Path: a.Source.File, Query: a.Source.Query, SourceURL: a.Source.SourceURL, QueryTimeout: time.Duration(c.Audience.QueryTimeout),
			Mode: a.effectiveMode(), MaxDelete: limit, Schedule: a.Schedule}
	}
	return out
}

// AudienceSchedules are the configured audiences' cron specs by name.
func (c Config) AudienceSchedules() map[string]string {
	out := make(map[string]string, len(c.Audiences))
	for _, a := range c.Audiences {
		out[a.Name] = a.Schedule
	}
	return out
}

// AudienceNames are the configured audiences' names, in the file's order.
func (c Config) AudienceNames() []string {
	out := make([]string, len(c.Audiences))
	for i, a := range c.Audiences {
		out[i] = a.Name
	}
	return out
}

func (a Audience) effectiveMode() string {
	if a.Mode == "" {
		return audience.ModeAdd
	}
	return a.Mode
}

// effectiveAudiences fills in what a run applies to unset fields: mode
// add, and a replace's max_delete.
func effectiveAudiences(in []Audience) []Audience {
	out := slices.Clone(in)
	for i := range out {
		out[i].Mode = out[i].effectiveMode()
		if out[i].Mode == audience.ModeReplace && out[i].MaxDelete == "" {
			out[i].MaxDelete = Scalar(audience.DefaultMaxDelete.String())
		}
	}
	return out
}

// maskedAudiences hides the passwords of the sources' URLs.
func maskedAudiences(in []Audience) []Audience {
	out := slices.Clone(in)
	for i := range out {
		out[i].Source.SourceURL = MaskURL(out[i].Source.SourceURL)
	}
	return out
}

// validateAudiences checks every audience with the rules its runs apply,
// so a bad one stops a worker at start rather than at its first run; and
// the audience settings.
func (c Config) validateAudiences() error {
	if err := c.validateQueryTimeout(); err != nil {
		return err
	}
	names := map[string]int{}
	for i, a := range c.Audiences {
		if err := c.validateAudience(i, a); err != nil {
			return err
		}
		if j, dup := names[a.Name]; dup {
			return c.audienceError(i, a, "name", "already the name of audiences[%d]", j)
		}
		names[a.Name] = i
	}
	return nil
}

// validateQueryTimeout checks audience.query_timeout: positive, and, when
// set, shorter than worker.job_timeout, which bounds a configured
// audience's whole run (its query, then its plan). The default is not held
// to a shorter worker.job_timeout: the job's end cuts the query then.
func (c Config) validateQueryTimeout() error {
	qt, jt := time.Duration(c.Audience.QueryTimeout), time.Duration(c.Worker.JobTimeout)
	switch {
	case qt <= 0:
		return keyErrorf("audience.query_timeout", "%s: must be positive (it bounds the reading of a query source; default %s)", qt, audience.DefaultQueryTimeout)
	case jt > 0 && qt >= jt && c.Origin("audience.query_timeout") != "default":
		return keyErrorf("audience.query_timeout", "%s: must be shorter than worker.job_timeout (%s), which bounds a configured audience's whole run: raise worker.job_timeout too", qt, jt)
	}
	return nil
}

func (c Config) validateAudience(i int, a Audience) error {
	src := a.Source
	switch {
	case a.Name == "":
		return c.audienceError(i, a, "name", "required: adsync audience sync NAME and the runs name the audience by it")
	case !audienceName.MatchString(a.Name):
		return c.audienceError(i, a, "name", "use letters, digits, '.', '_' and '-', starting with a letter or digit")
	case a.Account == "":
		return c.audienceError(i, a, "account", "required: the ads account id the audience belongs to")
	case a.Audience == "" && a.Create == "":
		return c.audienceError(i, a, "audience", "give audience (an audience id) or create (a name adsync creates the audience under, once)")
	case a.Audience != "" && a.Create != "":
		return c.audienceError(i, a, "create", "give audience or create, not both")
	case src.File == "" && src.Query == "":
		return c.audienceError(i, a, "source", "give source.file (a CSV or NDJSON file) or source.query (SQL)")
	case src.File != "" && src.Query != "":
		return c.audienceError(i, a, "source", "give source.file or source.query, not both")
	case src.SourceURL != "" && src.Query == "":
		return c.audienceError(i, a, "source.source_url", "only a query source reads a database (source.query)")
	case src.SourceURL != "" && !postgresURL(src.SourceURL):
		return c.audienceError(i, a, "source.source_url", "%s: want a postgres:// URL", MaskURL(src.SourceURL))
	case a.Mode != "" && a.Mode != audience.ModeAdd && a.Mode != audience.ModeReplace:
		return c.audienceError(i, a, "mode", "%q: want add or replace", a.Mode)
	case a.MaxDelete != "" && a.effectiveMode() != audience.ModeReplace:
		return c.audienceError(i, a, "max_delete", "bounds the deletes of mode: replace; mode add deletes nothing")
	}
	if a.MaxDelete != "" {
		if _, err := bound.Parse(string(a.MaxDelete)); err != nil {
			return c.audienceError(i, a, "max_delete", "%v", err)
		}
	}
	if a.Schedule != "" {
		if _, err := jobs.ParseCron(a.Schedule); err != nil {
			return c.audienceError(i, a, "schedule", "%v", err)
		}
	}
	return nil
}

// audienceError is a keyError about field of audiences[i], naming the
// audience. Its key is the field's when the file sets it, else the item's,
// so Load names the file and line either way.
func (c Config) audienceError(i int, a Audience, field, format string, args ...any) error {
	key := fmt.Sprintf("audiences[%d].%s", i, field)
	if c.Origin(key) == "default" {
		key = fmt.Sprintf("audiences[%d]", i)
	}
	msg := fmt.Sprintf("audiences[%d].%s", i, field)
	if a.Name != "" {
		msg += fmt.Sprintf(" (audience %q)", a.Name)
	}
	return &keyError{key: key, msg: msg + ": " + fmt.Sprintf(format, args...)}
}

func postgresURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql")
}
