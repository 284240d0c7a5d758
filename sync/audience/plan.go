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
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Enqueuer inserts one send job per batch seq of an upload, in tx, so the
// jobs exist exactly when the plan does. The jobs package provides it.
type Enqueuer func(ctx context.Context, tx pgx.Tx, uploadID int64, seqs []int) error

// PlanOptions describe one upload.
type PlanOptions struct {
	AccountID, AudienceID string
	// Path is the input file (CSV or NDJSON, gzip transparent). It is read
	// twice: once for its checksum, once for its users.
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
	// Force plans the file again even when the same file (same checksum)
	// was already uploaded to the audience with the same operation and mode,
	// and lets a replace delete more than MaxDelete.
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
	case o.Path == "":
		return errors.New("no input file")
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

// Plan records an upload of o.Path and its batches and enqueues their jobs,
// all in one transaction. The same file already uploaded with the same
// operation and mode is skipped unless o.Force; an unfinished (or failed)
// upload of it is resumed: its batches not done are enqueued again.
//
// A new plan is shown to o.Review, then checked; a refused plan records
// nothing, so none of it is ever sent. Any file is refused above
// o.MaxInvalid; a replace is refused when the file has no valid user
// (ErrNoValidUser) and, unless o.Force, when it would delete more than
// o.MaxDelete (*DeleteBoundError). The bounds live here, where the deletes
// are planned, so no caller can send a plan that skipped them.
func Plan(ctx context.Context, pool *pgxpool.Pool, o PlanOptions) (*PlanResult, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("audience upload: %w", err)
	}
	sum, err := FileChecksum(o.Path)
	if err != nil {
		return nil, fmt.Errorf("audience upload: %w", err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// One planner per audience at a time: replace mode diffs against the
	// stored membership, and the duplicate check must see earlier plans.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('adsync audience ' || $1, 0))`, o.AudienceID); err != nil {
		return nil, err
	}
	// The checksum is of the file's bytes, whatever a plan makes of them:
	// it says "the same input" to uploads planned before each user was
	// sent once (see hashing.HashRecords) too. Such an upload, unfinished,
	// resumes with the batches it stored (duplicates included: adding a
	// user the audience holds already changes nothing), and, done, still
	// skips the file.
	if !o.Force {
		prev, err := scanUpload(tx.QueryRow(ctx, `SELECT `+uploadColumns+` FROM audience_uploads
			WHERE audience_id = $1 AND checksum = $2 AND operation = $3 AND mode = $4
			ORDER BY id DESC LIMIT 1`, o.AudienceID, sum, o.Operation, o.Mode))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return nil, err
		case prev.State == StateDone:
			return &PlanResult{Outcome: Skipped, Upload: prev}, nil
		case o.DryRun:
			return &PlanResult{Outcome: Resumed, Upload: prev}, nil
		default:
			return resume(ctx, tx, prev, o.Enqueue)
		}
	}

	up := &Upload{AccountID: o.AccountID, AudienceID: o.AudienceID, FilePath: o.Path, Checksum: sum,
		Operation: o.Operation, Mode: o.Mode, EffectiveAt: o.EffectiveAt, ExpiresAt: o.ExpiresAt, State: StatePlanned}
	var runID int64
	runID, _, err = store.StartRun(ctx, tx, Pipeline, cmp.Or(o.Trigger, "manual"), map[string]string{
		"account_id": up.AccountID, "audience_id": up.AudienceID, "file": up.FilePath, "operation": up.Operation, "mode": up.Mode})
	if err != nil {
		return nil, err
	}
	err = tx.QueryRow(ctx, `INSERT INTO audience_uploads (account_id, audience_id, file_path, checksum, operation, mode, effective_at, expires_at, run_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id, created_at`,
		up.AccountID, up.AudienceID, up.FilePath, up.Checksum, up.Operation, up.Mode, up.EffectiveAt, up.ExpiresAt, runID).Scan(&up.ID, &up.CreatedAt)
	if err != nil {
		return nil, err
	}

	p := &planner{ctx: ctx, tx: tx, o: o, upload: up}
	res := &PlanResult{Outcome: Planned, Upload: up}
	res.Report.MaxInvalidListed = o.MaxInvalidListed
	if err := p.run(res); err != nil {
		return nil, err
	}
	if o.DryRun {
		// The deferred rollback forgets the rows written.
		res.Outcome, res.Upload = Previewed, nil
		return res, nil
	}
	res.Batches = len(p.seqs)
	up.RowsRead, up.RowsInvalid, up.Users = int64(res.Report.RowsRead), int64(res.Report.RowsInvalid), p.users
	if len(p.seqs) == 0 {
		// Nothing to send: the upload is done as planned.
		up.State = StateDone
	}
	_, err = tx.Exec(ctx, `UPDATE audience_uploads SET rows_read = $2, rows_invalid = $3, users = $4, state = $5,
		finished_at = CASE WHEN $5 = 'done' THEN now() END WHERE id = $1`,
		up.ID, up.RowsRead, up.RowsInvalid, up.Users, up.State)
	if err != nil {
		return nil, err
	}
	if err := recordRun(ctx, tx, up.ID); err != nil {
		return nil, err
	}
	if len(p.seqs) > 0 {
		if err := o.Enqueue(ctx, tx, up.ID, p.seqs); err != nil {
			return nil, fmt.Errorf("audience upload: enqueue: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// resume enqueues again the batches of prev that are not done; failed ones
// get another chance.
func resume(ctx context.Context, tx pgx.Tx, prev *Upload, enqueue Enqueuer) (*PlanResult, error) {
	if _, err := tx.Exec(ctx, `UPDATE audience_batches SET state = 'pending' WHERE upload_id = $1 AND state = 'failed'`, prev.ID); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `UPDATE audience_uploads SET state = 'planned', finished_at = NULL WHERE id = $1`, prev.ID); err != nil {
		return nil, err
	}
	if err := recordRun(ctx, tx, prev.ID); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT seq FROM audience_batches WHERE upload_id = $1 AND state <> 'done' ORDER BY seq`, prev.ID)
	if err != nil {
		return nil, err
	}
	seqs, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, err
	}
	var total int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM audience_batches WHERE upload_id = $1`, prev.ID).Scan(&total); err != nil {
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
	prev.State = StatePlanned
	prev.FinishedAt = nil
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
	upload *Upload
	seqs   []int
	users  int64
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

// hashFile streams the file's valid users to emit. The bytes read are
// hashed again on the way: a file changed since its checksum was taken
// fails the plan rather than recording the wrong file.
func (p *planner) hashFile(report *hashing.Report, emit func(hashing.HashedUser) error) error {
	f, err := os.Open(p.o.Path)
	if err != nil {
		return fmt.Errorf("audience upload: %w", err)
	}
	defer func() { _ = f.Close() }()
	sum := sha256.New()
	src, format, err := hashing.Detect(io.TeeReader(f, sum), p.o.Path)
	if err != nil {
		return fmt.Errorf("audience upload: %s: %w", p.o.Path, err)
	}
	defer func() { _ = src.Close() }()
	rr, err := hashing.NewReader(src, format, p.o.Reader)
	if err != nil {
		return fmt.Errorf("audience upload: %s: %w", p.o.Path, err)
	}
	if err := hashing.HashRecordsParallel(rr, p.o.Normalizer, p.o.Workers, emit, report); err != nil {
		return fmt.Errorf("audience upload: %s: %w", p.o.Path, err)
	}
	// Whatever the readers left unread (trailing bytes after gzip's end)
	// still belongs to the checksum.
	if _, err := io.Copy(sum, f); err != nil {
		return fmt.Errorf("audience upload: %s: %w", p.o.Path, err)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != p.upload.Checksum {
		return fmt.Errorf("audience upload: %s changed while it was read; run again", p.o.Path)
	}
	return nil
}

// run plans the file: it hashes it (storing the batches of an add as it
// goes, staging a replace's users), shows the plan to Review, applies the
// bounds, and stores a replace's batches unless this is a dry run.
func (p *planner) run(res *PlanResult) error {
	var err error
	if p.o.Mode == ModeReplace {
		err = p.stageReplace(&res.Report, &res.Summary)
	} else {
		err = p.runAdd(&res.Report, &res.Summary)
	}
	if err != nil {
		return err
	}
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

// check applies the bounds to a plan: the file's invalid rows, and for a
// replace, a file with no valid user and the deletes.
func (p *planner) check(res *PlanResult) error {
	if err := res.Report.CheckInvalid(p.o.MaxInvalid); err != nil {
		return fmt.Errorf("audience upload: %s: %w", p.o.Path, err)
	}
	if p.o.Mode != ModeReplace {
		return nil
	}
	if res.Report.RowsEmitted == 0 {
		return fmt.Errorf("audience upload: %s: %w", p.o.Path, ErrNoValidUser)
	}
	limit := p.o.MaxDelete.Or(DefaultMaxDelete)
	if s := res.Summary; !p.o.Force && !limit.Allows(s.Deletes, s.Known) {
		return fmt.Errorf("audience upload: %w", &DeleteBoundError{Deletes: s.Deletes, Known: s.Known, Max: limit})
	}
	return nil
}

// runAdd stores the batches of an add (or a delete) as the file is read.
func (p *planner) runAdd(report *hashing.Report, sum *Summary) error {
	op := OpUpdate
	if p.o.Operation == OperationDelete {
		op = OpDelete
	}
	b := p.newBatcher(op)
	var buf []byte
	err := p.hashFile(report, func(u hashing.HashedUser) error {
		buf = u.AppendJSON(buf[:0])
		if err := b.add(buf); err != nil {
			return fmt.Errorf("line %d: %w", u.Line, err)
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
