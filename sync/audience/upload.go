package audience

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
