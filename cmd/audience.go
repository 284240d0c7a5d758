package adsynccmd

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"time"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// audienceCommand is the parent of the audience commands: hash, upload
// and sync.
func (a *app) audienceCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "audience", Short: "Prepare and upload custom audience users"}
	cmd.AddCommand(a.audienceHashCommand(), a.audienceUploadCommand(), a.audienceSyncCommand())
	return cmd
}

// sourceFlags name the input of hash and upload: a file (CSV, NDJSON,
// Parquet; a folder or glob of Parquet files), or a query.
type sourceFlags struct {
	in, query, sourceURL string
}

func (s *sourceFlags) register(f *pflag.FlagSet, in string) {
	f.StringVar(&s.in, "in", "", in)
	f.StringVar(&s.query, "query", "", "a SQL query instead of --in, its result columns named like a CSV header (SELECT email, phone AS phone_number FROM ...); "+
		"run read-only through a cursor on --source-url, else on adsync's database")
	f.StringVar(&s.sourceURL, "source-url", "", "Postgres URL the --query runs on (default: adsync's database)")
}

// check refuses anything but one input; cmd names the command.
func (s *sourceFlags) check(cmd string) error {
	switch {
	case s.in != "" && s.query != "":
		return usageError("%s: give one of --in and --query", cmd)
	case s.in == "" && s.query == "":
		return usageError("%s: --in FILE is required, or --query SQL", cmd)
	case s.sourceURL != "" && s.query == "":
		return usageError("%s: --source-url is where a --query runs: give --query too", cmd)
	}
	return nil
}

// inputUsage gives an error about the input itself (no user can be read
// from it: a missing file, a column naming no identifier type, a query
// that writes) the usage exit status: the input must change.
func inputUsage(err error) error {
	var ie *hashing.InputError
	var ec *exitCodeError
	if errors.As(err, &ie) && !errors.As(err, &ec) {
		return &exitCodeError{code: exitUsage, err: err}
	}
	return err
}

// hashFlags are the normalization, reading and invalid-row flags hash and
// upload share, so each means the same in both.
type hashFlags struct {
	country       string
	noPassThrough bool
	ignoreUnknown bool
	aliases       []string
	delimiter     string
	maxInvalid    bound.Max
}

// defaultHashFlags are the flags' defaults: what a command that builds its
// upload without flags (the demo) uses.
func defaultHashFlags() hashFlags {
	return hashFlags{maxInvalid: hashing.DefaultMaxInvalid, delimiter: ","}
}

func (h *hashFlags) register(f *pflag.FlagSet) {
	*h = defaultHashFlags()
	f.Var(&h.maxInvalid, "max-invalid", "invalid rows the file may hold, as a count or a percentage of its rows (-1: any); above it nothing is written or uploaded "+
		"and the exit status is 1. A few bad rows in a CRM export are normal (they are listed and left out); more usually mean the wrong file or a wrong column")
	f.StringVar(&h.country, "default-country", "", "ISO 3166-1 alpha-2 country of phone numbers written without a country code (e.g. US)")
	f.BoolVar(&h.noPassThrough, "no-pass-through", false, "hash values that already look like SHA-256 (64 hex characters) instead of passing them through")
	f.BoolVar(&h.ignoreUnknown, "ignore-unknown", false, "ignore columns or keys that name no identifier type instead of failing")
	f.StringArrayVar(&h.aliases, "alias", nil, "map a column name to an identifier type, as name=type (repeatable)")
	f.StringVar(&h.delimiter, "delimiter", h.delimiter, "CSV field delimiter: one character (';', '|'), or tab (also written \\t)")
}

// build returns the normalizer and reader options the flags describe; cmd
// names the command in usage errors.
func (h *hashFlags) build(cmd string) (*hashing.Normalizer, hashing.ReaderOptions, error) {
	ropts := hashing.ReaderOptions{IgnoreUnknown: h.ignoreUnknown, Aliases: map[string]hashing.Type{}}
	for _, al := range h.aliases {
		name, typ, ok := strings.Cut(al, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, ropts, usageError("%s: --alias %q: want name=type", cmd, al)
		}
		t, err := hashing.ParseType(typ)
		if err != nil {
			return nil, ropts, usageError("%s: --alias %q: %v", cmd, al, err)
		}
		ropts.Aliases[name] = t
	}
	d, err := hashing.ParseDelimiter(h.delimiter)
	if err != nil {
		return nil, ropts, usageError("%s: --delimiter: %v", cmd, err)
	}
	ropts.Delimiter = d
	nopts := hashing.DefaultOptions()
	nopts.DefaultCountry = h.country
	nopts.PassThroughHashed = !h.noPassThrough
	norm, err := hashing.NewNormalizer(nopts)
	if err != nil {
		return nil, ropts, usageError("%s: --default-country: %v", cmd, err)
	}
	return norm, ropts, nil
}

func (a *app) audienceHashCommand() *cobra.Command {
	var (
		src sourceFlags
		out string
		hf  hashFlags
	)
	cmd := &cobra.Command{
		Use:   "hash",
		Short: "Normalize and SHA-256 a CSV, NDJSON or Parquet file, or a query's result, into NDJSON user objects, without the service",
		Long: `Normalize and hash every row of --in (CSV with a header, or NDJSON, gzip read transparently;
a Parquet file, a folder of them or a glob) or of a --query's result into one user object per
user, written as NDJSON to --out or stdout.
A row with any invalid value is left out whole; a row repeating a user already in the file
(the same identifiers once normalized and hashed) is counted as a duplicate, not written again. The report (rows read, per-type valid and
invalid counts, invalid rows by line, or by row for Parquet and queries) goes to stdout when
--out is a regular file, else to stderr.
A run that fails (more invalid rows than --max-invalid, an unreadable file) writes no user:
--out is written atomically and leaves no file, and stdout gets the users only once the
whole file passed. An existing --out keeps its mode and owner; a symbolic link is followed
and its target replaced; a device, a FIFO or /dev/stdout is written into, never replaced. An input no user can be read from (no identifier column, a column naming
none, a query that writes) exits 2.

Parquet and query columns are named like a CSV header (email, phone_number, device_id, handle,
service_id, partner_user_id, or an --alias) and hold strings or integers; a null is an empty
value. A --query runs in a read-only transaction, on --source-url or adsync's database.

CSV fields are separated by commas unless --delimiter says otherwise (--delimiter ';',
--delimiter tab). A header read as one column that holds a semicolon or a tab fails with
a hint naming the delimiter the file seems to use.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := src.check("audience hash"); err != nil {
				return err
			}
			norm, ropts, err := hf.build("audience hash")
			if err != nil {
				return err
			}
			return inputUsage(audience.Hash(cmd.Context(), audience.HashOptions{In: src.in, Query: src.query, SourceURL: src.sourceURL,
				Pool: a.sourceDatabase, QueryTimeout: time.Duration(a.cfg.Audience.QueryTimeout), Stdin: a.stdin, Out: out,
				Stdout: a.stdout, Stderr: a.stderr, MaxInvalid: hf.maxInvalid, Normalizer: norm, Reader: ropts, Workers: runtime.GOMAXPROCS(0)}))
		},
	}
	f := cmd.Flags()
	src.register(f, "input: .csv or .ndjson/.jsonl, optionally gzipped (format sniffed otherwise), a .parquet file, a folder of them or a glob; - reads stdin")
	f.StringVar(&out, "out", "", "output NDJSON file (default stdout)")
	hf.register(f)
	return cmd
}

// sourceDatabase opens adsync's database for a --query to run on.
func (a *app) sourceDatabase(ctx context.Context) (*pgxpool.Pool, error) {
	return a.openDatabase(ctx, 2, false)
}
