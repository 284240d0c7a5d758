package access_test

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

// secretKey encrypts the tests' stored tokens.
const secretKey = "access-test-secret-key-never-printed"

// testBundle is a migrated database, a fake service, the store of user
// tokens and the application's client without a user token.
type testBundle struct {
	pool   *pgxpool.Pool
	fake   *synctest.Fake
	tokens api.PGUserTokenStore
	app    *api.Client
}

func setup(t *testing.T, tweak func(*fixtures.Options)) *testBundle {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, tweak)
	cfg := fake.Config(pool)
	cfg.UserToken = nil
	app, err := api.NewClient(cfg)
	require.NoError(t, err)
	return &testBundle{pool: pool, fake: fake, tokens: api.PGUserTokenStore{Pool: pool, SecretKey: secretKey}, app: app}
}

// requireNoSecrets fails when out holds any of secrets.
func requireNoSecrets(t *testing.T, out string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		require.NotEmpty(t, s)
		require.NotContains(t, out, s, "a secret was printed")
	}
}

// lockedBuffer is a bytes.Buffer safe to write from a goroutine while the
// test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ownerToken is the fake's owner's token as a stored user token.
func (b *testBundle) ownerToken() api.UserToken {
	o := b.fake.Srv.Options()
	return api.UserToken{Token: o.OwnerToken, Secret: o.OwnerSecret, UserID: o.OwnerUserID, ScreenName: o.OwnerScreenName,
		AccessType: api.AccessWrite}
}
