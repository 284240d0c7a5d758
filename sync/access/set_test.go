package access_test

import (
	"context"
	"testing"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// setBundle is a user set over a migrated database whose users are
// stored tokens; no request reaches a service (NeedRead asks for no role).
type setBundle struct {
	pool   *pgxpool.Pool
	tokens *api.PGUserTokenStore
	creds  api.Credentials
	set    *access.Set
}

func setupSet(t *testing.T) *setBundle {
	t.Helper()
	ctx := context.Background()
	pool, err := store.Connect(ctx, synctest.MigratedDatabase(t), store.ConnectOptions{MaxConns: 4})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	creds := api.Credentials{ConsumerKey: "consumer key", ConsumerSecret: "consumer secret"}
	base, err := api.NewClient(api.Config{APIURL: "http://127.0.0.1:1", AdsURL: "http://127.0.0.1:1/ads", Credentials: creds})
	require.NoError(t, err)
	tokens := &api.PGUserTokenStore{Pool: pool, SecretKey: "access test key: 32 characters or more"}
	return &setBundle{pool: pool, tokens: tokens, creds: creds, set: &access.Set{Pool: pool, Base: base, Tokens: tokens}}
}

// addUser stores id's token and records the accounts it reaches, as auth
// add does while workers run.
func (b *setBundle) addUser(t *testing.T, id string, accounts ...string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, b.tokens.Save(ctx, b.creds, api.UserToken{Token: id + "-token", Secret: id + "-secret", UserID: id, AccessType: "write"}))
	require.NoError(t, access.RecordListed(ctx, b.pool, 0, id, accounts))
}

func TestATokenAddedAfterTheUsersWereReadActsOnTheAccountsOnlyItReaches(t *testing.T) {
	t.Parallel()
	b := setupSet(t)
	ctx := context.Background()
	b.addUser(t, "1000000101", "acct-a")
	users, err := b.set.Users(ctx)
	require.NoError(t, err)
	require.Len(t, users, 1)

	// A second user is added while the set still holds what it read: the
	// account only that user reaches is not refused for good (a batch or
	// unit would fail at once), it goes to the new user.
	b.addUser(t, "1000000102", "acct-b")
	u, err := b.set.For(ctx, "acct-b", access.NeedRead)
	require.NoError(t, err)
	require.Equal(t, "1000000102", u.ID)

	// A refusal read afresh stays a refusal: an account its only user lost.
	require.NoError(t, access.MarkLost(ctx, b.pool, "1000000101", "acct-a"))
	_, err = b.set.For(ctx, "acct-a", access.NeedRead)
	var nu *access.NoUserError
	require.ErrorAs(t, err, &nu)
	require.Equal(t, api.Final, api.Explain(err).Verdict)
}
