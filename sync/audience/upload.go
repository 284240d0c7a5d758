package audience

// This file owns an upload's record: every write to audience_uploads and
// to the upload's sync_runs row is one of its functions. The plan records
// a new upload, its counts, or reopens an unfinished one; the sender ends
// it with its last batch; neither writes the record itself.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
)

// Pipeline is the sync_runs pipeline of audience uploads.
const Pipeline = "audience"

// Upload operations and modes, as recorded.
const (
	OperationUpdate = "update"
	OperationDelete = "delete"
	ModeAdd         = "add"
	ModeReplace     = "replace"
)

// Upload states.
const (
	StatePlanned = "planned"
	StateDone    = "done"
	StateFailed  = "failed"
)

// Upload is one recorded upload of a file to an audience.
type Upload struct {
	ID                     int64
	AccountID, AudienceID  string
	FilePath, Checksum     string
	Operation, Mode        string
	EffectiveAt, ExpiresAt *time.Time
	RowsRead, RowsInvalid  int64
	Users                  int64
	State                  string
	CreatedAt              time.Time
	FinishedAt             *time.Time
}

const uploadColumns = `id, account_id, audience_id, file_path, checksum, operation, mode, effective_at, expires_at,
	rows_read, rows_invalid, users, state, created_at, finished_at`

func scanUpload(row pgx.Row) (*Upload, error) {
	u := &Upload{}
	err := row.Scan(&u.ID, &u.AccountID, &u.AudienceID, &u.FilePath, &u.Checksum, &u.Operation, &u.Mode,
		&u.EffectiveAt, &u.ExpiresAt, &u.RowsRead, &u.RowsInvalid, &u.Users, &u.State, &u.CreatedAt, &u.FinishedAt)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// lockAudience takes the audience's planning lock for the rest of tx: one
// planner per audience at a time, since a replace diffs against the stored
// membership and the same-input check must see earlier plans.
func lockAudience(ctx context.Context, tx pgx.Tx, audienceID string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('adsync audience ' || $1, 0))`, audienceID)
	return err
}

// findSameInput returns the latest upload of the same input (checksum
// sum) to o's audience with o's operation and mode, other than upload
// except; nil when there is none.
//
// A file's checksum is of its bytes, whatever a plan makes of them: it says
// "the same input" to uploads planned before each user was sent once (see
// hashing.HashRecords) too. Such an upload, unfinished, resumes with the
// batches it stored (duplicates included: adding a user the audience holds
// already changes nothing), and, done, still skips the file.
func findSameInput(ctx context.Context, db querier, o *PlanOptions, sum string, except int64) (*Upload, error) {
	prev, err := scanUpload(db.QueryRow(ctx, `SELECT `+uploadColumns+` FROM audience_uploads
		WHERE audience_id = $1 AND checksum = $2 AND operation = $3 AND mode = $4 AND id <> $5
		ORDER BY id DESC LIMIT 1`, o.AudienceID, sum, o.Operation, o.Mode, except))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return prev, err
}

// recordNewUpload records up, planned, with its run; it sets up.ID and
// up.CreatedAt. The run names the source: a file, or a query.
func recordNewUpload(ctx context.Context, tx pgx.Tx, up *Upload, trigger string, query bool) error {
	params := map[string]string{"account_id": up.AccountID, "audience_id": up.AudienceID, "operation": up.Operation, "mode": up.Mode}
	if query {
		params["query"] = up.FilePath
	} else {
		params["file"] = up.FilePath
	}
	runID, _, err := store.StartRun(ctx, tx, Pipeline, trigger, params)
	if err != nil {
		return err
	}
	return tx.QueryRow(ctx, `INSERT INTO audience_uploads (account_id, audience_id, file_path, checksum, operation, mode, effective_at, expires_at, run_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id, created_at`,
		up.AccountID, up.AudienceID, up.FilePath, up.Checksum, up.Operation, up.Mode, up.EffectiveAt, up.ExpiresAt, runID).Scan(&up.ID, &up.CreatedAt)
}

// recordPlanned records what a new plan holds (its counts, its checksum
// once known, done at once when it has no batch) and brings its run up to
// date.
func recordPlanned(ctx context.Context, tx pgx.Tx, up *Upload) error {
	_, err := tx.Exec(ctx, `UPDATE audience_uploads SET rows_read = $2, rows_invalid = $3, users = $4, state = $5, checksum = $6,
		finished_at = CASE WHEN $5 = 'done' THEN now() END WHERE id = $1`,
		up.ID, up.RowsRead, up.RowsInvalid, up.Users, up.State, up.Checksum)
	if err != nil {
		return err
	}
	return recordRun(ctx, tx, up.ID)
}

// reopenUpload makes prev, unfinished or failed, planned again: its failed
// batches get another chance. It returns the batches not done, to send,
// and how many batches prev has.
func reopenUpload(ctx context.Context, tx pgx.Tx, prev *Upload) (pending []int, total int, err error) {
	if _, err := tx.Exec(ctx, `UPDATE audience_batches SET state = 'pending' WHERE upload_id = $1 AND state = 'failed'`, prev.ID); err != nil {
		return nil, 0, err
	}
	if _, err := tx.Exec(ctx, `UPDATE audience_uploads SET state = 'planned', finished_at = NULL WHERE id = $1`, prev.ID); err != nil {
		return nil, 0, err
	}
	if err := recordRun(ctx, tx, prev.ID); err != nil {
		return nil, 0, err
	}
	rows, err := tx.Query(ctx, `SELECT seq FROM audience_batches WHERE upload_id = $1 AND state <> 'done' ORDER BY seq`, prev.ID)
	if err != nil {
		return nil, 0, err
	}
	pending, err = pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, 0, err
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM audience_batches WHERE upload_id = $1`, prev.ID).Scan(&total); err != nil {
		return nil, 0, err
	}
	prev.State, prev.FinishedAt = StatePlanned, nil
	return pending, total, nil
}

// lockUpload locks upload id's record for the rest of tx, so two batches
// finishing together cannot both miss being last, and returns its
// audience.
func lockUpload(ctx context.Context, tx pgx.Tx, id int64) (audienceID string, err error) {
	err = tx.QueryRow(ctx, `SELECT audience_id FROM audience_uploads WHERE id = $1 FOR UPDATE`, id).Scan(&audienceID)
	return audienceID, err
}

// endIfLastBatch ends upload id when none of its batches is left to send
// (done, or failed when a batch failed) and records its run's outcome.
func endIfLastBatch(ctx context.Context, tx pgx.Tx, id int64) error {
	tag, err := tx.Exec(ctx, `UPDATE audience_uploads u SET
			state = CASE WHEN EXISTS (SELECT 1 FROM audience_batches b WHERE b.upload_id = u.id AND b.state = 'failed') THEN 'failed' ELSE 'done' END,
			finished_at = now()
		WHERE u.id = $1 AND NOT EXISTS (SELECT 1 FROM audience_batches b WHERE b.upload_id = u.id AND b.state IN ('pending', 'sent'))`, id)
	if err != nil || tag.RowsAffected() == 0 {
		return err
	}
	return recordRun(ctx, tx, id)
}

// querier is a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// ErrUploadNotFound is an upload id with no record.
var ErrUploadNotFound = errors.New("audience upload not found")

// LoadUpload reads upload id.
func LoadUpload(ctx context.Context, db querier, id int64) (*Upload, error) {
	u, err := scanUpload(db.QueryRow(ctx, `SELECT `+uploadColumns+` FROM audience_uploads WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %d", ErrUploadNotFound, id)
	}
	return u, err
}

// Progress sums an upload's batches.
type Progress struct {
	State        string
	Batches      int
	Done, Failed int
	Users        int64 // users in all batches
	UsersDone    int64 // users of done batches
	Accepted     int64 // success_count of done batches
	// Adds and Deletes split Users by operation (Update, Delete), and
	// AddsAccepted and DeletesAccepted split Accepted.
	Adds, Deletes                 int64
	AddsAccepted, DeletesAccepted int64
	Retries                       int64
	OperationErrors               int64
}

// Finished reports whether no batch is left to send.
func (p Progress) Finished() bool { return p.Done+p.Failed == p.Batches }

// LoadProgress sums upload id's batches.
func LoadProgress(ctx context.Context, db querier, id int64) (Progress, error) {
	var p Progress
	err := db.QueryRow(ctx, `
		SELECT u.state,
		       count(b.seq)::int,
		       count(*) FILTER (WHERE b.state = 'done')::int,
		       count(*) FILTER (WHERE b.state = 'failed')::int,
		       coalesce(sum(b.user_count), 0)::bigint,
		       coalesce(sum(b.user_count) FILTER (WHERE b.state = 'done'), 0)::bigint,
		       coalesce(sum(b.success_count) FILTER (WHERE b.state = 'done'), 0)::bigint,
		       coalesce(sum(b.user_count) FILTER (WHERE b.operation = 'Update'), 0)::bigint,
		       coalesce(sum(b.user_count) FILTER (WHERE b.operation = 'Delete'), 0)::bigint,
		       coalesce(sum(b.success_count) FILTER (WHERE b.state = 'done' AND b.operation = 'Update'), 0)::bigint,
		       coalesce(sum(b.success_count) FILTER (WHERE b.state = 'done' AND b.operation = 'Delete'), 0)::bigint,
		       coalesce(sum(b.retries), 0)::bigint,
		       (SELECT count(*) FROM audience_batch_errors e WHERE e.upload_id = u.id)::bigint
		FROM audience_uploads u LEFT JOIN audience_batches b ON b.upload_id = u.id
		WHERE u.id = $1
		GROUP BY u.id, u.state`, id).Scan(&p.State, &p.Batches, &p.Done, &p.Failed, &p.Users, &p.UsersDone,
		&p.Accepted, &p.Adds, &p.Deletes, &p.AddsAccepted, &p.DeletesAccepted, &p.Retries, &p.OperationErrors)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("%w: %d", ErrUploadNotFound, id)
	}
	return p, err
}

// recordRun brings the upload's sync_runs row up to date: running while
// batches are left, then succeeded, partial (some batches failed) or
// failed (none done), with the upload's counts.
func recordRun(ctx context.Context, db querier, uploadID int64) error {
	var runID int64
	var state string
	var c struct {
		RowsRead, RowsInvalid, Users, Adds, Deletes, Batches, Done, Failed, Accepted, Retries int64
	}
	err := db.QueryRow(ctx, `
		SELECT u.run_id, u.state, u.rows_read, u.rows_invalid, u.users, b.adds, b.deletes, b.batches, b.done, b.failed, b.accepted, b.retries
		FROM audience_uploads u, LATERAL (
			SELECT count(*) AS batches,
			       count(*) FILTER (WHERE state = 'done') AS done,
			       count(*) FILTER (WHERE state = 'failed') AS failed,
			       coalesce(sum(success_count) FILTER (WHERE state = 'done'), 0) AS accepted,
			       coalesce(sum(user_count) FILTER (WHERE operation = 'Update'), 0) AS adds,
			       coalesce(sum(user_count) FILTER (WHERE operation = 'Delete'), 0) AS deletes,
			       coalesce(sum(retries), 0) AS retries
			FROM audience_batches WHERE upload_id = u.id) b
		WHERE u.id = $1`, uploadID).Scan(&runID, &state, &c.RowsRead, &c.RowsInvalid, &c.Users, &c.Adds, &c.Deletes,
		&c.Batches, &c.Done, &c.Failed, &c.Accepted, &c.Retries)
	if err != nil {
		return err
	}
	outcome, reason := store.RunRunning, ""
	switch {
	case state == StatePlanned:
	case state == StateDone:
		outcome = store.RunSucceeded
	case c.Done > 0:
		outcome = store.RunPartial
	default:
		outcome = store.RunFailed
	}
	if state == StateFailed {
		reason = fmt.Sprintf("%d of %d batches failed", c.Failed, c.Batches)
	}
	return store.SetRun(ctx, db, runID, outcome, map[string]int64{
		"rows_read": c.RowsRead, "rows_invalid": c.RowsInvalid, "users": c.Users, "adds": c.Adds, "deletes": c.Deletes,
		"batches": c.Batches, "batches_done": c.Done, "batches_failed": c.Failed, "users_accepted": c.Accepted, "retries": c.Retries,
	}, reason)
}
