package access

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is a pool or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// RecordListed records that run's listing of user's accounts returned
// accountIDs: each is reached by the user again (lost_at cleared).
func RecordListed(ctx context.Context, db DB, runID int64, userID string, accountIDs []string) error {
	if len(accountIDs) == 0 {
		return nil
	}
	_, err := db.Exec(ctx, `INSERT INTO account_users (account_id, user_id, seen_at, seen_run)
		SELECT a, $2, now(), $3 FROM unnest($1::text[]) a
		ON CONFLICT (account_id, user_id) DO UPDATE SET seen_at = now(), seen_run = $3, lost_at = NULL`,
		accountIDs, userID, runID)
	return err
}

// EndListing closes run's complete listing of user's accounts: the
// accounts it did not return are lost to the user, and the user's reach is
// the number it returned.
func EndListing(ctx context.Context, db DB, runID int64, userID string) error {
	_, err := db.Exec(ctx, `WITH lost AS (
			UPDATE account_users SET lost_at = now()
			WHERE user_id = $1 AND lost_at IS NULL AND seen_run IS DISTINCT FROM $2)
		UPDATE api_users SET reach = (SELECT count(*) FROM account_users WHERE user_id = $1 AND seen_run = $2)
		WHERE user_id = $1`, userID, runID)
	return err
}

// MarkLost records that the service refused user on account (403): another
// user takes the account's work until a listing returns it to the user.
func MarkLost(ctx context.Context, db DB, userID, accountID string) error {
	_, err := db.Exec(ctx, `INSERT INTO account_users (account_id, user_id, lost_at) VALUES ($1, $2, now())
		ON CONFLICT (account_id, user_id) DO UPDATE SET lost_at = now()`, accountID, userID)
	return err
}

// SetPermissions records what authenticated_user_access answered user on
// account.
func SetPermissions(ctx context.Context, db DB, accountID, userID string, permissions []string) error {
	_, err := db.Exec(ctx, `UPDATE account_users SET permissions = $3, role_checked_at = now()
		WHERE account_id = $1 AND user_id = $2`, accountID, userID, permissions)
	return err
}

// RolesToCheck lists the accounts user reaches, not deleted (the service
// answers a deleted account's access 404), whose role was never read, or
// read before maxAge ago.
func RolesToCheck(ctx context.Context, db DB, userID string, maxAge time.Duration) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT account_id FROM account_users
		WHERE user_id = $1 AND lost_at IS NULL AND (role_checked_at IS NULL OR role_checked_at < now() - $2::interval)
		AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = account_id AND a.deleted)
		ORDER BY account_id`, userID, maxAge)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Reach is one user reaching one account.
type Reach struct {
	UserID      string
	Permissions []string // nil: not read yet
	// Accounts is how many accounts the user's last complete listing
	// returned (its reach, see Pick).
	Accounts int
}

// Reachers lists the users whose token reaches account and is usable
// (state ok), by user id.
func Reachers(ctx context.Context, db DB, accountID string) ([]Reach, error) {
	rows, err := db.Query(ctx, reachersSQL, accountID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Reach])
}

const reachersSQL = `SELECT au.user_id, au.permissions, coalesce(u.reach, 0) FROM account_users au
		LEFT JOIN api_users u ON u.user_id = au.user_id
		WHERE au.account_id = $1 AND au.lost_at IS NULL AND coalesce(u.state, 'ok') = 'ok'
		ORDER BY au.user_id`

// QueueReachers queues Reachers' query in b: reach holds its rows once
// b's results are read.
func QueueReachers(b *pgx.Batch, accountID string, reach *[]Reach) {
	b.Queue(reachersSQL, accountID).Query(func(rows pgx.Rows) (err error) {
		*reach, err = pgx.CollectRows(rows, pgx.RowToStructByPos[Reach])
		return err
	})
}

// readReach reads, in one statement, who reaches account (as Reachers)
// and whether any listing ever recorded it (known, whoever the rows name
// and whatever their state): one snapshot, so an account a listing
// records meanwhile is either unknown or reached, never known and reached
// by nobody.
func readReach(ctx context.Context, db DB, accountID string) (reach []Reach, known bool, err error) {
	rows, err := db.Query(ctx, `SELECT au.user_id, au.permissions, coalesce(u.reach, 0),
			au.lost_at IS NULL AND coalesce(u.state, 'ok') = 'ok'
		FROM account_users au LEFT JOIN api_users u ON u.user_id = au.user_id
		WHERE au.account_id = $1
		ORDER BY au.user_id`, accountID)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var r Reach
		var usable bool
		if err := rows.Scan(&r.UserID, &r.Permissions, &r.Accounts, &usable); err != nil {
			return nil, false, err
		}
		known = true
		if usable {
			reach = append(reach, r)
		}
	}
	return reach, known, rows.Err()
}

// NoteUser records a user's current token (by fingerprint) and screen
// name, and returns the user's state: a token other than the one a state
// was recorded for starts ok.
func NoteUser(ctx context.Context, db DB, userID, screenName, fingerprint string) (state string, err error) {
	err = db.QueryRow(ctx, `INSERT INTO api_users (user_id, screen_name, token_fp) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET
			screen_name = CASE WHEN EXCLUDED.screen_name = '' THEN api_users.screen_name ELSE EXCLUDED.screen_name END,
			token_fp = EXCLUDED.token_fp,
			state = CASE WHEN api_users.token_fp = EXCLUDED.token_fp THEN api_users.state ELSE 'ok' END,
			state_reason = CASE WHEN api_users.token_fp = EXCLUDED.token_fp THEN api_users.state_reason ELSE '' END,
			state_at = CASE WHEN api_users.token_fp = EXCLUDED.token_fp THEN api_users.state_at ELSE now() END
		RETURNING state`,
		userID, screenName, fingerprint).Scan(&state)
	return state, err
}

// SetState records that the service stopped accepting user's token (state
// revoked or refused), with the service's reason (never the token).
func SetState(ctx context.Context, db DB, userID, state, reason string) error {
	_, err := db.Exec(ctx, `INSERT INTO api_users (user_id, state, state_reason, state_at) VALUES ($1, $2, $3, now())
		ON CONFLICT (user_id) DO UPDATE SET state = $2, state_reason = $3, state_at = now()`, userID, state, reason)
	return err
}

// Touch records that a run chose user for an account now.
func Touch(ctx context.Context, db DB, userID string) error {
	_, err := db.Exec(ctx, `UPDATE api_users SET last_used_at = now() WHERE user_id = $1`, userID)
	return err
}

// Recorded reports whether adsync recorded user (api_users).
func Recorded(ctx context.Context, db DB, userID string) (bool, error) {
	var known bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_users WHERE user_id = $1)`, userID).Scan(&known)
	return known, err
}

// ScreenName is the screen name adsync recorded for user, "" when none
// (or the user is not recorded).
func ScreenName(ctx context.Context, db DB, userID string) (string, error) {
	var screen string
	err := db.QueryRow(ctx, `SELECT screen_name FROM api_users WHERE user_id = $1`, userID).Scan(&screen)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return screen, err
}

// Forget drops what adsync recorded of user (its reach and state), not
// the data synced through it.
func Forget(ctx context.Context, db DB, userID string) error {
	if _, err := db.Exec(ctx, `DELETE FROM account_users WHERE user_id = $1`, userID); err != nil {
		return err
	}
	_, err := db.Exec(ctx, `DELETE FROM api_users WHERE user_id = $1`, userID)
	return err
}
