package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
)

// syncBundle is a fake service, a migrated database and a running worker.
type syncBundle struct {
	fake   *synctest.Fake
	pool   *pgxpool.Pool
	deps   *jobs.Deps
	client *river.Client[pgx.Tx]
}

func setupSync(t *testing.T, tweak func(*fixtures.Options), depsTweak func(*jobs.Deps, *synctest.Fake)) *syncBundle {
	t.Helper()
	fake := synctest.NewFake(t, func(o *fixtures.Options) {
		// About 2,000 of the tens of thousands of locations: a run of every
		// entity syncs the whole list, which only the targeting option
		// tests learn from (they ask for the whole list: Locations 0).
		o.Locations = 2000
		if tweak != nil {
			tweak(o)
		}
	})
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	deps := jobstest.Deps(t, fake, pool)
	if depsTweak != nil {
		depsTweak(deps, fake)
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

// patience is how long a test waits for work that takes seconds on a quiet
// machine: only a hang takes longer, while a loaded machine running the
// package's other tests at once may take a minute or more.
const patience = 5 * time.Minute

func waitRun(t *testing.T, pool *pgxpool.Pool, id int64) store.Run {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		r, err := store.GetRun(context.Background(), pool, id)
		require.NoError(t, err)
		var open int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job
WHERE kind IN ('sync_run', 'sync_unit') AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&open))
		if r.Outcome != "running" && open == 0 {
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
	"promoted_posts": {"promoted_posts"}, "tracking_tags": {"tracking_tags"}, "account_apps": {"account_apps"},
	"posts":            {"posts_draft", "posts_published", "posts_scheduled"},
	"custom_audiences": {"custom_audiences"}, "tailored_audience_permissions": {"tailored_audience_permissions"},
	"promotable_users": {"promotable_users"}, "scheduled_promoted_posts": {"scheduled_promoted_posts"},
	"preroll_call_to_actions": {"preroll_call_to_actions"}, "web_event_tags": {"web_event_tags"},
	"app_event_tags": {"app_event_tags"}, "scheduled_posts": {"posts_scheduled"}, "draft_posts": {"posts_draft"},
	"media_library": {"media_library"}, "targeting_criteria": {"targeting_criteria"},
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
			if table == "media_library" {
				// Deleted media items never list: a first sync stores the
				// live ones only.
				require.Equal(t, [2]int{want[0], 0}, got[acct], "%s of account %s (live, deleted)", table, acct)
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

// rowState is what a rewrite would change.
type rowState struct{ hash, synced, xmin string }

func rowStates(t *testing.T, pool *pgxpool.Pool, table string) map[string]rowState {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT id, doc_hash, last_synced_at::text, xmin::text FROM `+table)
	require.NoError(t, err)
	out := map[string]rowState{}
	for rows.Next() {
		var id string
		var s rowState
		require.NoError(t, rows.Scan(&id, &s.hash, &s.synced, &s.xmin))
		out[id] = s
	}
	require.NoError(t, rows.Err())
	return out
}

func entityCounts(r store.Run, entity string) store.EntityCounts {
	for _, e := range r.Entities {
		if e.Entity == entity {
			return e
		}
	}
	return store.EntityCounts{}
}

func TestIncrementalRunStoresChangesAndTombstonesAndLeavesOtherRowsUntouched(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, func(d *jobs.Deps, _ *synctest.Fake) { d.SyncPageSize = 5 })
	first := b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}})
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	fullPages := b.fake.Srv.Stats().Family("GET /12/accounts/{account_id}/campaigns").Requests
	before := rowStates(t, b.pool, "campaigns")

	res, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "campaigns", Add: 2, Change: 3, Delete: 2})
	require.NoError(t, err)
	second := b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}})
	require.Equal(t, "succeeded", second.Outcome, second.Error)

	// Incremental: it stopped at the bookmark minus the overlap.
	incPages := b.fake.Srv.Stats().Family("GET /12/accounts/{account_id}/campaigns").Requests - fullPages
	require.Less(t, incPages, fullPages)

	truth := b.fake.Srv.AdsTruth()
	got := tableCounts(t, b.pool, "campaigns")
	for acct, per := range truth.Accounts {
		if acct == "" || per["campaigns"].Live+per["campaigns"].Deleted == 0 {
			continue
		}
		require.Equal(t, [2]int{per["campaigns"].Live, per["campaigns"].Deleted}, got[acct], "account %s", acct)
	}
	after := rowStates(t, b.pool, "campaigns")
	touched := map[string]bool{}
	for _, id := range append(append(append([]string{}, res.Added...), res.Changed...), res.Deleted...) {
		touched[id] = true
	}
	for _, id := range res.Added {
		require.Contains(t, after, id)
		require.NotContains(t, before, id)
	}
	for _, id := range append(append([]string{}, res.Changed...), res.Deleted...) {
		require.NotEqual(t, before[id].hash, after[id].hash, "campaign %s", id)
	}
	var deleted bool
	for _, id := range res.Deleted {
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT deleted FROM campaigns WHERE id = $1`, id).Scan(&deleted))
		require.True(t, deleted, "campaign %s is a tombstone", id)
	}
	untouched := 0
	for id, s := range before {
		if !touched[id] {
			require.Equal(t, s, after[id], "campaign %s was rewritten", id)
			untouched++
		}
	}
	require.Positive(t, untouched)
	c := entityCounts(second, "campaigns")
	n := int64(len(res.ByAccount))
	require.Equal(t, 2*n, c.Inserted)
	require.Equal(t, 5*n, c.Updated)
	require.Equal(t, 2*n, c.Deleted)
	require.Equal(t, c.Fetched, c.Inserted+c.Updated+c.Unchanged)
}

func TestReferenceDataIsRefetchedOnlyAfterADayOrWithFull(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	only := []string{"iab_categories", "bidding_rules"}
	for i, args := range []jobs.SyncRunArgs{{Entities: only}, {Entities: only}, {Entities: only, Full: true}} {
		r := b.run(t, args)
		require.Equal(t, "succeeded", r.Outcome, r.Error)
		want := []int{0, 1, 0}[i]
		require.Equal(t, want, entityCounts(r, "iab_categories").SkippedUnits, "run %d", i+1)
	}
	var queued int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job
WHERE kind = 'sync_unit' AND args->>'entity' = 'iab_categories'`).Scan(&queued))
	require.Equal(t, 2, queued, "the run that skips them queues no job for them")
	st := b.fake.Srv.Stats()
	require.Equal(t, 2, st.Family("GET /12/iab_categories").Requests)
	require.Equal(t, 2, st.Family("GET /12/bidding_rules").Requests)

	// A day later the data is stale again.
	_, err := b.pool.Exec(context.Background(), `UPDATE sync_bookmarks SET last_success_at = now() - interval '25 hours'`)
	require.NoError(t, err)
	r := b.run(t, jobs.SyncRunArgs{Entities: only})
	require.Zero(t, entityCounts(r, "iab_categories").SkippedUnits)
	require.Equal(t, 3, b.fake.Srv.Stats().Family("GET /12/iab_categories").Requests)
}

// setupOneAttempt is setupSync for 60 campaigns of one account, synced
// 10 a page by a client that sends each request once: a 500 ends the job's
// attempt.
func setupOneAttempt(t *testing.T) *syncBundle {
	t.Helper()
	return setupSync(t, func(o *fixtures.Options) { o.Accounts, o.CampaignsPerAccount = 1, 60 }, func(d *jobs.Deps, fake *synctest.Fake) {
		d.SyncPageSize = 10
		cfg := fake.Config(d.Pool)
		cfg.MaxAttempts = 1
		c, err := api.NewClient(cfg)
		require.NoError(t, err)
		d.API = c
	})
}

func TestInterruptedUnitResumesFromItsCheckpointWithoutDuplicates(t *testing.T) {
	t.Parallel()
	b := setupOneAttempt(t)
	// The third page request fails: pages one and two are stored with
	// their cursor, the retry must ask for page three, not page one.
	b.fake.Srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/campaigns", Method: "GET", Every: 3, Times: 1, Kind: fixtures.Fault500})
	r := b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}, Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)

	truth := b.fake.Srv.AdsTruth()
	var records int
	for _, per := range truth.Accounts {
		records += per["campaigns"].Live + per["campaigns"].Deleted
	}
	pages := (records + 9) / 10
	require.Equal(t, pages+1, b.fake.Srv.Stats().Family("GET /12/accounts/{account_id}/campaigns").Requests,
		"every page once, plus the failed request")
	c := entityCounts(r, "campaigns")
	require.Equal(t, int64(records), c.Fetched, "no page was fetched twice")
	require.Equal(t, int64(records), c.Inserted)
	var attempts int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT attempt FROM river_job WHERE kind = 'sync_unit' AND args->>'entity' = 'campaigns'`).Scan(&attempts))
	require.Equal(t, 2, attempts)
}

func TestTwoWorkersRunEachUnitOnce(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	jobstest.StartWorker(t, jobstest.Deps(t, b.fake, b.pool), jobs.Options{})
	r := b.run(t, jobs.SyncRunArgs{Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	accounts := len(b.fake.Srv.AdsTruth().Accounts) - 1 // one account is deleted
	st := b.fake.Srv.Stats()
	for _, fam := range []string{"campaigns", "line_items", "cards", "cards/poll", "tracking_tags", "authenticated_user_access"} {
		require.Equal(t, accounts, st.Family("GET /12/accounts/{account_id}/"+fam).Requests, fam)
	}
	require.Equal(t, 3*accounts, st.Family("GET /12/accounts/{account_id}/posts").Requests)
	var jobsRun, units int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'sync_unit' AND state = 'completed'`).Scan(&jobsRun))
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM sync_run_units WHERE state = 'succeeded' AND entity <> 'accounts'`).Scan(&units))
	require.Equal(t, units, jobsRun)
}

func TestRateLimitedUnitSnoozesInsteadOfFailing(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, func(d *jobs.Deps, fake *synctest.Fake) {
		cfg := fake.Config(d.Pool)
		// Waits longer than a second become snoozes.
		cfg.Governor.MaxWait = time.Second
		c, err := api.NewClient(cfg)
		require.NoError(t, err)
		d.API = c
	})
	b.fake.Srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/line_items", Method: "GET", Times: 1,
		Kind: fixtures.Fault429, RetryAfter: 2})
	r := b.run(t, jobs.SyncRunArgs{Entities: []string{"line_items"}})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	require.Equal(t, 1, b.fake.Srv.Stats().Family("GET /12/accounts/{account_id}/line_items").Throttled)
	var errs int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'sync_unit' AND coalesce(array_length(errors, 1), 0) > 0`).Scan(&errs))
	require.Zero(t, errs, "a rate-limit wait is not a failed attempt")
	var snoozed int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'sync_unit' AND (metadata->>'snoozes')::int > 0`).Scan(&snoozed))
	require.Positive(t, snoozed)
}

func TestPostsRemovedForGoodBecomeTombstonesAtTheNextRun(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	first := b.run(t, jobs.SyncRunArgs{Entities: []string{"posts"}})
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	res, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "posts_draft", Delete: 1})
	require.NoError(t, err)
	require.NotEmpty(t, res.Deleted)

	second := b.run(t, jobs.SyncRunArgs{Entities: []string{"posts"}})
	require.Equal(t, "succeeded", second.Outcome, second.Error)
	require.Equal(t, int64(len(res.Deleted)), entityCounts(second, "posts").Deleted)
	for _, id := range res.Deleted {
		var deleted bool
		var postType string
		require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT deleted, post_type FROM posts WHERE id = $1`, id).Scan(&deleted, &postType))
		require.True(t, deleted, "draft post %s is kept as a tombstone", id)
		require.Equal(t, "DRAFT", postType)
	}
	var live int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM posts WHERE NOT deleted`).Scan(&live))
	require.Equal(t, b.fake.Srv.AdsTruth().Totals["posts_draft"].Live+b.fake.Srv.AdsTruth().Totals["posts_published"].Live+
		b.fake.Srv.AdsTruth().Totals["posts_scheduled"].Live, live)
}

func TestScheduledRunRecordsItselfAndItsCounts(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	args, opts := jobs.ScheduledJob(jobs.PipelineSync)
	require.NotNil(t, args)
	_, err := b.client.Insert(context.Background(), args, opts)
	require.NoError(t, err)
	var id int64
	require.Eventually(t, func() bool {
		return b.pool.QueryRow(context.Background(), `SELECT id FROM sync_runs WHERE trigger = 'schedule'`).Scan(&id) == nil
	}, patience, 50*time.Millisecond)
	r := waitRun(t, b.pool, id)
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	var counts map[string]map[string]int64
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT counts FROM sync_runs WHERE id = $1`, id).Scan(&counts))
	require.Equal(t, entityCounts(r, "campaigns").Fetched, counts["campaigns"]["fetched"])
	require.Positive(t, counts["campaigns"]["inserted"])
	var runs int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM sync_runs`).Scan(&runs))
	require.Equal(t, 1, runs)
}

func TestAccountNoLongerListedIsLeftOutWithItsRecordsKeptUntilAccessReturns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSync(t, nil, nil)
	only := []string{"campaigns"}
	first := b.run(t, jobs.SyncRunArgs{Entities: only})
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	require.Empty(t, first.InaccessibleAccounts)
	var lost string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT account_id FROM campaigns GROUP BY account_id ORDER BY account_id LIMIT 1`).Scan(&lost))
	kept := tableCounts(t, b.pool, "campaigns")[lost]
	require.Positive(t, kept[0])

	require.NoError(t, b.fake.Srv.SetAccountAccess(fixtures.AccountAccess{AccountID: lost, Revoked: true}))
	family := "GET /12/accounts/{account_id}/campaigns"
	before := b.fake.Srv.Stats().Family(family).Requests
	second := b.run(t, jobs.SyncRunArgs{Entities: only})
	require.Equal(t, "succeeded", second.Outcome, second.Error)
	require.Equal(t, []string{lost}, second.InaccessibleAccounts)
	accounts := len(b.fake.Srv.AdsTruth().Accounts) - 2 // one is deleted, one out of reach
	require.Equal(t, accounts, entityCounts(second, "campaigns").Units, "no unit for the account out of reach")
	require.Equal(t, accounts, b.fake.Srv.Stats().Family(family).Requests-before)
	require.Equal(t, kept, tableCounts(t, b.pool, "campaigns")[lost], "its records are kept as they were")
	var deleted, inaccessible bool
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT deleted, inaccessible_since IS NOT NULL FROM accounts WHERE id = $1`, lost).Scan(&deleted, &inaccessible))
	require.False(t, deleted, "an account out of reach is not deleted")
	require.True(t, inaccessible)

	// An incremental run asked for by account id leaves it out too.
	byID := b.run(t, jobs.SyncRunArgs{AccountIDs: []string{lost}, Entities: only})
	require.Equal(t, "succeeded", byID.Outcome, byID.Error)
	require.Equal(t, []string{lost}, byID.InaccessibleAccounts)
	require.Zero(t, entityCounts(byID, "campaigns").Units)

	require.NoError(t, b.fake.Srv.SetAccountAccess(fixtures.AccountAccess{AccountID: lost, Revoked: false}))
	third := b.run(t, jobs.SyncRunArgs{Entities: only})
	require.Equal(t, "succeeded", third.Outcome, third.Error)
	require.Empty(t, third.InaccessibleAccounts)
	require.Equal(t, accounts+1, entityCounts(third, "campaigns").Units, "syncing it resumes")
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT inaccessible_since IS NOT NULL FROM accounts WHERE id = $1`, lost).Scan(&inaccessible))
	require.False(t, inaccessible)
}

// holdUnit makes a job of another run hold the (global) unit entity, as a
// worker running it would, with that run's unit in state; it returns the
// job's id.
func (b *syncBundle) holdUnit(t *testing.T, entity, state string) int64 {
	t.Helper()
	ctx := context.Background()
	runID, err := jobs.CreateSyncRun(ctx, b.deps, jobs.SyncRunArgs{Entities: []string{entity}})
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `INSERT INTO sync_run_units (run_id, entity, state) VALUES ($1, $2, $3)`, runID, entity, state)
	require.NoError(t, err)
	// Scheduled far ahead so no worker takes it, then shown running.
	res, err := b.client.Insert(ctx, jobs.SyncUnitArgs{RunID: runID, Entity: entity}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() WHERE id = $1`, res.Job.ID)
	require.NoError(t, err)
	return res.Job.ID
}

// finishJob marks a job completed as River does once its work returned.
func (b *syncBundle) finishJob(t *testing.T, id int64) {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`, id)
	require.NoError(t, err)
}

// start records a run and inserts its job.
func (b *syncBundle) start(t *testing.T, args jobs.SyncRunArgs) int64 {
	t.Helper()
	id, err := jobs.CreateSyncRun(context.Background(), b.deps, args)
	require.NoError(t, err)
	args.RunID = id
	_, err = b.client.Insert(context.Background(), args, nil)
	require.NoError(t, err)
	return id
}

func TestUnitHeldByAJobThatAlreadyEndedItIsQueuedNotSkipped(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	// The previous run's job synced the unit and returned; River has not
	// yet marked it completed when the next run fans out.
	holder := b.holdUnit(t, "bidding_rules", store.UnitSucceeded)
	id := b.start(t, jobs.SyncRunArgs{Entities: []string{"bidding_rules"}})
	time.Sleep(500 * time.Millisecond)
	b.finishJob(t, holder)
	r := waitRun(t, b.pool, id)
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	c := entityCounts(r, "bidding_rules")
	require.Zero(t, c.SkippedUnits, "nothing else would sync it for this run")
	require.Positive(t, c.Fetched)
	require.Equal(t, 1, b.fake.Srv.Stats().Family("GET /12/bidding_rules").Requests)
}

func TestUnitHeldByAJobStillWorkingOnItIsSkipped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSync(t, nil, nil)
	holder := b.holdUnit(t, "bidding_rules", store.UnitRunning)
	id := b.start(t, jobs.SyncRunArgs{Entities: []string{"bidding_rules"}})
	require.Eventually(t, func() bool {
		r, err := store.GetRun(ctx, b.pool, id)
		require.NoError(t, err)
		return r.Outcome != "running"
	}, patience, 20*time.Millisecond)
	b.finishJob(t, holder)
	r := waitRun(t, b.pool, id)
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	require.Equal(t, 1, entityCounts(r, "bidding_rules").SkippedUnits, "the holder does the work")
	require.Zero(t, b.fake.Srv.Stats().Family("GET /12/bidding_rules").Requests)
}
