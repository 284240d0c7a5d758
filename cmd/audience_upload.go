package adsynccmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/adsync/adsync/cmd/internal/config"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
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
	// display names the file in messages when in is not the user's path
	// (the demo's temporary copy of the sample); empty: in.
	display string
	// trigger is recorded with the upload's run (empty: "manual").
	trigger string
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
			return a.audienceUpload(cmd.Context(), &uf)
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
		Normalizer: norm, Reader: ropts, Workers: runtime.GOMAXPROCS(0), Trigger: uf.trigger,
	}, nil
}

func (a *app) audienceUpload(ctx context.Context, uf *uploadFlags) error {
	o, err := uf.planOptions()
	if err != nil {
		return err
	}
	o.QueryTimeout = time.Duration(a.cfg.Audience.QueryTimeout)
	// A file is checked before the database is opened; a query on
	// adsync's database once it is. Either way before any audience is
	// created or anything recorded.
	if uf.query == "" {
		if err := audience.CheckSource(ctx, nil, o); err != nil {
			return inputUsage(fmt.Errorf("audience upload: %w", err))
		}
	}
	deps, err := a.pipeline(ctx)
	if err != nil {
		return fmt.Errorf("audience upload: %w", err)
	}
	if uf.query != "" {
		if err := audience.CheckSource(ctx, deps.Pool, o); err != nil {
			return inputUsage(fmt.Errorf("audience upload: %w", err))
		}
	}
	if uf.audienceID != "" {
		// With --create, the create call itself answers 404 for such an
		// account, and says so below without a request more.
		if err := a.checkAccounts(ctx, deps, "audience upload: --account", []string{uf.account}); err != nil {
			return err
		}
	}
	inserter, err := a.inserter(deps)
	if err != nil {
		return err
	}
	o.Enqueue = jobs.AudienceEnqueuer(inserter)
	if uf.create != "" {
		if o.AudienceID, err = a.createForUpload(ctx, deps, uf, o); err != nil {
			return err
		}
	}
	audienceID := o.AudienceID
	o.Review = func(res *audience.PlanResult) { writePlan(a.stdout, audienceID, uf.mode, uf.op, res) }
	res, err := audience.Plan(ctx, deps.Pool, o)
	if err != nil {
		return inputUsage(err)
	}
	if !a.writeOutcome(uf, audienceID, res) || !uf.wait {
		return nil
	}
	return a.waitUpload(ctx, deps, res.Upload.ID)
}

// createForUpload creates the audience of --create, or finds the one an
// earlier run created for the same input, and returns its id.
func (a *app) createForUpload(ctx context.Context, deps *jobs.Deps, uf *uploadFlags, o audience.PlanOptions) (string, error) {
	id, created, err := audience.CreateForUpload(ctx, deps.Pool, deps.API, uf.create, o)
	var dup *audience.DuplicateNameError
	if errors.As(err, &dup) && dup.ExistingID != "" {
		return "", fmt.Errorf("audience upload: --create: %w; upload to it with: %s", dup, uf.commandFor(dup.ExistingID))
	}
	if errors.Is(err, api.ErrNotFound) {
		return "", usageError("audience upload: --account: %s", unreachableAccount(uf.account))
	}
	if err != nil {
		return "", fmt.Errorf("audience upload: --create: %w", err)
	}
	if created {
		fmt.Fprintf(a.stdout, "created custom audience %s (%q)\n", id, uf.create)
	} else {
		fmt.Fprintf(a.stdout, "continuing with custom audience %s (%q), created by adsync for this input\n", id, uf.create)
	}
	return id, nil
}

// writeOutcome says what the plan did, and whether it left batches for a
// worker (or --wait) to send.
func (a *app) writeOutcome(uf *uploadFlags, audienceID string, res *audience.PlanResult) (queued bool) {
	up := res.Upload
	switch {
	case res.Outcome == audience.Skipped:
		fmt.Fprintf(a.stdout, "skipped: %s was already uploaded to audience %s as upload %d (%s, %s); --force uploads it again\n",
			uf.name(), audienceID, up.ID, up.Operation, up.Mode)
		return false
	case res.Outcome == audience.Resumed && uf.dryRun:
		fmt.Fprintf(a.stdout, "dry run: upload %d of %s is unfinished; the same command without --dry-run resumes it\n", up.ID, uf.name())
		return false
	case res.Outcome == audience.Previewed:
		fmt.Fprintln(a.stdout, "dry run: nothing recorded or sent")
		return false
	case res.Outcome == audience.Empty:
		fmt.Fprintf(a.stdout, "nothing to upload: %s has no valid user (%d rows read, %d invalid), so --op %s changes nothing; nothing recorded or sent\n",
			uf.name(), res.Report.RowsRead, res.Report.RowsInvalid, uf.op)
		return false
	case res.Outcome == audience.Resumed:
		fmt.Fprintf(a.stdout, "resuming upload %d of %s: batches already done are not sent again\n", up.ID, uf.name())
	default:
		fmt.Fprintf(a.stdout, "upload %d: %d rows read, %d invalid, %d adds and %d deletes in %d batches to audience %s\n",
			up.ID, up.RowsRead, up.RowsInvalid, res.Summary.Adds, res.Summary.Deletes, res.Batches, audienceID)
	}
	if !uf.wait && up.State == audience.StatePlanned {
		fmt.Fprintln(a.stdout, "queued: 'adsync worker' sends the batches")
	}
	return true
}

// name is the input as the user knows it.
func (uf *uploadFlags) name() string {
	switch {
	case uf.display != "":
		return uf.display
	case uf.query != "":
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

// writePlan prints a new plan for people, before anything of it is
// recorded or sent: the invalid rows left out, the rows repeating a user,
// then what it sends (users, each once).
func writePlan(w io.Writer, audienceID, mode, op string, res *audience.PlanResult) {
	for _, e := range res.Report.InvalidRows {
		fmt.Fprintf(w, "invalid: %s: %s (not uploaded)\n", res.Report.Where(e.Line), e.Reason)
	}
	if n := res.Report.RowsInvalid - len(res.Report.InvalidRows); n > 0 {
		fmt.Fprintf(w, "invalid: %d more rows not listed\n", n)
	}
	if res.Report.RowsDuplicate > 0 {
		fmt.Fprintln(w, res.Report.DuplicatesLine())
	}
	s := res.Summary
	switch {
	case res.Outcome == audience.Refused, res.Outcome == audience.Empty:
		// No plan was made of the source read: what follows says why.
	case mode == audience.ModeReplace:
		width := len(fmt.Sprint(max(s.Adds, s.Deletes, s.Unchanged)))
		fmt.Fprintf(w, "plan for audience %s (replace):\n", audienceID)
		fmt.Fprintf(w, "  add:       %*d users\n", width, s.Adds)
		fmt.Fprintf(w, "  delete:    %*d of %d known identifiers\n", width, s.Deletes, s.Known)
		fmt.Fprintf(w, "  unchanged: %*d users\n", width, s.Unchanged)
	case op == audience.OperationDelete:
		fmt.Fprintf(w, "plan for audience %s (delete):\n  delete: %d users\n", audienceID, s.Deletes)
	default:
		fmt.Fprintf(w, "plan for audience %s (add):\n  add: %d users\n", audienceID, s.Adds)
	}
}

// waitUpload runs a worker in this process until upload id is finished,
// then prints its report.
func (a *app) waitUpload(ctx context.Context, deps *jobs.Deps, id int64) error {
	// No schedules: this process only helps the queues until the upload ends.
	_, stop, err := a.startWorking(ctx, deps, false)
	if err != nil {
		return err
	}
	defer func() { _ = stop(30 * time.Second) }()
	// The progress bar is for people: only on a terminal.
	tty, isTTY := a.stderr.(*os.File)
	isTTY = isTTY && term.IsTerminal(int(tty.Fd()))
	var bar *progressbar.ProgressBar
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var p audience.Progress
	for {
		p, err = audience.LoadProgress(ctx, deps.Pool, id)
		if err != nil {
			return err
		}
		if isTTY && bar == nil {
			bar = progressbar.NewOptions64(max(p.Users, 1), progressbar.OptionSetWriter(tty), progressbar.OptionSetDescription("users"),
				progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
		}
		if bar != nil {
			_ = bar.Set64(p.UsersDone)
		}
		if p.Finished() && p.State != audience.StatePlanned {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("audience upload %d: interrupted; run the same command again to resume: %w", id, ctx.Err())
		case <-tick.C:
		}
	}
	if bar != nil {
		_ = bar.Finish()
	}
	up, err := audience.LoadUpload(ctx, deps.Pool, id)
	if err != nil {
		return err
	}
	writeUploadReport(a.stdout, up, p)
	if p.Failed > 0 {
		return fmt.Errorf("audience upload %d: %d of %d batches failed (see audience_batches.last_error and audience_batch_errors)", id, p.Failed, p.Batches)
	}
	return nil
}

func writeUploadReport(w io.Writer, up *audience.Upload, p audience.Progress) {
	fmt.Fprintf(w, "upload %d: %s\nrows read: %d\nrows invalid: %d\nbatches: %d (%d done, %d failed)\nretries: %d\nadds: %d sent, %d accepted\ndeletes: %d sent, %d accepted\n",
		up.ID, up.State, up.RowsRead, up.RowsInvalid, p.Batches, p.Done, p.Failed, p.Retries, p.Adds, p.AddsAccepted, p.Deletes, p.DeletesAccepted)
	if p.OperationErrors > 0 {
		fmt.Fprintf(w, "item errors: %d\n", p.OperationErrors)
	}
}
