package access

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
)

// Verified is what one signed call, and the pages after it, tell of a
// token: the user it acts for and the accounts it reaches.
type Verified struct {
	UserID   string
	Accounts []string
}

// Verify lists the accounts c's token reaches (its first page is the one
// signed call that verifies the token) and names its user: the token's own
// prefix, else what authenticated_user_access answers on its first
// account.
func Verify(ctx context.Context, c *api.Client) (Verified, error) {
	var v Verified
	lr := api.ListRequest{Base: api.BaseAds, Path: "/12/accounts", Endpoint: "GET /12/accounts"}
	for page, err := range api.Pages[struct {
		ID string `json:"id"`
	}](ctx, c, lr) {
		if err != nil {
			return Verified{}, err
		}
		for _, a := range page.Items {
			v.Accounts = append(v.Accounts, a.ID)
		}
	}
	v.UserID = api.TokenUserID(c.UserToken())
	if v.UserID == "" && len(v.Accounts) > 0 {
		id, _, err := userAccess(ctx, c, v.Accounts[0])
		if err != nil {
			return Verified{}, err
		}
		v.UserID = id
	}
	if v.UserID == "" {
		return Verified{}, fmt.Errorf("the token names no user and reaches no account: adsync cannot tell whose it is")
	}
	return v, nil
}

// AccountRole is one account a user reaches, with its role there ("" when
// not read yet).
type AccountRole struct {
	AccountID string
	Role      string
}

// UserInfo is one user as auth list shows it: never a secret.
type UserInfo struct {
	UserID     string
	ScreenName string
	// State is ok, revoked or refused; Reason says what the service
	// answered.
	State      string
	Reason     string
	LastUsedAt *time.Time
	Accounts   []AccountRole
}

// ListUsers lists every user adsync knows (api_users), by id, with the
// accounts each reaches and its role on each.
func ListUsers(ctx context.Context, db DB) ([]UserInfo, error) {
	rows, err := db.Query(ctx, `SELECT u.user_id, u.screen_name, u.state, u.state_reason, u.last_used_at,
		coalesce(array_agg(au.account_id ORDER BY au.account_id) FILTER (WHERE au.account_id IS NOT NULL), '{}'),
		coalesce(array_agg(coalesce(array_to_string(au.permissions, ','), '') ORDER BY au.account_id) FILTER (WHERE au.account_id IS NOT NULL), '{}')
		FROM api_users u LEFT JOIN account_users au ON au.user_id = u.user_id AND au.lost_at IS NULL
		GROUP BY u.user_id ORDER BY u.user_id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (UserInfo, error) {
		var ui UserInfo
		var ids, perms []string
		if err := r.Scan(&ui.UserID, &ui.ScreenName, &ui.State, &ui.Reason, &ui.LastUsedAt, &ids, &perms); err != nil {
			return ui, err
		}
		for i, id := range ids {
			ui.Accounts = append(ui.Accounts, AccountRole{AccountID: id, Role: Role(splitComma(perms[i]))})
		}
		return ui, nil
	})
}

func splitComma(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// Unreached lists the stored accounts, not deleted, that no usable user's
// token reaches any more (empty before any listing recorded who reaches
// what).
func Unreached(ctx context.Context, db DB) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT a.id FROM accounts a
		WHERE NOT a.deleted AND EXISTS (SELECT 1 FROM account_users)
		AND NOT EXISTS (SELECT 1 FROM account_users au LEFT JOIN api_users u ON u.user_id = au.user_id
			WHERE au.account_id = a.id AND au.lost_at IS NULL AND coalesce(u.state, 'ok') = 'ok')
		ORDER BY a.id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
