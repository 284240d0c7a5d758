package audience

import (
	"context"
	"errors"
	"fmt"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TakenNameError is a definition's create: name held by an audience adsync
// did not create for it.
type TakenNameError struct {
	AccountID, Name, ExistingID string
}

func (e *TakenNameError) Error() string {
	return fmt.Sprintf("a custom audience named %q already exists in account %s: %s; keep it with audience: %s instead of create: %q",
		e.Name, e.AccountID, e.ExistingID, e.ExistingID, e.Name)
}

// CreatedID is the audience adsync created under name in accountID
// (audience_creates), or "" when it created none yet.
func CreatedID(ctx context.Context, db querier, accountID, name string) (string, error) {
	var id *string
	err := db.QueryRow(ctx, `SELECT audience_id FROM audience_creates WHERE account_id = $1 AND name = $2`, accountID, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) || id == nil {
		return "", nil
	}
	return *id, err
}

// EnsureAudience returns the audience adsync created under name in
// accountID, creating it the first time, and whether this call created it.
// Every run of a definition with create: calls it, so the audience is
// created once and kept.
//
// The intent is recorded (audience_creates, no id) before the create is
// sent and the id once it is answered. A run that stopped in between (a
// crash, a lost answer) left the intent: the next run sends the create
// again, and when the service answers that the name is taken, the audience
// holding it is the one that run created, unless adsync recorded an upload
// to it (then someone else's: *TakenNameError). A name taken before any
// intent is refused with *TakenNameError too. Runs of one name take turns
// (a session advisory lock), so two of them never create two audiences.
func EnsureAudience(ctx context.Context, pool *pgxpool.Pool, c *api.Client, accountID, name string) (id string, created bool, err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return "", false, err
	}
	defer conn.Release()
	lockKey := "adsync audience create " + accountID + "/" + name
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, lockKey); err != nil {
		return "", false, err
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, lockKey)
	}()
	if id, err := CreatedID(ctx, conn, accountID, name); id != "" || err != nil {
		return id, false, err
	}
	// The intent is committed before the create leaves: a run stopped
	// while the create is on its way still knows the name is its own.
	tag, err := conn.Exec(ctx, `INSERT INTO audience_creates (account_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING`, accountID, name)
	if err != nil {
		return "", false, err
	}
	earlier := tag.RowsAffected() == 0
	id, err = CreateAudience(ctx, c, accountID, name)
	var dup *DuplicateNameError
	switch {
	case err == nil:
		created = true
	case errors.As(err, &dup) && dup.ExistingID != "" && earlier:
		// The earlier run's create went through and its answer was lost.
		var uploads bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM audience_uploads WHERE audience_id = $1)`, dup.ExistingID).Scan(&uploads); err != nil {
			return "", false, err
		}
		if uploads {
			return "", false, &TakenNameError{AccountID: accountID, Name: name, ExistingID: dup.ExistingID}
		}
		id = dup.ExistingID
	case errors.As(err, &dup) && dup.ExistingID != "":
		_, _ = conn.Exec(context.WithoutCancel(ctx), `DELETE FROM audience_creates WHERE account_id = $1 AND name = $2 AND audience_id IS NULL`, accountID, name)
		return "", false, &TakenNameError{AccountID: accountID, Name: name, ExistingID: dup.ExistingID}
	case !answerLost(err) && ctx.Err() == nil && !earlier:
		// Refused: no audience of this run exists.
		_, _ = conn.Exec(context.WithoutCancel(ctx), `DELETE FROM audience_creates WHERE account_id = $1 AND name = $2 AND audience_id IS NULL`, accountID, name)
		return "", false, err
	default:
		return "", false, err
	}
	if _, err := conn.Exec(context.WithoutCancel(ctx), `UPDATE audience_creates SET audience_id = $3, created_at = now() WHERE account_id = $1 AND name = $2`,
		accountID, name, id); err != nil {
		return "", false, err
	}
	return id, created, nil
}
