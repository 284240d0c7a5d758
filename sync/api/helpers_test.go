package api_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

// fake is a fake service for one test.
type fake struct {
	srv                *fixtures.Server
	apiURL, adsURL, sb string
}

func newFake(t *testing.T, tweak func(*fixtures.Options)) *fake {
	t.Helper()
	s := fixtures.Serve(t, func(o *fixtures.Options) {
		o.Accounts = 2
		if tweak != nil {
			tweak(o)
		}
	})
	return &fake{srv: s.Server, apiURL: s.APIURL, adsURL: s.AdsURL, sb: s.SandboxAdsURL}
}

// sleeps records the governor's waits instead of sleeping through long ones.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	// Sleep for real, but briefly: tests shrink windows to fit.
	if d > 2*time.Second {
		d = 2 * time.Second
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func (f *fake) config() api.Config {
	o := f.srv.Options()
	return api.Config{
		APIURL: f.apiURL, AdsURL: f.adsURL, SandboxAdsURL: f.sb,
		Credentials: api.Credentials{ConsumerKey: o.ConsumerKey, ConsumerSecret: o.ConsumerSecret},
		UserToken:   &api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret},
		Timeout:     5 * time.Second, BackoffBase: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond,
	}
}

func newClient(t *testing.T, cfg api.Config) *api.Client {
	t.Helper()
	c, err := api.NewClient(cfg)
	require.NoError(t, err)
	return c
}

// migratedPool is a pool on a fresh migrated database.
func migratedPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	url := localpg.NewDatabaseFrom(t, "migrated", func(ctx context.Context, url string) error {
		pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: 4})
		if err != nil {
			return err
		}
		defer pool.Close()
		_, err = migrations.Migrate(ctx, pool, nil)
		return err
	})
	pool, err := store.Connect(context.Background(), url, store.ConnectOptions{MaxConns: 8})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}
