package audience

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/adsync/adsync/hashing/bound"
)

// Definition is one audience kept from a source: an item of audiences: in
// the configuration, run on its schedule by the worker or now by
// `adsync audience sync NAME`.
type Definition struct {
	// Name identifies the definition in commands, job args and runs.
	Name      string
	AccountID string
	// AudienceID is the audience kept; or Create names a CRM audience
	// adsync creates on the first run and keeps from then on.
	AudienceID, Create string
	// Path is a file source (CSV or NDJSON); or Query, a SQL query run on
	// SourceURL (empty: adsync's own database).
	Path, Query, SourceURL string
	// Mode is ModeAdd or ModeReplace.
	Mode string
	// MaxDelete bounds a replace's deletes (unset: DefaultMaxDelete).
	MaxDelete bound.Max
	// Schedule is a cron spec; empty: only `adsync audience sync NAME`.
	Schedule string
}

// SourceKind is "file" or "query".
func (d Definition) SourceKind() string {
	if d.Query != "" {
		return "query"
	}
	return "file"
}

// Target says which audience the definition keeps, for people.
func (d Definition) Target() string {
	if d.Create != "" {
		return fmt.Sprintf("create %q", d.Create)
	}
	return "audience " + d.AudienceID
}

// runParams are what a run of the definition records besides what Plan
// records: never the source's URL, which may hold a password.
func (d Definition) runParams() map[string]string {
	p := map[string]string{"audience": d.Name, "source": d.SourceKind()}
	if d.Path != "" {
		p["file"] = d.Path
	}
	return p
}

// redact removes the source URL's password from s, should an error of the
// source's database carry it, before s is recorded or shown.
func (d Definition) redact(s string) string {
	if u, err := url.Parse(d.SourceURL); err == nil && d.SourceURL != "" {
		if pw, ok := u.User.Password(); ok && pw != "" {
			s = strings.ReplaceAll(s, pw, "[redacted]")
		}
		for _, pw := range u.Query()["password"] {
			if pw != "" {
				s = strings.ReplaceAll(s, pw, "[redacted]")
			}
		}
	}
	return s
}
