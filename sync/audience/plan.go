package audience

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Enqueuer inserts one send job per batch seq of an upload, in tx, so the
// jobs exist exactly when the plan does. The jobs package provides it.
type Enqueuer func(ctx context.Context, tx pgx.Tx, uploadID int64, seqs []int) error

// PlanOptions describe one upload.
type PlanOptions struct {
	AccountID, AudienceID string
	// Path is the input: a CSV or NDJSON file (gzip transparent), or a
	// Parquet file, a folder of them or a glob. It is read twice: once for
	// its checksum, once for its users.
	Path string
	// Query, when set, is the source instead of Path: a SQL query whose
	// result columns are named like the CSV header, run read-only on
	// SourceURL (empty: adsync's own database).
	Query     string
	SourceURL string
	// QueryTimeout bounds the reading of a query's result, from its
	// first statement to its last row (zero: DefaultQueryTimeout); past
	// it the query is cut (see QueryTimeoutError).
	QueryTimeout time.Duration
	// Operation is OperationUpdate or OperationDelete; Mode is ModeAdd or
	// ModeReplace (replace needs OperationUpdate).
	Operation, Mode        string
	EffectiveAt, ExpiresAt *time.Time
	// Force plans the input again even when the same input (same
	// checksum: a file's bytes, a query's users) was already uploaded to
	// the audience with the same operation and mode, and lets a replace
	// delete more than MaxDelete.
	Force bool
	// MaxInvalid bounds the file's invalid rows (unset:
	// hashing.DefaultMaxInvalid); above it nothing is recorded.
	MaxInvalid bound.Max
	// MaxDelete bounds the deletes of a replace, out of the identifiers
	// adsync knows the audience holds (unset: DefaultMaxDelete); above it
	// nothing is recorded unless Force.
	MaxDelete bound.Max
	// DryRun computes a new plan, gives it to Review and records nothing;
	// an unfinished upload of the file is reported, not resumed.
	DryRun bool
	// Review, when set, is given a new plan (its report and Summary) before
	// anything is recorded, whether it is then recorded, refused or only
	// previewed: no job of it exists yet.
	Review     func(*PlanResult)
	Normalizer *hashing.Normalizer
	Reader     hashing.ReaderOptions
	// Workers hash in parallel (at least one).
	Workers int
	// MaxInvalidListed caps the invalid rows listed in the report.
	MaxInvalidListed int
	// MaxUsers and MaxBytes bound a request; zero means the service's
	// limits (tests shrink them).
	MaxUsers, MaxBytes int
	Enqueue            Enqueuer
	// Trigger is recorded with the upload's run ("manual" when empty).
	Trigger string
}

// Outcome says what Plan did.
type Outcome string

// Plan outcomes.
const (
	// Planned: a new upload was recorded and its jobs enqueued.
	Planned Outcome = "planned"
	// Resumed: an unfinished upload of the same file was found; its
	// batches not yet done were enqueued again.
	Resumed Outcome = "resumed"
	// Skipped: the same file was already uploaded; nothing was done.
	Skipped Outcome = "skipped"
	// Previewed: a dry run computed a new plan and recorded nothing.
	Previewed Outcome = "previewed"
	// Empty: the source has no valid user, so an add (or a delete) of it
	// changes nothing: nothing was recorded or sent, and nothing is left
	// for a later source to be skipped against. A configured audience
	// (Sync) refuses it; a replace without a valid user is refused
	// (ErrNoValidUser).
	Empty Outcome = "empty"
	// Refused is what Review sees of a source a bound refused as it was
	// read, before it was compared with the audience (its Summary counts
	// the users of an add only): Plan returns the bound's error.
	Refused Outcome = "refused"
)

// PlanResult is what Plan did.
type PlanResult struct {
	Outcome Outcome
	Upload  *Upload
	// Report counts the file's rows and Summary its users (a new plan only).
	Report  hashing.Report
	Summary Summary
	Batches int
}

// Summary is what a new plan sends, for people to check before it is sent.
type Summary struct {
	// Adds are the user objects sent as Update, Deletes those sent as
	// Delete (one identifier each in replace mode).
	Adds, Deletes int64
	// Replace mode only: Unchanged counts the file's users whose
	// identifiers the audience holds already (they are not sent), Known the
	// identifiers adsync knows the audience holds, out of which MaxDelete
	// bounds Deletes.
	Unchanged, Known int64
}

// ErrNoValidUser is a replace from a file without a single valid user:
// it would delete every member, so it is always refused.
var ErrNoValidUser = errors.New("no valid user in the file: a replace with it would delete every member; nothing was sent")

// DeleteBoundError is a replace that would delete more of the audience's
// known identifiers than its bound allows; nothing of it was recorded or
// sent.
type DeleteBoundError struct {
	Deletes, Known int64
	Max            bound.Max
}

func (e *DeleteBoundError) Error() string {
	return fmt.Sprintf("replace would delete %d of %d known identifiers, more than --max-delete %s; nothing was sent; --force allows it",
		e.Deletes, e.Known, e.Max.Describe(e.Known))
}

func (o *PlanOptions) validate() error {
	switch {
	case o.AccountID == "":
		return errors.New("no account id")
	case o.AudienceID == "":
		return errors.New("no audience id")
	case o.Path == "" && o.Query == "":
		return errors.New("no input: a file or a query")
	case o.Path != "" && o.Query != "":
		return errors.New("a file and a query: give one input")
	case o.SourceURL != "" && o.Query == "":
		return errors.New("a source URL without a query: a file is read from disk")
	case o.Operation != OperationUpdate && o.Operation != OperationDelete:
		return fmt.Errorf("operation %q: want update or delete", o.Operation)
	case o.Mode != ModeAdd && o.Mode != ModeReplace:
		return fmt.Errorf("mode %q: want add or replace", o.Mode)
	case o.Mode == ModeReplace && o.Operation != OperationUpdate:
		return errors.New("replace mode sends its own updates and deletes: it takes operation update")
	case o.EffectiveAt != nil && o.ExpiresAt != nil && !o.ExpiresAt.After(*o.EffectiveAt):
		// The service refuses it (spec: expires_at "must be later than effective_at").
		return errors.New("expires_at must be later than effective_at")
	case o.Normalizer == nil:
		return errors.New("no normalizer")
	case o.Enqueue == nil:
		return errors.New("no enqueuer")
	}
	return nil
}

// Plan records an upload of o's input and its batches and enqueues their
// jobs, all in one transaction. The same input already uploaded with the
// same operation and mode is skipped unless o.Force; an unfinished (or
// failed) upload of it is resumed: its batches not done are enqueued again.
// The same input is the same checksum: a file's bytes, known before it is
// read, so a file already uploaded is not read again; a query's users (see
// hashing.UsersDigest), known once it was read.
//
// The source is read first, into a spool of its hashed users, with nothing
// of adsync's own open (no transaction, no lock, no record): a query may
// take long, up to o.QueryTimeout. Its bounds apply to it then, before it
// may be skipped: above o.MaxInvalid it is refused; without a valid user an
// add or a delete is Empty (nothing recorded or sent). Only then is the plan
// recorded, from the spool, in one short transaction under the audience's
// lock. A file skipped or resumed unread is held to the same bounds by the
// counts recorded of it.
//
// A new plan is shown to o.Review, then checked; a refused plan records
// nothing, so none of it is ever sent. A replace is refused when the input
// has no valid user (ErrNoValidUser) and, unless o.Force, when it would
// delete more than o.MaxDelete (*DeleteBoundError). The bounds live here,
// where the deletes are planned, so no caller can send a plan that skipped
// them. An input no user can be read from is a *hashing.InputError, a
// query cut by its time limit a *QueryTimeoutError; neither records
// anything.
func Plan(ctx context.Context, pool *pgxpool.Pool, o PlanOptions) (*PlanResult, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("audience upload: %w", err)
	}
	src, err := newSource(pool, &o)
	if err != nil {
		return nil, fmt.Errorf("audience upload: %w", err)
	}
	sum, err := src.checksum(ctx)
	if err != nil {
		return nil, fmt.Errorf("audience upload: %w", err)
	}
	if sum != "" && !o.Force {
		if res, found, err := sameFile(ctx, pool, &o, sum); found || err != nil {
			return res, err
		}
	}
	p := &planner{ctx: ctx, o: o, src: src, sumUsers: sum == ""}
	res := &PlanResult{Outcome: Planned}
	res.Report.MaxInvalidListed = o.MaxInvalidListed
	err = p.readSource(&res.Report)
	defer func() { _ = p.users.Close() }()
	if err != nil {
		return nil, err
	}
	if sum == "" {
		sum = p.digest.Sum()
	}
	if err := p.admit(res); err != nil {
		return nil, err
	}
	if res.Outcome == Empty {
		return res, nil
	}
	return p.recordPlan(pool, res, sum)
}

// admit applies to a source just read the bounds that hold before it may
// be skipped: its invalid rows (a *hashing.TooManyInvalidError), and its
// valid users: an add or a delete without any is Empty. Review sees a
// source refused or Empty here.
func (p *planner) admit(res *PlanResult) error {
	users := p.users.users
	if p.o.Mode != ModeReplace {
		if p.o.Operation == OperationDelete {
			res.Summary.Deletes = users
		} else {
			res.Summary.Adds = users
		}
	}
	err := res.Report.CheckInvalid(p.o.MaxInvalid)
	switch {
	case err != nil:
		res.Outcome = Refused
		err = fmt.Errorf("audience upload: %s: %w", p.src.name(), err)
	case users == 0 && p.o.Mode != ModeReplace:
		res.Outcome = Empty
	default:
		return nil
	}
	if p.o.Review != nil {
		p.o.Review(res)
	}
	return err
}

// recordPlan records the plan of the source read, as sum, in one
// transaction under the audience's lock: unless an upload of the same
// input is skipped or resumed, a new upload, its batches from the spool
// (a replace's compared with the audience first), its run and its jobs.
func (p *planner) recordPlan(pool *pgxpool.Pool, res *PlanResult, sum string) (*PlanResult, error) {
	ctx, o := p.ctx, p.o
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := lockAudience(ctx, tx, o.AudienceID); err != nil {
		return nil, err
	}
	if !o.Force {
		// A query's users, or a file planned meanwhile by another run.
		if same, found, err := sameInput(ctx, tx, &o, sum, 0); found || err != nil {
			return same, err
		}
	}
	up := &Upload{AccountID: o.AccountID, AudienceID: o.AudienceID, FilePath: p.src.recorded(), Checksum: sum,
		Operation: o.Operation, Mode: o.Mode, EffectiveAt: o.EffectiveAt, ExpiresAt: o.ExpiresAt, State: StatePlanned}
	if err := recordNewUpload(ctx, tx, up, cmp.Or(o.Trigger, "manual"), o.Query != ""); err != nil {
		return nil, err
	}
	p.tx, p.upload, res.Upload = tx, up, up
	if err := p.write(res); err != nil {
		return nil, err
	}
	if err := p.conclude(res); err != nil {
		return nil, err
	}
	if o.DryRun {
		// The deferred rollback forgets the rows written.
		res.Outcome, res.Upload = Previewed, nil
		return res, nil
	}
	if err := p.record(res); err != nil {
		return nil, err
	}
	return res, nil
}

// record records the new plan (its counts, done at once without a batch),
// enqueues its batches and commits.
func (p *planner) record(res *PlanResult) error {
	up := p.upload
	res.Batches = len(p.seqs)
	up.RowsRead, up.RowsInvalid, up.Users = int64(res.Report.RowsRead), int64(res.Report.RowsInvalid), p.batched
	if len(p.seqs) == 0 {
		// Nothing to send: the upload is done as planned.
		up.State = StateDone
	}
	if err := recordPlanned(p.ctx, p.tx, up); err != nil {
		return err
	}
	if len(p.seqs) > 0 {
		if err := p.o.Enqueue(p.ctx, p.tx, up.ID, p.seqs); err != nil {
			return fmt.Errorf("audience upload: enqueue: %w", err)
		}
	}
	return p.tx.Commit(p.ctx)
}

// sameFile skips or resumes an earlier upload of an input known by its
// checksum sum before it is read (a file's bytes), in a transaction of its
// own under the audience's lock, without reading the input: the counts
// recorded of the earlier upload are the input's, and are held to the same
// bounds as a source just read (see admitRecorded). found is false when
// there is no such upload: the input is to be read.
func sameFile(ctx context.Context, pool *pgxpool.Pool, o *PlanOptions, sum string) (res *PlanResult, found bool, err error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := lockAudience(ctx, tx, o.AudienceID); err != nil {
		return nil, false, err
	}
	prev, err := findSameInput(ctx, tx, o, sum, 0)
	if err != nil || prev == nil {
		return nil, false, err
	}
	if res, err := admitRecorded(o, prev); res != nil || err != nil {
		return res, true, err
	}
	res, err = planSameInput(ctx, tx, o, prev)
	return res, true, err
}

// admitRecorded holds prev, an upload of the same bytes as o's input, to
// the bounds admit applies to a source read: more invalid rows than
// o.MaxInvalid allows refuse it; an add or a delete of no valid user
// (recorded done with no user by an adsync that recorded such uploads) is
// Empty. Nil when prev may be skipped or resumed.
func admitRecorded(o *PlanOptions, prev *Upload) (*PlanResult, error) {
	report := hashing.Report{RowsRead: int(prev.RowsRead), RowsInvalid: int(prev.RowsInvalid)}
	if err := report.CheckInvalid(o.MaxInvalid); err != nil {
		return nil, fmt.Errorf("audience upload: %s (as recorded of upload %d): %w", prev.FilePath, prev.ID, err)
	}
	if prev.Mode != ModeReplace && prev.State == StateDone && prev.Users == 0 {
		return &PlanResult{Outcome: Empty, Report: report}, nil
	}
	return nil, nil
}

// sameInput looks for an upload of the same input (checksum sum, an
// upload other than except) and, when there is one, skips or resumes it.
func sameInput(ctx context.Context, tx pgx.Tx, o *PlanOptions, sum string, except int64) (*PlanResult, bool, error) {
	prev, err := findSameInput(ctx, tx, o, sum, except)
	if err != nil || prev == nil {
		return nil, false, err
	}
	res, err := planSameInput(ctx, tx, o, prev)
	return res, true, err
}

// planSameInput skips the input when prev, an upload of it, is done; else
// resumes prev (a dry run only says it would).
func planSameInput(ctx context.Context, tx pgx.Tx, o *PlanOptions, prev *Upload) (*PlanResult, error) {
	switch {
	case prev.State == StateDone:
		return &PlanResult{Outcome: Skipped, Upload: prev}, nil
	case o.DryRun:
		return &PlanResult{Outcome: Resumed, Upload: prev}, nil
	}
	return resume(ctx, tx, prev, o.Enqueue)
}

// resume enqueues again the batches of prev that are not done; failed ones
// get another chance.
func resume(ctx context.Context, tx pgx.Tx, prev *Upload, enqueue Enqueuer) (*PlanResult, error) {
	seqs, total, err := reopenUpload(ctx, tx, prev)
	if err != nil {
		return nil, err
	}
	if len(seqs) > 0 {
		if err := enqueue(ctx, tx, prev.ID, seqs); err != nil {
			return nil, fmt.Errorf("audience upload: enqueue: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return &PlanResult{Outcome: Resumed, Upload: prev, Batches: total}, nil
}

// FileChecksum is the SHA-256 (lowercase hex) of the file's bytes.
func FileChecksum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// planner reads one upload's source, then writes its batches.
type planner struct {
	ctx    context.Context
	tx     pgx.Tx
	o      PlanOptions
	src    source
	upload *Upload
	// users are the source's users as read, to be planned.
	users *spool
	seqs  []int
	// batched counts the users stored in batches.
	batched int64
	// digest sums the users read when sumUsers: for a source without a
	// checksum.
	digest   hashing.UsersDigest
	sumUsers bool
	// flush stores a batch; nil means insertBatch (benchmarks discard them).
	flush func(op string, body []byte, users int) error
}

// insertBatch stores one request body.
func (p *planner) insertBatch(op string, body []byte, users int) error {
	seq := len(p.seqs) + 1
	_, err := p.tx.Exec(p.ctx, `INSERT INTO audience_batches (upload_id, seq, operation, body, user_count, body_bytes)
		VALUES ($1, $2, $3, $4, $5, $6)`, p.upload.ID, seq, op, body, users, len(body))
	if err != nil {
		return fmt.Errorf("store batch %d: %w", seq, err)
	}
	p.seqs = append(p.seqs, seq)
	p.batched += int64(users)
	return nil
}

func (p *planner) newBatcher(op string) *batcher {
	flush := p.flush
	if flush == nil {
		flush = p.insertBatch
	}
	return newBatcher(op, p.o.EffectiveAt, p.o.ExpiresAt, p.o.MaxUsers, p.o.MaxBytes, flush)
}

// readSource reads the source's valid users into the planner's spool (and
// its digest), counting its rows into report. Every source comes as rows
// of identifier columns: this is the one way any of them is read. Nothing
// of adsync's database is held meanwhile.
func (p *planner) readSource(report *hashing.Report) error {
	var err error
	if p.users, err = newSpool(); err != nil {
		return fmt.Errorf("audience upload: %w", err)
	}
	rows, finish, err := p.src.open(p.ctx)
	if err != nil {
		return fmt.Errorf("audience upload: %w", err)
	}
	err = hashing.HashRecordsParallel(rows, p.o.Normalizer, p.o.Workers, func(u hashing.HashedUser) error {
		if p.sumUsers {
			p.digest.Add(&u)
		}
		return p.users.add(&u)
	}, report)
	if ferr := finish(); err == nil && ferr != nil {
		return fmt.Errorf("audience upload: %w", ferr)
	}
	var timeout *QueryTimeoutError
	switch {
	case errors.As(err, &timeout):
		// It names the query and its time limit already.
		return fmt.Errorf("audience upload: %w", err)
	case err != nil:
		// A reader's errors say where in the source (a row, one file of
		// several) and why, never which source: this names it.
		return fmt.Errorf("audience upload: %s: %w", p.src.name(), err)
	}
	return nil
}

// write writes the plan of the users read: the batches of an add (or a
// delete), or a replace's users staged and compared with the audience.
func (p *planner) write(res *PlanResult) error {
	if p.o.Mode == ModeReplace {
		return p.stageReplace(&res.Summary)
	}
	return p.runAdd(&res.Report, &res.Summary)
}

// conclude shows the plan read to Review, applies the bounds, and stores
// a replace's batches unless this is a dry run.
func (p *planner) conclude(res *PlanResult) error {
	if p.o.Review != nil {
		p.o.Review(res)
	}
	if err := p.check(res); err != nil {
		return err
	}
	if p.o.Mode == ModeReplace && !p.o.DryRun {
		return p.batchReplace()
	}
	return nil
}

// check applies the bounds of a replace to a plan compared with the
// audience: a source with no valid user (a replace of it is never
// recorded, so never skipped) and the deletes. admit applied the others.
func (p *planner) check(res *PlanResult) error {
	if p.o.Mode != ModeReplace {
		return nil
	}
	if res.Report.RowsEmitted == 0 {
		return fmt.Errorf("audience upload: %s: %w", p.src.name(), ErrNoValidUser)
	}
	limit := p.o.MaxDelete.Or(DefaultMaxDelete)
	if s := res.Summary; !p.o.Force && !limit.Allows(s.Deletes, s.Known) {
		return fmt.Errorf("audience upload: %w", &DeleteBoundError{Deletes: s.Deletes, Known: s.Known, Max: limit})
	}
	return nil
}

// runAdd stores the batches of an add (or a delete) of the users read.
func (p *planner) runAdd(report *hashing.Report, sum *Summary) error {
	op := OpUpdate
	if p.o.Operation == OperationDelete {
		op = OpDelete
	}
	b := p.newBatcher(op)
	err := p.users.replayJSON(func(line int, obj []byte) error {
		if err := b.add(obj); err != nil {
			return fmt.Errorf("%s: %w", report.Where(line), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := b.close(); err != nil {
		return err
	}
	if op == OpDelete {
		sum.Deletes = p.batched
	} else {
		sum.Adds = p.batched
	}
	return nil
}
