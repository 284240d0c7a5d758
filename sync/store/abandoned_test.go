package store_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// insertJob writes a River job row of kind in state with args.
func insertJob(t *testing.T, pool *pgxpool.Pool, kind, state, args string) int64 {
	t.Helper()
	var id int64
	require.NoError(t, pool.QueryRow(context.Background(), `INSERT INTO river_job (kind, queue, state, args, max_attempts, attempt, priority, scheduled_at, finalized_at)
VALUES ($1, 'sync', $2::river_job_state, $3::jsonb, 8, 1, 1, now(),
    CASE WHEN $2 IN ('completed', 'cancelled', 'discarded') THEN now() END) RETURNING id`, kind, state, args).Scan(&id))
	return id
}

func addUnit(t *testing.T, pool *pgxpool.Pool, run int64, account, entity, state string) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `INSERT INTO sync_run_units (run_id, account_id, entity, state) VALUES ($1, $2, $3, $4)`,
		run, account, entity, state)
	require.NoError(t, err)
}

func unitState(t *testing.T, pool *pgxpool.Pool, run int64, account, entity string) (string, string) {
	t.Helper()
	var state string
	var reason *string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT state, error FROM sync_run_units WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
		run, account, entity).Scan(&state, &reason))
	if reason == nil {
		return state, ""
	}
	return state, *reason
}

func TestUnitsWhoseJobsWereCancelledOrDiscardedFailAndFinishTheirRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	addUnit(t, pool, run, "", "accounts", store.UnitSucceeded)
	addUnit(t, pool, run, "a1", "campaigns", store.UnitPending)
	addUnit(t, pool, run, "a2", "campaigns", store.UnitRunning)
	addUnit(t, pool, run, "a3", "campaigns", store.UnitSucceeded)
	cancelled := insertJob(t, pool, "sync_unit", "cancelled", `{"run_id": `+itoa(run)+`, "account_id": "a1", "entity": "campaigns"}`)
	insertJob(t, pool, "sync_unit", "discarded", `{"run_id": `+itoa(run)+`, "account_id": "a2", "entity": "campaigns"}`)
	insertJob(t, pool, "sync_unit", "completed", `{"run_id": `+itoa(run)+`, "account_id": "a3", "entity": "campaigns"}`)

	units, runs, err := store.EndAbandoned(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, 2, units)
	require.Zero(t, runs)
	state, reason := unitState(t, pool, run, "a1", "campaigns")
	require.Equal(t, store.UnitFailed, state)
	require.Equal(t, "job "+itoa(cancelled)+" was cancelled before the unit ended", reason)
	state, reason = unitState(t, pool, run, "a2", "campaigns")
	require.Equal(t, store.UnitFailed, state)
	require.Contains(t, reason, "was discarded before the unit ended")
	r, err := store.GetRun(ctx, pool, run)
	require.NoError(t, err)
	require.Equal(t, "partial", r.Outcome)
	require.Contains(t, r.Error, "campaigns a1: job "+itoa(cancelled)+" was cancelled")

	units, runs, err = store.EndAbandoned(ctx, pool)
	require.NoError(t, err)
	require.Zero(t, units+runs, "nothing is ended twice")
}

func TestUnitWhoseCancelledJobWasQueuedAgainIsLeftToTheNewJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, run := setupRuns(t)
	addUnit(t, pool, run, "a1", "campaigns", store.UnitPending)
	args := `{"run_id": ` + itoa(run) + `, "account_id": "a1", "entity": "campaigns"}`
	insertJob(t, pool, "sync_unit", "cancelled", args)
	insertJob(t, pool, "sync_unit", "available", args)

	units, _, err := store.EndAbandoned(ctx, pool)
	require.NoError(t, err)
	require.Zero(t, units)
	state, _ := unitState(t, pool, run, "a1", "campaigns")
	require.Equal(t, store.UnitPending, state)
}

func TestRunsWhoseOwnJobWasCancelledBeforeTheyFannedOutFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, manual := setupRuns(t)
	addUnit(t, pool, manual, "", "accounts", store.UnitRunning)
	insertJob(t, pool, "sync_run", "cancelled", `{"run_id": `+itoa(manual)+`}`)
	// A run recorded by its own job (scheduled syncs, insights, posts).
	job := insertJob(t, pool, "insights_keywords", "discarded", `{}`)
	own, err := store.RunForJob(ctx, pool, "insights", "schedule", map[string]any{}, job)
	require.NoError(t, err)
	// A run that fanned out is left to its units.
	fanned, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	addUnit(t, pool, fanned, "a1", "campaigns", store.UnitRunning)
	insertJob(t, pool, "sync_run", "cancelled", `{"run_id": `+itoa(fanned)+`}`)
	insertJob(t, pool, "sync_unit", "running", `{"run_id": `+itoa(fanned)+`, "account_id": "a1", "entity": "campaigns"}`)

	units, runs, err := store.EndAbandoned(ctx, pool)
	require.NoError(t, err)
	require.Zero(t, units)
	require.Equal(t, 2, runs)
	for _, id := range []int64{manual, own} {
		r, err := store.GetRun(ctx, pool, id)
		require.NoError(t, err)
		require.Equal(t, "failed", r.Outcome, "run %d", id)
		require.Contains(t, r.Error, "before the run ended")
	}
	r, err := store.GetRun(ctx, pool, fanned)
	require.NoError(t, err)
	require.Equal(t, "running", r.Outcome)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
