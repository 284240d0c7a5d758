package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// The tests of the plans Postgres makes for statements whose cost must not
// grow with rows they do not need: other accounts' rows, finished runs.

// oneConnection is a connection to a migrated database with one run,
// released when the test ends: the plans a connection keeps are its own.
func oneConnection(t *testing.T) *pgxpool.Conn {
	t.Helper()
	pool, _ := setupRuns(t)
	conn, err := pool.Acquire(context.Background())
	require.NoError(t, err)
	t.Cleanup(conn.Release)
	return conn
}

// explain is Postgres's plan of statement q, which it does not run.
func explain(t *testing.T, db interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, q string) string {
	t.Helper()
	r, err := db.Query(context.Background(), `EXPLAIN `+q)
	require.NoError(t, err)
	lines, err := pgx.CollectRows(r, pgx.RowTo[string])
	require.NoError(t, err)
	return strings.Join(lines, "\n")
}

// TestTheClaimOfPrintsReadsAnAccountsRowsByTheKeyWhateverTheTableHeld
// checks the plan Postgres keeps for the claim (see store.ClaimPrints):
// made on an empty table that knows from its statistics how its rows
// spread over accounts (emptied since, as before a reload), it must still
// read the account's rows through the key's index, not every row of the
// table, which the other accounts of the load fill meanwhile.
func TestTheClaimOfPrintsReadsAnAccountsRowsByTheKeyWhateverTheTableHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := oneConnection(t)
	_, err := conn.Exec(ctx, `INSERT INTO campaigns (account_id, id, raw, doc_hash)
SELECT 'a' || (i % 20), 'c' || i, '{}', 'h' FROM generate_series(1, 2000) i;
ANALYZE campaigns;
TRUNCATE campaigns`)
	require.NoError(t, err)
	// The plan Postgres keeps after a few runs is the generic one: ask
	// for it at once.
	_, err = conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `PREPARE claim (text, text, boolean) AS `+store.ClaimPrintsSQL("campaigns", ""))
	require.NoError(t, err)
	plan := explain(t, conn, `EXECUTE claim ('a1', 'campaigns', true)`)
	require.Contains(t, plan, "Index Scan using campaigns_pkey on campaigns", plan)
	require.NotContains(t, plan, "Seq Scan on campaigns", plan)
}

// TestALookupOfAnEntityTableIsPlannedForTheTableAsItIsThen calls
// ChangedRecords often while campaigns holds few rows (after an ANALYZE,
// as autovacuum does early in a first load), then once more after other
// accounts stored many: that call must read the account's rows through
// the key's index, not the whole table, as a plan kept from the first
// calls would (see store.PlanEachCall).
func TestALookupOfAnEntityTableIsPlannedForTheTableAsItIsThen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := oneConnection(t)
	insert := func(accounts string, n int) {
		t.Helper()
		_, err := conn.Exec(ctx, `INSERT INTO campaigns (account_id, id, raw, doc_hash)
SELECT $1 || (i % 20), $1 || 'c' || i, '{}', 'h' FROM generate_series(1, $2::int) i`, accounts, n)
		require.NoError(t, err)
	}
	insert("a", 40)
	_, err := conn.Exec(ctx, `ANALYZE campaigns`)
	require.NoError(t, err)
	ids, hashes := []string{"ac1", "ac2", "new"}, []string{"h", "other", "h"}
	for range 8 {
		fresh, changed, err := store.ChangedRecords(ctx, conn, "campaigns", true, "a1", ids, hashes, nil, nil)
		require.NoError(t, err)
		require.Equal(t, []int32{1, 2}, fresh, "a1 holds ac1 (unchanged), not ac2, and no new")
		require.Empty(t, changed)
	}
	insert("b", 50_000)

	// The counts of this connection not yet reported, earlier calls'
	// included: the call's are the difference.
	scans := func(q store.Querier) (seq, idx int64) {
		t.Helper()
		require.NoError(t, q.QueryRow(ctx, `SELECT coalesce(seq_scan, 0), coalesce(idx_scan, 0)
FROM pg_stat_xact_user_tables WHERE relname = 'campaigns'`).Scan(&seq, &idx))
		return seq, idx
	}
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	seq0, idx0 := scans(tx)
	_, _, err = store.ChangedRecords(ctx, tx, "campaigns", true, "a1", ids, hashes, nil, nil)
	require.NoError(t, err)
	seq, idx := scans(tx)
	require.Equal(t, seq0, seq, "the lookup read the whole table")
	require.Greater(t, idx, idx0)
}

// TestTheLookForAbandonedUnitsAndRunsReadsOnlyTheOpenOnes checks the plans
// of EndAbandoned's lookups, which every worker's heartbeat runs, over a
// history of finished runs: they must read the open units and runs through
// their indexes, not every unit and run ever recorded.
func TestTheLookForAbandonedUnitsAndRunsReadsOnlyTheOpenOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	addUnit(t, pool, run, "a1", "campaigns", store.UnitRunning)
	addUnit(t, pool, run, "a1", "cards", store.UnitPending)
	_, err := pool.Exec(ctx, `WITH r AS (
    INSERT INTO sync_runs (pipeline, outcome, finished_at) SELECT 'sync', 'succeeded', now() FROM generate_series(1, 1000)
    RETURNING id)
INSERT INTO sync_run_units (run_id, account_id, entity, state)
SELECT r.id, 'a' || a, 'campaigns', 'succeeded' FROM r, generate_series(1, 20) a;
ANALYZE sync_runs; ANALYZE sync_run_units`)
	require.NoError(t, err)
	for _, q := range []string{store.EndAbandonedUnitsSQL, store.AbandonedRunsSQL} {
		plan := explain(t, pool, q)
		require.NotContains(t, plan, "Seq Scan on sync_run_units", plan)
		require.NotContains(t, plan, "Seq Scan on sync_runs", plan)
	}
}

// TestTheLookForAJobsRunReadsItThroughTheIndex checks the plan of
// RunForJob's lookup, which every attempt of a job that records its own
// run makes, over a history of runs recorded by jobs: the generic plan
// Postgres keeps must find the job's run through the index on
// params->>'river_job_id', not read every run of the pipeline.
func TestTheLookForAJobsRunReadsItThroughTheIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := setupRuns(t)
	_, err := pool.Exec(ctx, `INSERT INTO sync_runs (pipeline, trigger, params, outcome, finished_at)
SELECT 'stats', 'schedule', jsonb_build_object('river_job_id', i::text), 'succeeded', now() FROM generate_series(1, 5000) i;
ANALYZE sync_runs`)
	require.NoError(t, err)
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `PREPARE run_for_job (text, bigint) AS `+store.RunForJobSQL)
	require.NoError(t, err)
	plan := explain(t, conn, `EXECUTE run_for_job ('stats', 4321)`)
	require.Contains(t, plan, "sync_runs_river_job_idx", plan)
	require.NotContains(t, plan, "Seq Scan on sync_runs", plan)

	// RunForJob finds the job's run again rather than recording another.
	var want int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM sync_runs WHERE params->>'river_job_id' = '4321'`).Scan(&want))
	got, err := store.RunForJob(ctx, pool, "stats", "schedule", map[string]any{}, 4321)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// TestAUnitsEndReadsTheRunsUnitsOnlyOnceNoneIsOpen runs the statement each
// unit's end runs to finish its run, on a run of 3,000 units one of which
// is still open: it must find the open unit by the open units' index and
// read none of the others (a count of them all at each end read a run's n
// units n times), then, with the last unit ended, finish the run.
func TestAUnitsEndReadsTheRunsUnitsOnlyOnceNoneIsOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := oneConnection(t)
	var run int64
	require.NoError(t, conn.QueryRow(ctx, `SELECT max(id) FROM sync_runs`).Scan(&run))
	_, err := conn.Exec(ctx, `INSERT INTO sync_run_units (run_id, account_id, entity, state)
SELECT $1, 'a' || i, 'campaigns', CASE WHEN i = 1500 THEN 'running' ELSE 'succeeded' END FROM generate_series(1, 3000) i`, run)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `ANALYZE sync_run_units`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `PREPARE finish (bigint, text) AS `+store.FinishRunSQL)
	require.NoError(t, err)
	finish := fmt.Sprintf(`EXECUTE finish (%d, '')`, run)
	r, err := conn.Query(ctx, `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) `+finish)
	require.NoError(t, err)
	lines, err := pgx.CollectRows(r, pgx.RowTo[string])
	require.NoError(t, err)
	plan := strings.Join(lines, "\n")
	require.Contains(t, plan, "sync_run_units_open_idx", plan)
	for _, l := range lines {
		if strings.Contains(l, "on sync_run_units") && !strings.Contains(l, "sync_run_units_open_idx") {
			require.Contains(t, l, "never executed", "a unit is open: the units are not read\n%s", plan)
		}
	}
	var outcome string
	require.ErrorIs(t, conn.QueryRow(ctx, finish).Scan(&outcome), pgx.ErrNoRows, "a unit is open")
	_, err = conn.Exec(ctx, `UPDATE sync_run_units SET state = 'failed', error = 'e' WHERE run_id = $1 AND account_id = 'a1500'`, run)
	require.NoError(t, err)
	require.NoError(t, conn.QueryRow(ctx, finish).Scan(&outcome))
	require.Equal(t, store.RunPartial, outcome)
}
