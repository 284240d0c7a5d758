package access_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestRevokeInvalidatesTheStoredTokenForgetsItAndRecordsItsUserRevoked(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := context.Background()
	owner := b.ownerToken()
	require.NoError(t, b.tokens.Save(ctx, b.app.Credentials(), owner))
	var out strings.Builder
	require.NoError(t, access.Revoke(ctx, b.tokens, b.app, "", &out))
	require.Equal(t, "revoked the token of @"+owner.ScreenName+" (user id "+owner.UserID+")\n", out.String())
	_, err := b.tokens.Current(ctx, b.app.Credentials())
	require.ErrorIs(t, err, api.ErrNoStoredToken, "a revoked token is forgotten")
	users, err := access.ListUsers(ctx, b.pool)
	require.NoError(t, err)
	require.Len(t, users, 1)
	require.Equal(t, api.UserRevoked, users[0].State)
	// The service refuses it now: revoking it again (stored anew) still
	// forgets it.
	require.NoError(t, b.tokens.Save(ctx, b.app.Credentials(), owner))
	out.Reset()
	require.NoError(t, access.Revoke(ctx, b.tokens, b.app, owner.UserID, &out))
	require.Equal(t, "the token of @"+owner.ScreenName+" (user id "+owner.UserID+") was already invalid; marked revoked\n", out.String())
	requireNoSecrets(t, out.String(), owner.Token, owner.Secret)
}

func TestRemoveForgetsAUserWithOrWithoutATokenAndRefusesAnUnknownOne(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := context.Background()
	creds := b.app.Credentials()
	owner := b.ownerToken()
	require.NoError(t, b.tokens.Save(ctx, creds, owner))
	_, err := access.NoteUser(ctx, b.pool, "u2", "", "fp")
	require.NoError(t, err)
	require.NoError(t, access.RecordListed(ctx, b.pool, 0, "u2", []string{"acc1"}))

	var out strings.Builder
	require.NoError(t, access.Remove(ctx, b.pool, creds, owner.UserID, &out))
	require.Contains(t, out.String(), "removed the stored token of user "+owner.UserID+" (not invalidated")
	out.Reset()
	require.NoError(t, access.Remove(ctx, b.pool, creds, "u2", &out))
	require.Equal(t, "user u2 had no stored token: forgot the accounts recorded for it; its synced data is kept\n", out.String())
	users, err := access.ListUsers(ctx, b.pool)
	require.NoError(t, err)
	require.Empty(t, users)
	require.EqualError(t, access.Remove(ctx, b.pool, creds, "u3", &out), "auth remove: no stored token of user u3 for this application")
}
