package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// A worker with the daemon's schedules prunes the run history as it
// starts: runs that finished more than the retention before its clock go,
// the last of their pipeline stays, and the log says what went.
func TestAWorkerPrunesRunsOlderThanTheRetentionAndLogsWhatItRemoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	now := time.Date(2026, 6, 30, 12, 0, 0, 0, time.UTC)
	_, err := pool.Exec(ctx, `INSERT INTO sync_runs (pipeline, started_at, finished_at, outcome)
VALUES ('insights', $1::timestamptz - interval '40 days', $1::timestamptz - interval '40 days', 'succeeded'),
       ('insights', $1::timestamptz - interval '31 days', $1::timestamptz - interval '31 days', 'succeeded'),
       ('insights', $1::timestamptz - interval '29 days', $1::timestamptz - interval '29 days', 'succeeded'),
       ('posts', $1::timestamptz - interval '40 days', $1::timestamptz - interval '40 days', 'succeeded')`, now)
	require.NoError(t, err)
	core, logs := observer.New(zapcore.InfoLevel)
	deps := &jobs.Deps{Pool: pool, Log: zap.New(core), RunRetention: 30 * 24 * time.Hour, Now: func() time.Time { return now }}
	jobstest.StartWorker(t, deps, jobs.Options{Maintenance: true})

	deadline := time.Now().Add(time.Minute)
	for logs.FilterMessage("pruned the run history").Len() == 0 {
		require.True(t, time.Now().Before(deadline), "no pruning logged in a minute")
		time.Sleep(50 * time.Millisecond)
	}
	entry := logs.FilterMessage("pruned the run history").All()[0].ContextMap()
	require.EqualValues(t, 2, entry["runs"], "the two insights runs older than 30 days")
	require.EqualValues(t, 0, entry["units"])
	var left []string
	rows, err := pool.Query(ctx, `SELECT pipeline || ' ' || (date_part('day', $1::timestamptz - finished_at))::int FROM sync_runs ORDER BY id`, now)
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		left = append(left, s)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"insights 29", "posts 40"}, left, "the recent run and posts' last are kept")
}
