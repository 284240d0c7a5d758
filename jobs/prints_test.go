package jobs_test

import (
	"context"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// unitPages sums the pages a run's units of entity listed, and those of
// them found unchanged by their print.
func unitPages(t *testing.T, pool *pgxpool.Pool, runID int64, entity string) (pages, known int) {
	t.Helper()
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT coalesce(sum(pages), 0), coalesce(sum(known_pages), 0)
FROM sync_run_units WHERE run_id = $1 AND entity = $2`, runID, entity).Scan(&pages, &known))
	return pages, known
}

// unitAttempts is how many attempts the run's one sync unit took.
func unitAttempts(t *testing.T, pool *pgxpool.Pool, runID int64) (n int) {
	t.Helper()
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT attempt FROM river_job WHERE kind = 'sync_unit' AND (args->>'run_id')::bigint = $1`, runID).Scan(&n))
	return n
}

// requireTruth checks the table's live and deleted rows per account against
// the fake's.
func requireTruth(t *testing.T, b *syncBundle, entity string) {
	t.Helper()
	truth := b.fake.Srv.AdsTruth()
	got := tableCounts(t, b.pool, entity)
	for acct, per := range truth.Accounts {
		if acct == "" || per[entity].Live+per[entity].Deleted == 0 {
			continue
		}
		require.Equal(t, [2]int{per[entity].Live, per[entity].Deleted}, got[acct], "%s of account %s", entity, acct)
	}
}

func TestUnchangedFullRunFindsEveryPageByItsPrintAndWritesNoRow(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, func(d *jobs.Deps, _ *synctest.Fake) { d.SyncPageSize = 5 })
	full := jobs.SyncRunArgs{Entities: []string{"campaigns"}, Full: true}
	first := b.run(t, full)
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	pages, known := unitPages(t, b.pool, first.ID, "campaigns")
	require.Positive(t, pages)
	require.Zero(t, known, "a first run has no prints to find")
	before := rowStates(t, b.pool, "campaigns")

	second := b.run(t, full)
	require.Equal(t, "succeeded", second.Outcome, second.Error)
	pages, known = unitPages(t, b.pool, second.ID, "campaigns")
	require.Equal(t, pages, known, "every page of an unchanged listing is known by its print")
	c := entityCounts(second, "campaigns")
	require.EqualValues(t, len(before), c.Fetched)
	require.EqualValues(t, len(before), c.Unchanged)
	require.Zero(t, c.Inserted+c.Updated+c.Deleted)
	require.Equal(t, before, rowStates(t, b.pool, "campaigns"), "no row was written")

	// Records added, changed, deleted and gone for good: their pages are
	// read again, the others not, and the table follows the service.
	_, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "campaigns", Add: 2, Change: 2, Delete: 2})
	require.NoError(t, err)
	third := b.run(t, full)
	require.Equal(t, "succeeded", third.Outcome, third.Error)
	pages, known = unitPages(t, b.pool, third.ID, "campaigns")
	require.Less(t, known, pages)
	require.Positive(t, known)
	requireTruth(t, b, "campaigns")

	fourth := b.run(t, full)
	require.Equal(t, "succeeded", fourth.Outcome, fourth.Error)
	pages, known = unitPages(t, b.pool, fourth.ID, "campaigns")
	require.Equal(t, pages, known, "the prints kept by a run that stored changes are trusted next")
	requireTruth(t, b, "campaigns")
}

func TestRowsDeletedByHandAreStoredAgainByTheNextFullRun(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, func(d *jobs.Deps, _ *synctest.Fake) { d.SyncPageSize = 5 })
	full := jobs.SyncRunArgs{Entities: []string{"campaigns", "line_items"}, Full: true}
	first := b.run(t, full)
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	ctx := context.Background()
	var acct string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT account_id FROM campaigns GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`).Scan(&acct))
	tag, err := b.pool.Exec(ctx, `DELETE FROM campaigns WHERE account_id = $1 AND id IN (SELECT id FROM campaigns WHERE account_id = $1 LIMIT 2)`, acct)
	require.NoError(t, err)
	require.EqualValues(t, 2, tag.RowsAffected())
	_, err = b.pool.Exec(ctx, `TRUNCATE line_items`)
	require.NoError(t, err)

	second := b.run(t, full)
	require.Equal(t, "succeeded", second.Outcome, second.Error)
	for _, e := range full.Entities {
		pages, known := unitPages(t, b.pool, second.ID, e)
		require.Positive(t, pages)
		require.Zero(t, known, "%s: rows deleted by hand distrust the table's prints", e)
		requireTruth(t, b, e)
	}
}

func TestAnIncrementalRunEndsTheTrustInPrints(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, func(d *jobs.Deps, _ *synctest.Fake) { d.SyncPageSize = 5 })
	full := jobs.SyncRunArgs{Entities: []string{"campaigns"}, Full: true}
	require.Equal(t, "succeeded", b.run(t, full).Outcome)
	_, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "campaigns", Change: 2})
	require.NoError(t, err)
	inc := b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}})
	require.Equal(t, "succeeded", inc.Outcome, inc.Error)
	_, known := unitPages(t, b.pool, inc.ID, "campaigns")
	require.Zero(t, known, "an incremental listing does not use prints")
	var trusted int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM sync_bookmarks WHERE entity = 'campaigns' AND prints_run IS NOT NULL`).Scan(&trusted))
	require.Zero(t, trusted, "rows written by an incremental unit are not what the prints say")

	next := b.run(t, full)
	require.Equal(t, "succeeded", next.Outcome, next.Error)
	_, known = unitPages(t, b.pool, next.ID, "campaigns")
	require.Zero(t, known)
	requireTruth(t, b, "campaigns")
}

// Every printed entity's table distrusts its prints when rows are deleted
// by hand: a table added without the trigger would keep trusting them.
func TestEveryPrintedTableHasItsDistrustTrigger(t *testing.T) {
	t.Parallel()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	rows, err := pool.Query(context.Background(), `SELECT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
WHERE g.tgname = c.relname || '_distrust_prints'`)
	require.NoError(t, err)
	have := map[string]bool{}
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		have[name] = true
	}
	require.NoError(t, rows.Err())
	for _, e := range ads.Entities() {
		if e.Printed() {
			require.True(t, have[e.Name], "table %s has no %s_distrust_prints trigger", e.Name, e.Name)
		}
	}
}

// An empty listed page is stored by no transaction of its own: its unit
// counts it as it ends.
func TestAnEmptyListingCountsItsPageAtTheUnitsEnd(t *testing.T) {
	t.Parallel()
	// No media, no card: every account's card listing is one empty page.
	b := setupSync(t, func(o *fixtures.Options) { o.Accounts, o.CardsPerAccount, o.MediaPerAccount = 2, 0, 0 }, nil)
	full := jobs.SyncRunArgs{Entities: []string{"cards"}, Full: true}
	r := b.run(t, full)
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	var units, succeeded, pages, fetched int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE state = 'succeeded'),
    coalesce(sum(pages), 0), coalesce(sum(fetched), 0) FROM sync_run_units WHERE run_id = $1 AND entity = 'cards'`, r.ID).
		Scan(&units, &succeeded, &pages, &fetched))
	require.Positive(t, units)
	require.Equal(t, units, succeeded)
	require.Equal(t, units, pages, "one empty page listed and counted per unit")
	require.Zero(t, fetched)
	require.Equal(t, units, b.fake.Srv.Stats().Family("GET /12/accounts/{account_id}/cards").Requests)

	var rows int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM cards`).Scan(&rows))
	require.Zero(t, rows)
}

func TestAUnitResumesAfterThePagesItFoundByPrintAndCountsEachOnce(t *testing.T) {
	t.Parallel()
	b := setupOneAttempt(t)
	full := jobs.SyncRunArgs{Entities: []string{"campaigns"}, Full: true}
	first := b.run(t, full)
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	before := rowStates(t, b.pool, "campaigns")
	records := len(before)
	pages := (records + 9) / 10
	require.Greater(t, pages, 3)

	// The second run's third page request fails: its first two pages were
	// found by their print, each counted with the cursor after it in one
	// statement, so the retry asks for page three, not page one.
	family := "GET /12/accounts/{account_id}/campaigns"
	sent := b.fake.Srv.Stats().Family(family).Requests
	b.fake.Srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/campaigns", Method: "GET", Every: 3, Times: 1, Kind: fixtures.Fault500})
	second := b.run(t, full)
	require.Equal(t, "succeeded", second.Outcome, second.Error)
	require.Equal(t, pages+1, b.fake.Srv.Stats().Family(family).Requests-sent, "every page once, plus the failed request")
	c := entityCounts(second, "campaigns")
	require.EqualValues(t, records, c.Fetched, "no page counted twice")
	require.EqualValues(t, records, c.Unchanged)
	require.Zero(t, c.Inserted+c.Updated+c.Deleted)
	listed, known := unitPages(t, b.pool, second.ID, "campaigns")
	require.Equal(t, pages, listed)
	require.GreaterOrEqual(t, known, 2, "the pages before the failure were found by their print")
	require.Equal(t, before, rowStates(t, b.pool, "campaigns"), "no row was written")
	require.Equal(t, 2, unitAttempts(t, b.pool, second.ID), "one retry")

	// The resumed unit kept every page's print: the next run finds them all.
	third := b.run(t, full)
	require.Equal(t, "succeeded", third.Outcome, third.Error)
	listed, known = unitPages(t, b.pool, third.ID, "campaigns")
	require.Equal(t, listed, known)
	requireTruth(t, b, "campaigns")
}

// An incremental unit that lists records equal to their rows (the overlap
// of its bookmark) counts each such page with its cursor in one statement:
// after a failed request the retry asks for the next page, not the first,
// counts every page once and writes no row. A page with a changed record is
// stored by its transaction as before.
func TestAnIncrementalUnitResumesAfterItsUnchangedPagesAndCountsEachOnce(t *testing.T) {
	t.Parallel()
	b := setupOneAttempt(t)
	incremental := jobs.SyncRunArgs{Entities: []string{"campaigns"}}
	first := b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}, Full: true})
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	// Changed records: the next incremental run stores them, and the one
	// after lists them again (they are within its overlap), unchanged.
	_, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "campaigns", Change: 35})
	require.NoError(t, err)
	second := b.run(t, incremental)
	require.Equal(t, "succeeded", second.Outcome, second.Error)
	require.EqualValues(t, 35, entityCounts(second, "campaigns").Updated)
	requireTruth(t, b, "campaigns")
	before := rowStates(t, b.pool, "campaigns")

	family := "GET /12/accounts/{account_id}/campaigns"
	sent := b.fake.Srv.Stats().Family(family).Requests
	b.fake.Srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/campaigns", Method: "GET", Every: 3, Times: 1, Kind: fixtures.Fault500})
	third := b.run(t, incremental)
	require.Equal(t, "succeeded", third.Outcome, third.Error)
	listed, known := unitPages(t, b.pool, third.ID, "campaigns")
	require.GreaterOrEqual(t, listed, 4)
	require.Zero(t, known, "an incremental unit finds no page by its print")
	require.Equal(t, listed+1, b.fake.Srv.Stats().Family(family).Requests-sent, "every page once, plus the failed request")
	c := entityCounts(third, "campaigns")
	require.GreaterOrEqual(t, c.Fetched, int64(35))
	require.Equal(t, c.Fetched, c.Unchanged)
	require.Zero(t, c.Inserted+c.Updated+c.Deleted)
	require.Equal(t, before, rowStates(t, b.pool, "campaigns"), "no row was written")
	require.Equal(t, 2, unitAttempts(t, b.pool, third.ID), "one retry")

	// The same listing without a failure counts the same: none counted twice.
	fourth := b.run(t, incremental)
	require.Equal(t, "succeeded", fourth.Outcome, fourth.Error)
	require.Equal(t, c, entityCounts(fourth, "campaigns"))
	again, _ := unitPages(t, b.pool, fourth.ID, "campaigns")
	require.Equal(t, listed, again)
}

// A first load (no live row of the account as the unit starts) copies its
// pages without looking their records up. Over tombstones of the same ids
// the copy fails and each page is merged instead: the rows come back live,
// each counted once, and the next run trusts the pages' prints.
func TestAFirstLoadOverTombstonesMergesThePagesItCannotCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupOneAttempt(t)
	full := jobs.SyncRunArgs{Entities: []string{"campaigns"}, Full: true}
	first := b.run(t, full)
	require.Equal(t, "succeeded", first.Outcome, first.Error)
	records := len(rowStates(t, b.pool, "campaigns"))
	// Every row a tombstone, as a sweep leaves them, and no print trusted.
	_, err := b.pool.Exec(ctx, `UPDATE campaigns SET deleted = true, doc_hash = ''`)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `UPDATE sync_bookmarks SET prints_run = NULL`)
	require.NoError(t, err)

	second := b.run(t, full)
	require.Equal(t, "succeeded", second.Outcome, second.Error)
	c := entityCounts(second, "campaigns")
	require.EqualValues(t, records, c.Fetched)
	require.EqualValues(t, records, c.Updated+c.Unchanged, "each record once")
	require.Zero(t, c.Inserted)
	requireTruth(t, b, "campaigns")

	third := b.run(t, full)
	require.Equal(t, "succeeded", third.Outcome, third.Error)
	listed, known := unitPages(t, b.pool, third.ID, "campaigns")
	require.Equal(t, listed, known, "every page found by its print")
	require.Zero(t, entityCounts(third, "campaigns").Updated)
}
