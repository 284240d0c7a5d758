package audience

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/jackc/pgx/v5/pgxpool"
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
	// QueryTimeout bounds the reading of Query's result (zero:
	// DefaultQueryTimeout).
	QueryTimeout time.Duration
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

// planOptions are the Plan options of the definition's source and mode
// for audienceID, hashed by norm (nil: hashing.DefaultOptions()).
func (d Definition) planOptions(audienceID string, norm *hashing.Normalizer) PlanOptions {
	if norm == nil {
		norm, _ = hashing.NewNormalizer(hashing.DefaultOptions()) // no default country: never fails
	}
	return PlanOptions{
		AccountID: d.AccountID, AudienceID: audienceID, Path: d.Path, Query: d.Query, SourceURL: d.SourceURL, QueryTimeout: d.QueryTimeout,
		Operation: OperationUpdate, Mode: cmp.Or(d.Mode, ModeAdd), MaxDelete: d.MaxDelete, Normalizer: norm, Workers: 1,
	}
}

// CheckDefinition checks that d's source can be read (see CheckSource),
// sending and recording nothing: what adsync doctor says of each
// configured audience.
func CheckDefinition(ctx context.Context, pool *pgxpool.Pool, d Definition) error {
	audienceID := cmp.Or(d.AudienceID, "(to be created)")
	return d.redactError(CheckSource(ctx, pool, d.planOptions(audienceID, nil)))
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
	if d.SourceURL == "" {
		return s
	}
	if u, err := url.Parse(d.SourceURL); err == nil {
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

// redactError is err with d.redact applied to its message; it still
// unwraps to err.
func (d Definition) redactError(err error) error {
	if err == nil {
		return nil
	}
	if msg := d.redact(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
