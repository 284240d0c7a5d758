package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

const criteriaFamily = "GET /12/accounts/{account_id}/targeting_criteria"

// criteriaColumns are the typed columns of targeting_criteria, each the
// record's field of the same name.
var criteriaColumns = []string{"line_item_id", "name", "localized_name", "targeting_type", "targeting_value", "operator_type",
	"location_type", "tailored_audience_expansion", "tailored_audience_type"}

// requireCriteriaEqualTheService checks the stored criteria of every live
// account against the fake's records, column by column, and the counts
// against the ground truth: every criterion the service holds for the
// account's line items is stored, deleted line items' included, deleted
// exactly when the service says so (a line item's deletion does not
// cascade to its criteria). It returns how many of the criteria checked
// belong to deleted line items.
func requireCriteriaEqualTheService(t *testing.T, b *syncBundle) (ofDeletedLineItems int) {
	t.Helper()
	ctx := context.Background()
	truth := b.fake.Srv.AdsTruth()
	got := tableCounts(t, b.pool, "targeting_criteria")
	checked := 0
	for acct, per := range truth.Accounts {
		if per["accounts"].Deleted > 0 {
			continue
		}
		deletedLineItem := map[string]bool{}
		for _, id := range per["line_items"].DeletedIDs {
			deletedLineItem[id] = true
		}
		kt := per["targeting_criteria"]
		want := [2]int{kt.Live, kt.Deleted}
		for _, id := range append(slices.Clone(kt.IDs), kt.DeletedIDs...) {
			rec, ok := b.fake.Srv.AdsRecord(acct, "targeting_criteria", id)
			require.True(t, ok)
			deleted := rec["deleted"].(bool)
			if deletedLineItem[rec["line_item_id"].(string)] {
				ofDeletedLineItems++
			}
			vals := make([]any, len(criteriaColumns))
			ptrs := make([]any, len(criteriaColumns)+4)
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			var stored json.RawMessage
			var created, updated time.Time
			var storedDeleted bool
			ptrs[len(vals)], ptrs[len(vals)+1], ptrs[len(vals)+2], ptrs[len(vals)+3] = &stored, &created, &updated, &storedDeleted
			require.NoError(t, b.pool.QueryRow(ctx, `SELECT `+strings.Join(criteriaColumns, ", ")+`, raw, api_created_at, api_updated_at, deleted
FROM targeting_criteria WHERE account_id = $1 AND id = $2`, acct, id).Scan(ptrs...), "criterion %s of account %s", id, acct)
			for i, c := range criteriaColumns {
				require.Equal(t, rec[c], vals[i], "%s of criterion %s", c, id)
			}
			raw, err := json.Marshal(rec)
			require.NoError(t, err)
			require.JSONEq(t, string(raw), string(stored), "the record is kept whole")
			require.Equal(t, rec["created_at"], created.UTC().Format(time.RFC3339))
			require.Equal(t, rec["updated_at"], updated.UTC().Format(time.RFC3339))
			require.Equal(t, deleted, storedDeleted, "criterion %s", id)
			checked++
		}
		require.Equal(t, want, got[acct], "targeting criteria of account %s (live, deleted)", acct)
	}
	var stored int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM targeting_criteria`).Scan(&stored))
	require.Equal(t, checked, stored, "nothing stored that the service does not hold")
	require.Positive(t, checked)
	return ofDeletedLineItems
}

// requireCriteriaAfterLineItems checks that in run, each account's
// criteria unit started after its line items unit finished.
func requireCriteriaAfterLineItems(t *testing.T, pool *pgxpool.Pool, run int64) {
	t.Helper()
	var n, bad int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE c.started_at < l.finished_at)
FROM sync_run_units c JOIN sync_run_units l ON l.run_id = c.run_id AND l.account_id = c.account_id AND l.entity = 'line_items'
WHERE c.run_id = $1 AND c.entity = 'targeting_criteria'`, run).Scan(&n, &bad))
	require.Positive(t, n)
	require.Zero(t, bad, "criteria are listed after the run's line items")
}

func TestTargetingCriteriaSyncEqualsTheServiceFullThenIncrementalWithTombstones(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	r := b.run(t, jobs.SyncRunArgs{Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	requireCriteriaEqualTheService(t, b)
	requireCriteriaAfterLineItems(t, b.pool, r.ID)

	// Criteria added, changed and deleted; a line item deleted (its
	// criteria stay live at the service) and one added with its criteria.
	cres, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "targeting_criteria", Add: 3, Change: 2, Delete: 2})
	require.NoError(t, err)
	lres, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "line_items", Add: 1, Delete: 1})
	require.NoError(t, err)
	before := b.fake.Srv.Stats().Family(criteriaFamily).Requests
	r = b.run(t, jobs.SyncRunArgs{})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	accounts := len(b.fake.Srv.AdsTruth().Accounts) - 1 // one account is deleted
	require.Equal(t, accounts, b.fake.Srv.Stats().Family(criteriaFamily).Requests-before,
		"one request per account: its live line items fit in one chunk and their criteria in one page")
	requireCriteriaEqualTheService(t, b)
	requireCriteriaAfterLineItems(t, b.pool, r.ID)

	ctx := context.Background()
	var n int
	var live int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE deleted), count(*) FILTER (WHERE NOT deleted)
FROM targeting_criteria WHERE id = ANY($1)`, cres.Deleted).Scan(&n, &live))
	require.Positive(t, n, "deleted criteria are tombstones")
	require.Zero(t, live, "no deleted criterion stays live")
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM targeting_criteria WHERE NOT deleted AND line_item_id = ANY($1)`,
		lres.Deleted).Scan(&n))
	require.Positive(t, n, "a deleted line item's criteria stay as the service shows them: live")
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM targeting_criteria WHERE NOT deleted AND line_item_id = ANY($1)`,
		lres.Added).Scan(&n))
	require.GreaterOrEqual(t, n, 3*len(lres.Added), "a line item added before the run has its criteria stored by that run")

	requireCriteriaExportEqualsPostgres(t, b.pool)
}

// requireCriteriaExportEqualsPostgres exports targeting_criteria and reads
// the Parquet files back with DuckDB: every row and column equals Postgres.
func requireCriteriaExportEqualsPostgres(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	out := t.TempDir()
	res, err := export.Run(ctx, pool, export.Options{Out: out, Tables: []string{"targeting_criteria"}})
	require.NoError(t, err)
	var files []string
	for _, tr := range res.Tables {
		for _, f := range tr.Files {
			files = append(files, filepath.Join(out, f.Path))
		}
	}
	row := "concat_ws('|', account_id, id, line_item_id, name, coalesce(localized_name, '-'), targeting_type, targeting_value, " +
		"operator_type, coalesce(location_type, '-'), coalesce(CAST(tailored_audience_expansion AS VARCHAR), '-'), " +
		"coalesce(tailored_audience_type, '-'), CAST(deleted AS VARCHAR), json_extract_string(raw, '$.id'))"
	d := exporttest.Duck(t, files, map[string]string{"rows": fmt.Sprintf(
		"SELECT string_agg(%s, chr(10) ORDER BY account_id, id) AS s, count(*) AS n FROM read_parquet('%s/*/*.parquet')",
		row, filepath.Join(out, "targeting_criteria"))})
	var want string
	require.NoError(t, pool.QueryRow(ctx, `SELECT string_agg(concat_ws('|', account_id, id, line_item_id, name, coalesce(localized_name, '-'),
targeting_type, targeting_value, operator_type, coalesce(location_type, '-'), coalesce(tailored_audience_expansion::text, '-'),
coalesce(tailored_audience_type, '-'), deleted::text, raw->>'id'), chr(10) ORDER BY account_id COLLATE "C", id COLLATE "C")
FROM targeting_criteria`).Scan(&want))
	require.NotEmpty(t, want)
	require.Equal(t, want, d.Queries["rows"][0]["s"], "DuckDB reads targeting_criteria as Postgres holds it")
}

func TestTargetingCriteriaOfLiveAndDeletedLineItemsAreAskedForBy200AndIncrementallyOnlyTheNewlyDeleted(t *testing.T) {
	t.Parallel()
	b := setupSync(t, func(o *fixtures.Options) {
		o.Accounts, o.CampaignsPerAccount, o.LineItemsPerCampaign = 1, 20, 20
	}, nil)
	truth := b.fake.Srv.AdsTruth()
	var acct string
	for id, per := range truth.Accounts {
		if per["accounts"].Live == 1 {
			acct = id
		}
	}
	lis := truth.Accounts[acct]["line_items"]
	// 450 live line items and more than 150 deleted ones, deleted two
	// hours before the live ones' newest criteria: the whole list asks for
	// all of them, an incremental one for none of those.
	del := max(0, 160-lis.Deleted)
	_, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{AccountID: acct, Kind: "line_items", Delete: del})
	require.NoError(t, err)
	b.fake.Srv.SetClockOffset(2 * time.Hour)
	_, err = b.fake.Srv.AdsMutate(fixtures.AdsMutation{AccountID: acct, Kind: "line_items", Add: 450 - (lis.Live - del)})
	require.NoError(t, err)
	lis = b.fake.Srv.AdsTruth().Accounts[acct]["line_items"]
	require.Equal(t, 450, lis.Live)
	require.Greater(t, lis.Deleted, 150)

	// The line items first, then the criteria alone from the stored ones.
	r := b.run(t, jobs.SyncRunArgs{Full: true, Entities: []string{"line_items"}})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	require.Zero(t, b.fake.Srv.Stats().Family(criteriaFamily).Requests)
	r = b.run(t, jobs.SyncRunArgs{Full: true, Entities: []string{"targeting_criteria"}})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	full := (lis.Live + lis.Deleted + 199) / 200
	require.Equal(t, full, b.fake.Srv.Stats().Family(criteriaFamily).Requests,
		"%d line items, live and deleted, 200 a request", lis.Live+lis.Deleted)
	require.Positive(t, requireCriteriaEqualTheService(t, b), "deleted line items' criteria are stored")

	// Every line item deleted: the next, incremental run asks for the
	// criteria of the 450 deleted since its bookmark, and they stay live.
	_, err = b.fake.Srv.AdsMutate(fixtures.AdsMutation{AccountID: acct, Kind: "line_items", Delete: 1000})
	require.NoError(t, err)
	r = b.run(t, jobs.SyncRunArgs{Entities: []string{"line_items", "targeting_criteria"}})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	require.Equal(t, full+3, b.fake.Srv.Stats().Family(criteriaFamily).Requests, "450 line items deleted since, 200 a request")
	requireCriteriaAfterLineItems(t, b.pool, r.ID)
	requireCriteriaEqualTheService(t, b)
	var live int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM targeting_criteria WHERE NOT deleted`).Scan(&live))
	require.Equal(t, b.fake.Srv.AdsTruth().Accounts[acct]["targeting_criteria"].Live, live)
}

func TestAnIncrementalSyncStoresTheCriteriaOfLineItemsDeletedSinceTheLastRun(t *testing.T) {
	t.Parallel()
	b := setupSync(t, func(o *fixtures.Options) {
		o.Accounts, o.CampaignsPerAccount, o.LineItemsPerCampaign = 1, 3, 3
	}, nil)
	entities := []string{"line_items", "targeting_criteria"}
	r := b.run(t, jobs.SyncRunArgs{Entities: entities})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	requireCriteriaEqualTheService(t, b)

	// Two hours on: criteria change, a line item is added with its
	// criteria, then every line item is deleted, the new one too. None of
	// their criteria is deleted.
	b.fake.Srv.SetClockOffset(2 * time.Hour)
	mutated := b.fake.Srv.Now().Truncate(time.Second)
	cres, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "targeting_criteria", Change: 2})
	require.NoError(t, err)
	lres, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "line_items", Add: 1})
	require.NoError(t, err)
	_, err = b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: "line_items", Delete: 1000})
	require.NoError(t, err)

	before := b.fake.Srv.Stats().Family(criteriaFamily).Requests
	r = b.run(t, jobs.SyncRunArgs{Entities: entities})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	require.Equal(t, 1, b.fake.Srv.Stats().Family(criteriaFamily).Requests-before, "the deleted line items in one request")
	require.Positive(t, requireCriteriaEqualTheService(t, b))
	ctx := context.Background()
	var added, changed int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM targeting_criteria WHERE NOT deleted AND line_item_id = ANY($1)`,
		lres.Added).Scan(&added))
	require.Positive(t, added, "the criteria of a line item added and deleted between two runs are stored")
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM targeting_criteria WHERE id = ANY($1) AND api_updated_at >= $2`,
		cres.Changed, mutated).Scan(&changed))
	require.Len(t, cres.Changed, 2)
	require.Equal(t, 2, changed, "criteria changed before their line item's deletion are stored changed")
}
