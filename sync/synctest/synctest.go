package synctest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MigratedDatabase returns the URL of a fresh database with every migration
// applied (a copy of a template migrated once per test process), with an
// identity of its own (adsync_database.database_id, which marks the outputs
// an export owns), as a database migrated on its own has. The package's
// TestMain must call localpg.Main.
func MigratedDatabase(t testing.TB) string {
	t.Helper()
	url := localpg.NewDatabaseFrom(t, "migrated", migrate)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := newIdentity(ctx, url); err != nil {
		t.Fatalf("synctest: %v", err)
	}
	return url
}

// CreateMigratedDatabase is MigratedDatabase for code that has no
// testing.TB (a package's examples): it returns the database's URL and the
// function that drops it.
func CreateMigratedDatabase() (url string, drop func() error, err error) {
	url, drop, err = localpg.CreateDatabase("migrated", migrate)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := newIdentity(ctx, url); err != nil {
		_ = drop()
		return "", nil, err
	}
	return url, drop, nil
}

// newIdentity gives the copy at url an identity of its own, as a database
// migrated on its own has.
func newIdentity(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE adsync_database SET database_id = gen_random_uuid()`); err != nil {
		return fmt.Errorf("a new identity for the copy: %w", err)
	}
	return nil
}

// migrate applies every migration to the database at url.
func migrate(ctx context.Context, url string) error {
	pool, err := store.Connect(ctx, url, store.ConnectOptions{MaxConns: 4})
	if err != nil {
		return err
	}
	defer pool.Close()
	_, err = migrations.Migrate(ctx, pool, nil)
	return err
}

// Pool connects to url with room for a worker's concurrency.
func Pool(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := store.Connect(context.Background(), url, store.ConnectOptions{MaxConns: 20})
	if err != nil {
		t.Fatalf("synctest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Fake is a fake service served for one test.
type Fake struct {
	Srv                           *fixtures.Server
	APIURL, AdsURL, SandboxAdsURL string
}

// NewFake serves a fake built from DefaultOptions changed by tweak.
func NewFake(t testing.TB, tweak func(*fixtures.Options)) *Fake {
	t.Helper()
	s := fixtures.Serve(t, tweak)
	return &Fake{Srv: s.Server, APIURL: s.APIURL, AdsURL: s.AdsURL, SandboxAdsURL: s.SandboxAdsURL}
}

// Config is a client configuration for the fake with the owner's
// credentials, fast backoff, the fake's own clock (so a fake pinned to
// another date still accepts the client's signatures), and the governor's
// and bearer cache's state in pool (nil: in memory).
func (f *Fake) Config(pool *pgxpool.Pool) api.Config {
	o := f.Srv.Options()
	cfg := api.Config{
		APIURL: f.APIURL, AdsURL: f.AdsURL, SandboxAdsURL: f.SandboxAdsURL,
		Credentials: api.Credentials{ConsumerKey: o.ConsumerKey, ConsumerSecret: o.ConsumerSecret},
		UserToken:   &api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret},
		Timeout:     10 * time.Second, BackoffBase: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		Now: f.Srv.Now,
	}
	if pool != nil {
		cfg.Governor = api.NewGovernor(api.PGStore{Pool: pool})
		cfg.Bearer = api.NewBearerSource(api.PGBearerStore{Pool: pool})
	}
	return cfg
}

// Client is a service client for the fake.
func (f *Fake) Client(t testing.TB, pool *pgxpool.Pool) *api.Client {
	t.Helper()
	c, err := api.NewClient(f.Config(pool))
	if err != nil {
		t.Fatalf("synctest: %v", err)
	}
	return c
}
