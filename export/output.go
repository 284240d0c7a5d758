package export

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// An output is where a run's files go: a local folder (folder.go) or an
// object-store prefix (prefix.go). Both keep one contract: the output
// carries a marker naming the database that owns it; adsync writes only
// into an output it owns and removes only what its own records there name;
// a run's files stay invisible to readers until every file of the run is
// complete, and a run that stops half-way is undone by the next.
type output interface {
	// where names the output for people and for the run's records; it never
	// holds a credential.
	where() string
	// id is the output id in the output's marker.
	id() string
	// recover finishes or undoes what earlier runs left behind.
	recover(ctx context.Context) error
	// hasManifest says whether run's manifest already exists.
	hasManifest(ctx context.Context, run int64) (bool, error)
	// create starts the file at rel (slash-separated, relative to the
	// output's root), invisible to readers until publish.
	create(ctx context.Context, run int64, rel string) (fileSink, error)
	// publish records the run's files (the journal an interrupted run is
	// undone by) and then makes them visible, never replacing anything.
	publish(ctx context.Context, run int64, files []pendingFile) error
	// discard undoes a run that failed before it committed (its writers
	// have dropped their files): what publish made visible is removed, its
	// manifest if it wrote one, and what the run staged with it.
	discard(ctx context.Context, run int64)
	// writeManifest writes the run's manifest, never over an existing one,
	// and sets res.Manifest. It records what it wrote as publish does, so
	// that undoing a run that did not commit removes its manifest too.
	writeManifest(ctx context.Context, res *Result) error
	// finish drops what a committed run kept for recovery.
	finish(ctx context.Context, run int64)
	close()
}

// fileSink receives one file's bytes.
type fileSink interface {
	io.Writer
	// complete makes the bytes durable, still invisible to readers.
	complete() error
	// abort drops the bytes written so far.
	abort()
}

// pendingFile is a complete file waiting for publish.
type pendingFile struct {
	rel  string
	sink fileSink
	info FileInfo
}

// isURL says whether out is written as a URL (scheme://...) rather than a
// path.
func isURL(out string) bool {
	scheme, _, ok := strings.Cut(out, "://")
	return ok && scheme != "" && !strings.ContainsAny(scheme, `/\`)
}

// IsObjectStore says whether out names an object-store prefix rather than
// a local folder.
func IsObjectStore(out string) bool {
	return isURL(out) && strings.HasPrefix(strings.ToLower(out), "s3://")
}

// ParseOutput checks an output location without opening it and returns
// how it names itself: an absolute folder, or the object-store URL as given
// (less nothing: query parameters such as endpoint are kept). It refuses an
// unsupported scheme and a URL that carries credentials, without echoing
// them.
func ParseOutput(out string) (string, error) {
	if strings.TrimSpace(out) == "" {
		return "", &OutputError{"export: no output folder"}
	}
	if !isURL(out) {
		return filepath.Abs(out)
	}
	scheme, _, _ := strings.Cut(out, "://")
	u, err := url.Parse(out)
	if err != nil {
		return "", &OutputError{fmt.Sprintf("export: output %s://...: not a valid URL", scheme)}
	}
	if u.User != nil {
		return "", &OutputError{fmt.Sprintf("export: output %s://...: credentials in the URL are refused (they would be stored with every run); use the standard AWS environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...) or ~/.aws", scheme)}
	}
	switch u.Scheme {
	case "file":
		// A local folder named as a URL: the folder's own code, which keeps
		// the same contract with a rename.
		if u.Host != "" && u.Host != "localhost" {
			return "", &OutputError{fmt.Sprintf("export: output %s: a file:// URL names a folder on this machine (file:///path)", redactURL(u))}
		}
		if u.Path == "" || u.RawQuery != "" {
			return "", &OutputError{fmt.Sprintf("export: output %s: expected file:///absolute/path with no query", redactURL(u))}
		}
		return filepath.Abs(filepath.FromSlash(u.Path))
	case "s3":
		if u.Host == "" {
			return "", &OutputError{fmt.Sprintf("export: output %s: no bucket (expected s3://BUCKET/PREFIX)", redactURL(u))}
		}
		if u.Query().Has("prefix") {
			return "", &OutputError{fmt.Sprintf("export: output %s: give the prefix in the path (s3://BUCKET/PREFIX), not as ?prefix=", redactURL(u))}
		}
		if err := checkS3Query(u); err != nil {
			return "", err
		}
		if u.Fragment != "" {
			return "", &OutputError{fmt.Sprintf("export: output %s: a URL fragment (#...) is not allowed", redactURL(u))}
		}
		return u.String(), nil
	default:
		return "", &OutputError{fmt.Sprintf("export: output scheme %q is not supported (supported: a local folder or file:///path, and s3://BUCKET/PREFIX for any S3-compatible store)", u.Scheme)}
	}
}

// s3QueryParams are the query parameters gocloud.dev's s3blob reads (its
// aws.V2ConfigFromURLParams and s3blob's own): none carries a secret.
var s3QueryParams = []string{"region", "endpoint", "profile", "dualstack", "fips", "rate_limiter_capacity", "anonymous",
	"role", "awssdk", "hostname_immutable", "request_checksum_calculation", "response_checksum_validation",
	"ssetype", "kmskeyid", "accelerate", "use_path_style", "s3ForcePathStyle", "disable_https"}

// checkS3Query refuses a query parameter s3blob does not read (a secret
// such as aws_secret_access_key among them), naming the parameter and never
// its value: the URL is kept with every run and job.
func checkS3Query(u *url.URL) error {
	for k := range u.Query() {
		if slices.Contains(s3QueryParams, k) {
			continue
		}
		lk := strings.ToLower(k)
		if strings.Contains(lk, "secret") || strings.Contains(lk, "key") || strings.Contains(lk, "token") ||
			strings.Contains(lk, "credential") || strings.Contains(lk, "signature") || strings.Contains(lk, "password") {
			return &OutputError{fmt.Sprintf("export: output %s: query parameter %q is refused: credentials in the URL would be stored with every run; use the standard AWS environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...) or ~/.aws", redactURL(u), k)}
		}
		return &OutputError{fmt.Sprintf("export: output %s: unknown query parameter %q (known: %s)", redactURL(u), k, strings.Join(s3QueryParams, ", "))}
	}
	return nil
}

// OutputError is an output location adsync cannot use as written.
type OutputError struct{ msg string }

func (e *OutputError) Error() string { return e.msg }

// Permanent tells api.Explain that retrying cannot help.
func (e *OutputError) Permanent() bool { return true }

// CheckOutput says whether an export could write into out (a folder or an
// object-store prefix) without writing anything that stays: the ownership
// rules of a run, and a write that is removed at once. pool may be nil: a
// marker is then taken as this database's.
func CheckOutput(ctx context.Context, pool *pgxpool.Pool, out string) (FolderState, error) {
	loc, err := ParseOutput(out)
	if err != nil {
		return "", err
	}
	if !IsObjectStore(loc) {
		return CheckFolder(ctx, pool, loc)
	}
	p, err := openPrefix(ctx, loc)
	if err != nil {
		return "", err
	}
	defer p.close()
	state, err := checkMarker(ctx, pool, p)
	if err != nil {
		return "", err
	}
	return state, p.probeWritable(ctx)
}

// OutputName names out for people: an absolute folder, or an object-store
// URL without its query (endpoint and such) and user info.
func OutputName(out string) string {
	loc, err := ParseOutput(out)
	if err != nil {
		return out
	}
	if u, err := url.Parse(loc); err == nil && IsObjectStore(loc) {
		return redactURL(u)
	}
	return loc
}

// redactURL shows a URL without user info and query values.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	return c.String()
}

// openOutput claims the output at out for this database.
func openOutput(ctx context.Context, pool *pgxpool.Pool, out string) (output, error) {
	loc, err := ParseOutput(out)
	if err != nil {
		return nil, err
	}
	if IsObjectStore(loc) {
		return claimPrefix(ctx, pool, loc)
	}
	return claimFolder(ctx, pool, loc)
}
