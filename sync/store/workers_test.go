package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
)

func TestJobsOfADeadWorkerAreHandedBackWithoutLosingAnAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	// A worker that stopped beating a minute ago, and one still alive.
	_, err := pool.Exec(ctx, `INSERT INTO adsync_workers (client_id, hostname, pid, heartbeat_at) VALUES
		('dead-worker', 'h', 1, now() - interval '1 minute'), ('live-worker', 'h', 2, now())`)
	require.NoError(t, err)
	insert := func(client string, rescues int) int64 {
		var id int64
		require.NoError(t, pool.QueryRow(ctx, `INSERT INTO river_job (kind, queue, state, args, max_attempts, attempt, attempted_at, attempted_by, metadata, priority, scheduled_at)
			VALUES ('sync_unit', 'sync', 'running', '{}', 8, 3, now(), ARRAY['earlier', $1], jsonb_build_object('adsync_rescues', $2::int), 1, now()) RETURNING id`,
			client, rescues).Scan(&id))
		return id
	}
	orphan := insert("dead-worker", 0)
	looping := insert("dead-worker", 10)
	alive := insert("live-worker", 0)

	n, err := store.RescueDeadWorkers(ctx, pool, 30*time.Second, "me", 10)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)

	state := func(id int64) (string, int, int) {
		var s string
		var attempt, rescues int
		require.NoError(t, pool.QueryRow(ctx, `SELECT state::text, attempt, (metadata->>'adsync_rescues')::int FROM river_job WHERE id = $1`, id).Scan(&s, &attempt, &rescues))
		return s, attempt, rescues
	}
	s, attempt, rescues := state(orphan)
	require.Equal(t, "available", s, "handed back at once")
	require.Equal(t, 2, attempt, "the interrupted attempt does not count")
	require.Equal(t, 1, rescues)
	s, attempt, _ = state(looping)
	require.Equal(t, "discarded", s, "a job that keeps killing its worker stops")
	require.Equal(t, 3, attempt)
	s, _, _ = state(alive)
	require.Equal(t, "running", s, "a live worker's jobs are left alone")
	var workers int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM adsync_workers`).Scan(&workers))
	require.Equal(t, 1, workers, "the dead worker is forgotten")
}

func TestWorkerRegistryRecordsBeatsAndForgetsAWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	heartbeat := func() (time.Time, string, int) {
		var at time.Time
		var host string
		var pid int
		require.NoError(t, pool.QueryRow(ctx, `SELECT heartbeat_at, hostname, pid FROM adsync_workers WHERE client_id = 'w1'`).Scan(&at, &host, &pid))
		return at, host, pid
	}
	require.NoError(t, store.RegisterWorker(ctx, pool, "w1", "host-a", 42))
	first, host, pid := heartbeat()
	require.Equal(t, "host-a", host)
	require.Equal(t, 42, pid)
	// now() is the transaction's start: each statement below is its own.
	require.Eventually(t, func() bool {
		require.NoError(t, store.BeatWorker(ctx, pool, "w1"))
		at, _, _ := heartbeat()
		return at.After(first)
	}, 5*time.Second, 10*time.Millisecond)
	// Registering again renews the heartbeat rather than failing.
	require.NoError(t, store.RegisterWorker(ctx, pool, "w1", "host-a", 42))
	require.NoError(t, store.UnregisterWorker(ctx, pool, "w1"))
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM adsync_workers`).Scan(&n))
	require.Zero(t, n, "an unregistered worker leaves nothing to rescue")
}
