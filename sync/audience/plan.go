package audience

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/adsync/adsync/hashing"
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
	// Operation is OperationUpdate or OperationDelete; Mode is ModeAdd or
	// ModeReplace (replace needs OperationUpdate).
	Operation, Mode        string
	EffectiveAt, ExpiresAt *time.Time
	// Force plans the file again even when the same file (same checksum)
	// was already uploaded to the audience with the same operation and mode.
	Force      bool
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
)

// PlanResult is what Plan did.
type PlanResult struct {
	Outcome Outcome
	Upload  *Upload
	// Report counts the file's rows (a new plan only).
	Report  hashing.Report
	Batches int
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
		default:
			return resume(ctx, tx, prev, o.Enqueue)
		}
	}

	up := &Upload{AccountID: o.AccountID, AudienceID: o.AudienceID, FilePath: o.Path, Checksum: sum,
		Operation: o.Operation, Mode: o.Mode, EffectiveAt: o.EffectiveAt, ExpiresAt: o.ExpiresAt, State: StatePlanned}
	var runID int64
	err = tx.QueryRow(ctx, `INSERT INTO sync_runs (pipeline, params) VALUES ('audience',
		jsonb_build_object('account_id', $1::text, 'audience_id', $2::text, 'file', $3::text, 'operation', $4::text, 'mode', $5::text))
		RETURNING id`, up.AccountID, up.AudienceID, up.FilePath, up.Operation, up.Mode).Scan(&runID)
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
	if err := p.run(&res.Report); err != nil {
		return nil, err
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
	return newBatcher(op, p.o.EffectiveAt, p.o.ExpiresAt, p.o.MaxUsers, p.o.MaxBytes, p.insertBatch)
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

func (p *planner) run(report *hashing.Report) error {
	if p.o.Mode == ModeReplace {
		return p.runReplace(report)
	}
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
	return b.close()
}
