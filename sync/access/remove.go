package access

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Revoke invalidates the stored token of userID ("": the most recent one)
// with the service, forgets it, and records the user as revoked, saying so
// on out. c is the application's client, without a stored token. A token
// the service already held invalid is forgotten all the same.
func Revoke(ctx context.Context, tokens api.PGUserTokenStore, c *api.Client, userID string, out io.Writer) error {
	var ut api.UserToken
	var err error
	if userID != "" {
		ut, err = tokens.ForUser(ctx, c.Credentials(), userID)
	} else {
		ut, err = tokens.Current(ctx, c.Credentials())
	}
	var undecryptable *api.UndecryptableTokenError
	if errors.As(err, &undecryptable) {
		return fmt.Errorf("auth revoke: %w: it cannot be invalidated without it; %s", err, undecryptable.WayOut())
	}
	if err != nil {
		return err
	}
	err = api.InvalidateUserToken(ctx, c, api.Token{Token: ut.Token, Secret: ut.Secret})
	already := errors.Is(err, api.ErrInvalidToken)
	if err != nil && !already {
		return err
	}
	if err := tokens.MarkRevoked(ctx, c.Credentials(), ut.UserID); err != nil {
		return fmt.Errorf("marking the token revoked: %w", err)
	}
	if err := SetState(ctx, tokens.Pool, ut.UserID, api.UserRevoked, "revoked with adsync auth revoke"); err != nil {
		return fmt.Errorf("recording user %s as revoked: %w", ut.UserID, err)
	}
	if already {
		fmt.Fprintf(out, "the token of @%s (user id %s) was already invalid; marked revoked\n", ut.ScreenName, ut.UserID)
		return nil
	}
	fmt.Fprintf(out, "revoked the token of @%s (user id %s)\n", ut.ScreenName, ut.UserID)
	return nil
}

// Remove forgets one user of the application creds: its stored token,
// without decrypting it (a token stored under another key can be removed)
// or invalidating it, and what adsync recorded of the user (Forget), saying
// so on out. Every row synced through the user is kept.
func Remove(ctx context.Context, pool *pgxpool.Pool, creds api.Credentials, userID string, out io.Writer) error {
	found, err := api.PGUserTokenStore{Pool: pool}.Remove(ctx, creds, userID)
	if err != nil {
		return err
	}
	known, err := Recorded(ctx, pool, userID)
	if err != nil {
		return fmt.Errorf("auth remove: reading user %s: %w", userID, err)
	}
	// Only what adsync recorded of the user goes: no synced row.
	if err := Forget(ctx, pool, userID); err != nil {
		return fmt.Errorf("auth remove: forgetting user %s: %w", userID, err)
	}
	switch {
	case found:
		fmt.Fprintf(out, "removed the stored token of user %s (not invalidated: the service honours it until the user withdraws the application's access); its synced data is kept\n", userID)
	case known:
		fmt.Fprintf(out, "user %s had no stored token: forgot the accounts recorded for it; its synced data is kept\n", userID)
	default:
		return fmt.Errorf("auth remove: no stored token of user %s for this application", userID)
	}
	return nil
}
