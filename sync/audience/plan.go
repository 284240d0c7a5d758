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
// read; a query's users (see hashing.UsersDigest), known once it was read,
// so a query is planned first and its plan forgotten when an earlier upload
// had the same users.
//
// A new plan is shown to o.Review, then checked; a refused plan records
// nothing, so none of it is ever sent. Any input is refused above
// o.MaxInvalid; a replace is refused when the input has no valid user
// (ErrNoValidUser) and, unless o.Force, when it would delete more than
// o.MaxDelete (*DeleteBoundError). The bounds live here, where the deletes
// are planned, so no caller can send a plan that skipped them. An input no
// user can be read from is a *hashing.InputError, and records nothing.
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
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := lockAudience(ctx, tx, o.AudienceID); err != nil {
		return nil, err
	}
	if sum != "" && !o.Force {
		if res, found, err := sameInput(ctx, tx, &o, sum, 0); found || err != nil {
			return res, err
		}
	}
	// A source known by its users only is planned in a savepoint, to be
	// forgotten if an earlier upload had the same users.
	ptx := tx
	if sum == "" {
		if ptx, err = tx.Begin(ctx); err != nil {
			return nil, err
		}
	}
	up := &Upload{AccountID: o.AccountID, AudienceID: o.AudienceID, FilePath: src.recorded(), Checksum: sum,
		Operation: o.Operation, Mode: o.Mode, EffectiveAt: o.EffectiveAt, ExpiresAt: o.ExpiresAt, State: StatePlanned}
	if err := recordNewUpload(ctx, ptx, up, cmp.Or(o.Trigger, "manual"), o.Query != ""); err != nil {
		return nil, err
	}
	p := &planner{ctx: ctx, tx: ptx, o: o, src: src, upload: up}
	res := &PlanResult{Outcome: Planned, Upload: up}
	res.Report.MaxInvalidListed = o.MaxInvalidListed
	if err := p.read(res); err != nil {
		return nil, err
	}
	if sum == "" {
		up.Checksum = p.digest.Sum()
		prev, err := p.earlierSameUsers()
		if err != nil {
			return nil, err
		}
		if prev != nil {
			if err := ptx.Rollback(ctx); err != nil {
				return nil, err
			}
			return planSameInput(ctx, tx, &o, prev)
		}
	}
	if err := p.conclude(res); err != nil {
		return nil, err
	}
	if o.DryRun {
		// The deferred rollback forgets the rows written.
		res.Outcome, res.Upload = Previewed, nil
		return res, nil
	}
	if err := p.record(res, tx); err != nil {
		return nil, err
	}
	return res, nil
}

// earlierSameUsers returns the upload of the same users as the one just
// read, for a source only its users identify; nil when there is none or
// Force plans it anyway.
func (p *planner) earlierSameUsers() (*Upload, error) {
	if p.o.Force {
		return nil, nil
	}
	return findSameInput(p.ctx, p.tx, &p.o, p.upload.Checksum, p.upload.ID)
}

// record records the new plan (its counts, done at once without a batch),
// enqueues its batches and commits: the planner's transaction, and tx when
// the planner's is a savepoint of it.
func (p *planner) record(res *PlanResult, tx pgx.Tx) error {
	up := p.upload
	res.Batches = len(p.seqs)
	up.RowsRead, up.RowsInvalid, up.Users = int64(res.Report.RowsRead), int64(res.Report.RowsInvalid), p.users
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
	if p.tx != tx {
		if err := p.tx.Commit(p.ctx); err != nil {
			return err
		}
	}
	return tx.Commit(p.ctx)
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

// planner writes one upload's batches.
type planner struct {
	ctx    context.Context
	tx     pgx.Tx
	o      PlanOptions
	src    source
	upload *Upload
	seqs   []int
	users  int64
	// digest sums the users read, for a source without a checksum.
	digest hashing.UsersDigest
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
	p.users += int64(users)
	return nil
}

func (p *planner) newBatcher(op string) *batcher {
	flush := p.flush
	if flush == nil {
		flush = p.insertBatch
	}
	return newBatcher(op, p.o.EffectiveAt, p.o.ExpiresAt, p.o.MaxUsers, p.o.MaxBytes, flush)
}

// hashSource streams the source's valid users to emit (and, for a source
// without a checksum, into the planner's digest). Every source comes as
// rows of identifier columns: this is the one way any of them is read.
func (p *planner) hashSource(report *hashing.Report, emit func(hashing.HashedUser) error) error {
	rows, finish, err := p.src.open(p.ctx)
	if err != nil {
		return fmt.Errorf("audience upload: %w", err)
	}
	if p.upload.Checksum == "" {
		next := emit
		emit = func(u hashing.HashedUser) error {
			p.digest.Add(&u)
			return next(u)
		}
	}
	err = hashing.HashRecordsParallel(rows, p.o.Normalizer, p.o.Workers, emit, report)
	if ferr := finish(); err == nil && ferr != nil {
		return fmt.Errorf("audience upload: %w", ferr)
	}
	if err != nil {
		// A reader's errors say where in the source (a row, one file of
		// several) and why, never which source: this names it.
		return fmt.Errorf("audience upload: %s: %w", p.src.name(), err)
	}
	return nil
}

// read reads the source: it hashes its users, storing the batches of an
// add as it goes, staging a replace's.
func (p *planner) read(res *PlanResult) error {
	if p.o.Mode == ModeReplace {
		return p.stageReplace(&res.Report, &res.Summary)
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

// check applies the bounds to a plan: the source's invalid rows, and for a
// replace, a source with no valid user and the deletes.
func (p *planner) check(res *PlanResult) error {
	if err := res.Report.CheckInvalid(p.o.MaxInvalid); err != nil {
		return fmt.Errorf("audience upload: %s: %w", p.src.name(), err)
	}
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

// runAdd stores the batches of an add (or a delete) as the source is read.
func (p *planner) runAdd(report *hashing.Report, sum *Summary) error {
	op := OpUpdate
	if p.o.Operation == OperationDelete {
		op = OpDelete
	}
	b := p.newBatcher(op)
	var buf []byte
	err := p.hashSource(report, func(u hashing.HashedUser) error {
		buf = u.AppendJSON(buf[:0])
		if err := b.add(buf); err != nil {
			return fmt.Errorf("%s: %w", report.Where(u.Line), err)
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
		sum.Deletes = p.users
	} else {
		sum.Adds = p.users
	}
	return nil
}
