package audience

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

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
	State           string
	Batches         int
	Done, Failed    int
	Users           int64 // users in all batches
	UsersDone       int64 // users of done batches
	Accepted        int64 // success_count of done batches
	Retries         int64
	OperationErrors int64
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
		       coalesce(sum(b.retries), 0)::bigint,
		       (SELECT count(*) FROM audience_batch_errors e WHERE e.upload_id = u.id)::bigint
		FROM audience_uploads u LEFT JOIN audience_batches b ON b.upload_id = u.id
		WHERE u.id = $1
		GROUP BY u.id, u.state`, id).Scan(&p.State, &p.Batches, &p.Done, &p.Failed, &p.Users, &p.UsersDone,
		&p.Accepted, &p.Retries, &p.OperationErrors)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("%w: %d", ErrUploadNotFound, id)
	}
	return p, err
}
