package jobs_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// ExampleCreateSyncRun runs one sync of an account's campaigns and line
// items: the service is the fake from package fixtures (one account, its
// data generated from a fixed seed and hour), the database a test database
// migrated by package migrations, and River works the run's jobs in this
// process, as `adsync sync --wait` does.
func ExampleCreateSyncRun() {
	ctx := context.Background()
	opts := fixtures.DefaultOptions()
	opts.Accounts = 1
	opts.Anchor = time.Date(2026, time.January, 5, 12, 0, 0, 0, time.UTC)
	fake := httptest.NewServer(fixtures.New(opts))
	defer fake.Close()
	apiURL, adsURL, _ := fixtures.URLs(fake.URL)

	dbURL, drop, err := synctest.CreateMigratedDatabase()
	if err != nil {
		log.Fatal(err)
	}
	defer drop()
	pool, err := store.Connect(ctx, dbURL, store.ConnectOptions{MaxConns: 8})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	client, err := api.NewClient(api.Config{
		APIURL: apiURL,
		AdsURL: adsURL,
		Credentials: api.Credentials{
			ConsumerKey:    opts.ConsumerKey,
			ConsumerSecret: opts.ConsumerSecret,
		},
		UserToken: &api.Token{Token: opts.OwnerToken, Secret: opts.OwnerSecret},
	})
	if err != nil {
		log.Fatal(err)
	}
	deps := &jobs.Deps{Pool: pool, API: client, Log: zap.NewNop()}
	worker, err := jobs.NewClient(deps, jobs.Options{Work: true, Queues: []string{jobs.QueueSync}})
	if err != nil {
		log.Fatal(err)
	}
	if err := worker.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer worker.Stop(ctx)

	args := jobs.SyncRunArgs{Entities: []string{"campaigns", "line_items"}}
	if args.RunID, err = jobs.CreateSyncRun(ctx, deps, args); err != nil {
		log.Fatal(err)
	}
	if _, err := worker.Insert(ctx, args, nil); err != nil {
		log.Fatal(err)
	}
	run := waitForRun(ctx, pool, args.RunID)
	fmt.Println("outcome:", run.Outcome)
	for _, e := range run.Entities {
		fmt.Printf("%s: %d fetched, %d inserted\n", e.Entity, e.Fetched, e.Inserted)
	}
	rows, err := pool.Query(ctx, `SELECT id, name, entity_status FROM campaigns ORDER BY id LIMIT 3`)
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
		var id, name, status string
		if err := rows.Scan(&id, &name, &status); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("campaign %s %q %s\n", id, name, status)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// outcome: succeeded
	// accounts: 2 fetched, 2 inserted
	// campaigns: 25 fetched, 25 inserted
	// line_items: 50 fetched, 50 inserted
	// campaign 9iyfs "Beacon Launch Campaign 317" ACTIVE
	// campaign 9iyxz "Beacon Quartz Campaign 241" PAUSED
	// campaign 9iz3k "Retarget Summer Campaign 849" ACTIVE
}

// waitForRun polls the run until it has finished.
func waitForRun(ctx context.Context, pool *pgxpool.Pool, id int64) store.Run {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		run, err := store.GetRun(ctx, pool, id)
		if err != nil {
			log.Fatal(err)
		}
		if run.Outcome != "running" {
			return run
		}
		time.Sleep(50 * time.Millisecond)
	}
}
