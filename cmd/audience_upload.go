package adsynccmd

import (
	"runtime"
	"strings"
	"time"

	"github.com/adsync/adsync/cmd/internal/config"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/audience"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// uploadFlags are the flags of audience upload.
type uploadFlags struct {
	account, audienceID, create string
	sourceFlags
	op, mode               string
	effectiveAt, expiresAt string
	wait, force, dryRun    bool
	maxDelete              bound.Max
	hf                     hashFlags
	// flags are the command's parsed flags, to print the command again.
	flags *pflag.FlagSet
}

func (a *app) audienceUploadCommand() *cobra.Command {
	var uf uploadFlags
	cmd := &cobra.Command{
		Use:   "upload",
		Short: "Upload the users of a file (CSV, NDJSON, Parquet) or a query to a custom audience in durable batches",
		Long: `Normalize and hash every row of --in (CSV, NDJSON, a Parquet file, a folder or a glob of them)
or of a --query's result, record the upload in Postgres and split it into
batches of at most 2,500 users and 5,000,000 bytes, each sent by its own job until the
service reports success_count == total_count. Invalid rows are listed by line (by row for
Parquet and queries) and never uploaded; more than --max-invalid of them refuse the input
(exit 1), before it may be skipped. The same file (same checksum) uploaded again to the
same audience with the same --op and --mode is skipped unless --force; an unfinished upload
of it is resumed, without resending batches already done. A query's "same input" is the
users it produced: the same users, in any order, are skipped, and with --mode replace a
changed result sends only what changed. An input without a valid user changes nothing in
add mode (or with --op delete): it is reported and nothing is recorded (exit 0). With
--create, the same command run again continues with the audience adsync created for that
input.

--query runs in a read-only transaction through a cursor, on --source-url or adsync's own
database; its result columns are named like a CSV header (SELECT email, phone AS
phone_number FROM ...). A query that writes, a column naming no identifier type, or a file
without an identifier column is refused before anything is sent or recorded (exit 2). A
query's result must be read within audience.query_timeout (default 15m); past it Postgres
cuts the query and nothing is recorded (exit 1). Its users are hashed into a temporary file
first; the upload is recorded only then, so nothing of adsync's is held open meanwhile.

--mode replace makes the audience hold exactly the file: users with an identifier the
audience does not hold yet are sent as Update, and identifiers adsync recorded for the
audience but absent from the file are sent as Delete. A replace from a file without a valid
user is refused, and one that would delete more than --max-delete of the identifiers adsync
knows the audience holds is refused unless --force; a refused replace sends nothing at all.

Each user (the same identifiers once normalized and hashed) is sent once: rows repeating
a user already in the file are counted as duplicates. The plan (users to add, identifiers
to delete, users unchanged, duplicates) is printed before anything is recorded or sent; --dry-run prints it, fails as the upload would (exit 1 when it would be
refused), and records and sends nothing.

CSV fields are separated by commas unless --delimiter says otherwise (--delimiter ';',
--delimiter tab); a header read as one column that holds a semicolon or a tab fails with a
hint naming the delimiter the file seems to use.

Without --wait the batches are left to 'adsync worker'; with --wait this process sends them,
shows progress on a terminal and ends with a report, adds and deletes apart. The exit status
is 1 when a batch failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			uf.flags = cmd.Flags()
			o, err := uf.planOptions()
			if err != nil {
				return err
			}
			o.QueryTimeout = time.Duration(a.cfg.Audience.QueryTimeout)
			return a.local().UploadAudience(cmd.Context(), jobs.AudienceUpload{Plan: o, Create: uf.create, Name: uf.name(), Wait: uf.wait, Again: uf.commandFor})
		},
	}
	f := cmd.Flags()
	f.StringVar(&uf.account, "account", "", "ads account id (required)")
	f.StringVar(&uf.audienceID, "audience", "", "custom audience id (or --create)")
	f.StringVar(&uf.create, "create", "", "create a custom audience with this name and upload to it (or --audience)")
	uf.sourceFlags.register(f, "input: .csv or .ndjson/.jsonl, optionally gzipped, a .parquet file, a folder of them or a glob (or --query)")
	f.StringVar(&uf.op, "op", audience.OperationUpdate, "update (add the users) or delete (remove them)")
	f.StringVar(&uf.mode, "mode", audience.ModeAdd, "add, or replace (the audience ends up holding exactly the file)")
	f.StringVar(&uf.effectiveAt, "effective-at", "", "when the users take effect, RFC 3339 or YYYY-MM-DD (service default: now)")
	f.StringVar(&uf.expiresAt, "expires-at", "", "when the users expire, RFC 3339 or YYYY-MM-DD (service default: 13 months later)")
	f.BoolVar(&uf.wait, "wait", false, "send the batches in this process and wait for the report")
	f.BoolVar(&uf.force, "force", false, "go ahead where adsync would stop: upload a file already uploaded, and let a replace delete more than --max-delete")
	uf.maxDelete = audience.DefaultMaxDelete
	f.Var(&uf.maxDelete, "max-delete", "deletes a replace may send without --force, as a count or a percentage of the identifiers adsync knows the audience holds (-1: any). "+
		"A nightly replace churns a few percent; a truncated or wrong file deletes far more")
	f.BoolVar(&uf.dryRun, "dry-run", false, "print the plan (adds, deletes, unchanged) and whether it would be refused; record and send nothing")
	uf.hf.register(f)
	return cmd
}

// parseWhen reads a time flag.
func parseWhen(name, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return &t, nil
		}
	}
	return nil, usageError("audience upload: --%s %q: want RFC 3339 (2026-01-02T15:04:05Z) or YYYY-MM-DD", name, v)
}

// planOptions checks the flags and returns the upload they describe
// (without its enqueuer).
func (uf *uploadFlags) planOptions() (audience.PlanOptions, error) {
	var o audience.PlanOptions
	if err := uf.sourceFlags.check("audience upload"); err != nil {
		return o, err
	}
	switch {
	case uf.account == "":
		return o, usageError("audience upload: --account is required")
	case (uf.audienceID == "") == (uf.create == ""):
		return o, usageError("audience upload: give exactly one of --audience and --create")
	case uf.in == "-":
		return o, usageError("audience upload: --in FILE is required (a file: it is read twice, for its checksum and its users)")
	case uf.op != audience.OperationUpdate && uf.op != audience.OperationDelete:
		return o, usageError("audience upload: --op %q: want update or delete", uf.op)
	case uf.mode != audience.ModeAdd && uf.mode != audience.ModeReplace:
		return o, usageError("audience upload: --mode %q: want add or replace", uf.mode)
	case uf.mode == audience.ModeReplace && uf.op != audience.OperationUpdate:
		return o, usageError("audience upload: --mode replace sends its own updates and deletes: drop --op delete")
	case uf.mode != audience.ModeReplace && uf.flags != nil && uf.flags.Changed("max-delete"):
		return o, usageError("audience upload: --max-delete bounds the deletes of --mode replace; --op delete deletes exactly the file's users")
	case uf.dryRun && uf.create != "":
		return o, usageError("audience upload: --dry-run sends nothing, so it cannot --create an audience: preview with --audience ID, or check the file with adsync audience hash")
	}
	eff, err := parseWhen("effective-at", uf.effectiveAt)
	if err != nil {
		return o, err
	}
	exp, err := parseWhen("expires-at", uf.expiresAt)
	if err != nil {
		return o, err
	}
	if eff != nil && exp != nil && !exp.After(*eff) {
		return o, usageError("audience upload: --expires-at must be later than --effective-at")
	}
	norm, ropts, err := uf.hf.build("audience upload")
	if err != nil {
		return o, err
	}
	return audience.PlanOptions{
		AccountID: uf.account, AudienceID: uf.audienceID, Path: uf.in, Query: uf.query, SourceURL: uf.sourceURL,
		Operation: uf.op, Mode: uf.mode, EffectiveAt: eff, ExpiresAt: exp, Force: uf.force,
		MaxInvalid: uf.hf.maxInvalid, MaxDelete: uf.maxDelete, DryRun: uf.dryRun,
		Normalizer: norm, Reader: ropts, Workers: runtime.GOMAXPROCS(0),
	}, nil
}

// name is the input as the user knows it.
func (uf *uploadFlags) name() string {
	if uf.query != "" {
		return "the query's result"
	}
	return uf.in
}

// commandFor is the command line that ran with its --create replaced by
// --audience id: the command that uploads the same file to that audience.
// A database URL's password is masked.
func (uf *uploadFlags) commandFor(id string) string {
	args := []string{"adsync", "audience", "upload", "--account", shellQuote(uf.account), "--audience", shellQuote(id)}
	if uf.flags == nil {
		return strings.Join(args, " ")
	}
	uf.flags.Visit(func(f *pflag.Flag) {
		if f.Name == "account" || f.Name == "create" {
			return
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			switch {
			case f.Value.Type() == "bool" && v == "true":
				args = append(args, "--"+f.Name)
			case f.Name == "database-url" || f.Name == "source-url":
				args = append(args, "--"+f.Name, shellQuote(config.MaskURL(v)))
			default:
				args = append(args, "--"+f.Name, shellQuote(v))
			}
		}
	})
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it needs quoting (the standard
// library has no such function).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
