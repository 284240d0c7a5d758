package stats_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// A run's stats_sync job snoozed while its rows wait is made due when its
// last row is stored, not left to sleep out its snooze; another run's job,
// a job not snoozed and a run with a row still open are left alone.
func TestTheLastStoredRowOfARunWakesTheRunsSnoozedJobAndNoOther(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := asyncSetup(t, fixtures.StatsJobOptions{Delay: 2 * time.Second})
	a := b.firstAccount(t)
	_, ids := b.asyncRun(t, b.twentyDays(a))
	require.Greater(t, len(ids), 1)
	// A job created for the run (args run_id) and one for a run that does
	// not exist, both snoozed an hour; a third running.
	insert := func(runID int64, state string) int64 {
		var id int64
		require.NoError(t, b.pool.QueryRow(ctx, `INSERT INTO river_job (args, kind, max_attempts, queue, state, scheduled_at, attempted_at)
VALUES ($1::jsonb, 'stats_sync', 25, 'sync', $2::river_job_state, now() + interval '1 hour', now()) RETURNING id`,
			fmt.Sprintf(`{"run_id": %d}`, runID), state).Scan(&id))
		return id
	}
	waiting, other, running := insert(b.runner.RunID, "available"), insert(b.runner.RunID+1000, "available"), insert(b.runner.RunID, "running")
	due := func(id int64) bool {
		var ok bool
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT scheduled_at <= now() FROM river_job WHERE id = $1`, id).Scan(&ok))
		return ok
	}

	b.drive(t, ids[:len(ids)-1])
	woken, err := stats.WakeWaitingRun(ctx, b.pool, ids[0])
	require.NoError(t, err)
	require.False(t, woken, "a row of the run is still open")
	require.False(t, due(waiting))

	b.drive(t, ids[len(ids)-1:])
	woken, err = stats.WakeWaitingRun(ctx, b.pool, ids[len(ids)-1])
	require.NoError(t, err)
	require.True(t, woken)
	require.True(t, due(waiting), "the run's snoozed job is due now")
	require.False(t, due(other), "another run's job sleeps on")
	require.False(t, due(running), "a running job is left to its worker")
}
