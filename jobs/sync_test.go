package jobs_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

// syncBundle is a fake service, a migrated database and a running worker.
type syncBundle struct {
	fake   *jobstest.Fake
	pool   *pgxpool.Pool
	deps   *jobs.Deps
	client *river.Client[pgx.Tx]
}

func setupSync(t *testing.T, tweak func(*fixtures.Options), depsTweak func(*jobs.Deps)) *syncBundle {
	t.Helper()
	fake := jobstest.NewFake(t, tweak)
	pool := jobstest.Pool(t, jobstest.MigratedDatabase(t))
	deps := fake.Deps(t, pool)
	if depsTweak != nil {
		depsTweak(deps)
	}
	c := jobstest.StartWorker(t, deps, jobs.Options{})
	return &syncBundle{fake: fake, pool: pool, deps: deps, client: c}
}

// run records a run, inserts its job and waits for its outcome.
func (b *syncBundle) run(t *testing.T, args jobs.SyncRunArgs) store.Run {
	t.Helper()
	ctx := context.Background()
	id, err := jobs.CreateSyncRun(ctx, b.deps, args)
	require.NoError(t, err)
	args.RunID = id
	_, err = b.client.Insert(ctx, args, nil)
	require.NoError(t, err)
	return waitRun(t, b.pool, id)
}

func waitRun(t *testing.T, pool *pgxpool.Pool, id int64) store.Run {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := store.GetRun(context.Background(), pool, id)
		require.NoError(t, err)
		if r.Outcome != "running" {
			return r
		}
		if time.Now().After(deadline) {
			rows, _ := pool.Query(context.Background(), `SELECT account_id, entity, state, started_at, finished_at, error FROM sync_run_units WHERE state IN ('pending', 'running')`)
			for rows.Next() {
				var a, e, st string
				var s1, f1 *time.Time
				var er *string
				_ = rows.Scan(&a, &e, &st, &s1, &f1, &er)
				t.Log(a, e, st, s1, f1, er)
			}
			rows.Close()
			rows, _ = pool.Query(context.Background(), `SELECT kind, state, attempt, errors::text, args::text FROM river_job WHERE state <> 'completed'`)
			for rows.Next() {
				var k, st, er, ar string
				var at int
				_ = rows.Scan(&k, &st, &at, &er, &ar)
				t.Log(k, st, at, er, ar)
			}
			rows.Close()
			t.Fatalf("run %d did not finish", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tableCounts counts live and deleted rows of table per account.
func tableCounts(t *testing.T, pool *pgxpool.Pool, table string) map[string][2]int {
	t.Helper()
	rows, err := pool.Query(context.Background(),
		`SELECT account_id, count(*) FILTER (WHERE NOT deleted), count(*) FILTER (WHERE deleted) FROM `+table+` GROUP BY account_id`)
	require.NoError(t, err)
	out := map[string][2]int{}
	for rows.Next() {
		var a string
		var live, del int
		require.NoError(t, rows.Scan(&a, &live, &del))
		out[a] = [2]int{live, del}
	}
	require.NoError(t, rows.Err())
	return out
}

// truthKinds maps tables to the fake's kinds.
var truthKinds = map[string][]string{
	"funding_instruments": {"funding_instruments"}, "campaigns": {"campaigns"}, "line_items": {"line_items"},
	"cards": {"cards"}, "cards_poll": {"cards_poll"}, "cards_image_conversation": {"cards_image_conversation"},
	"cards_video_conversation": {"cards_video_conversation"}, "account_media": {"account_media"},
	"media_creatives": {"media_creatives"}, "promoted_accounts": {"promoted_accounts"},
	"promoted_posts": {"promoted_posts"}, "tracking_tags": {"tracking_tags"},
	"posts":            {"posts_draft", "posts_published", "posts_scheduled"},
	"custom_audiences": {"custom_audiences"}, "tailored_audience_permissions": {"tailored_audience_permissions"},
}

func TestFullSyncStoresEveryEntityAsTheServiceHoldsIt(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	r := b.run(t, jobs.SyncRunArgs{Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	truth := b.fake.Srv.AdsTruth()
	accts := tableCounts(t, b.pool, "(SELECT '' AS account_id, deleted FROM accounts) a")
	require.Equal(t, [2]int{truth.Totals["accounts"].Live, truth.Totals["accounts"].Deleted}, accts[""])
	for table, kinds := range truthKinds {
		got := tableCounts(t, b.pool, table)
		for acct, per := range truth.Accounts {
			var want [2]int
			for _, k := range kinds {
				want[0] += per[k].Live
				want[1] += per[k].Deleted
			}
			if want == [2]int{} {
				continue
			}
			if table == "tailored_audience_permissions" {
				// A deleted audience's permissions cannot be listed (its
				// path answers 404), so only live ones are comparable.
				require.Equal(t, want[0], got[acct][0], "live %s of account %s", table, acct)
				continue
			}
			require.Equal(t, want, got[acct], "%s of account %s (live, deleted)", table, acct)
		}
	}
	for _, table := range []string{"account_user_access", "custom_audience_targeting", "iab_categories", "content_categories",
		"bidding_rules", "line_item_placements", "advertiser_business_categories"} {
		var n int
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n))
		require.Positive(t, n, table)
	}
}

