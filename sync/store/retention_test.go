package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// yearOfRuns records a year of nightly runs ending at end, oldest first:
// each night a sync run with 20 units, a stats run with 5 finished stats
// jobs, an insights run and an export run; then a posts run on the first
// night only, and two audience runs, the first night's an upload's (the
// last night's is the pipeline's last). The oldest stats run keeps one
// stats job still waiting.
func yearOfRuns(t *testing.T, pool *pgxpool.Pool, end time.Time) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `
WITH nights AS (SELECT $1::timestamptz - d * interval '1 day' AS at FROM generate_series(364, 0, -1) d),
runs AS (
    INSERT INTO sync_runs (pipeline, trigger, started_at, finished_at, outcome)
    SELECT p, 'schedule', at - interval '1 hour', at, 'succeeded' FROM nights, unnest(ARRAY['sync', 'stats', 'insights', 'export']) p
    ORDER BY at, p
    RETURNING id, pipeline),
units AS (
    INSERT INTO sync_run_units (run_id, account_id, entity, state)
    SELECT id, 'a' || a, 'campaigns', 'succeeded' FROM runs, generate_series(1, 20) a WHERE pipeline = 'sync')
INSERT INTO stats_jobs (run_id, account_id, query, state)
SELECT id, 'a1', '{}', 'stored' FROM runs, generate_series(1, 5) WHERE pipeline = 'stats'`, end)
	require.NoError(t, err)
	_, err = pool.Exec(context.Background(), `
WITH p AS (INSERT INTO sync_runs (pipeline, started_at, finished_at, outcome)
    VALUES ('posts', $1::timestamptz - interval '364 days', $1::timestamptz - interval '364 days', 'succeeded'),
           ('audience', $1::timestamptz - interval '364 days', $1::timestamptz - interval '364 days', 'succeeded'),
           ('audience', $1::timestamptz - interval '1 day', $1::timestamptz - interval '1 day', 'succeeded')
    RETURNING id, pipeline, finished_at),
u AS (INSERT INTO audience_uploads (account_id, audience_id, file_path, checksum, operation, mode, run_id)
    SELECT 'a1', 'aud', 'f.csv', 'x', 'update', 'add', id FROM p WHERE pipeline = 'audience' AND finished_at < $1::timestamptz - interval '2 days')
UPDATE stats_jobs SET state = 'waiting'
WHERE id = (SELECT min(j.id) FROM stats_jobs j JOIN sync_runs r ON r.id = j.run_id WHERE r.pipeline = 'stats')`, end)
	require.NoError(t, err)
}

// TestPruningKeepsTheRunHistoryBoundedAndTheRunsItMustKeep prunes a year
// of runs to 90 days, in bounded batches: the older runs go with their
// units and stats jobs, except the runs something still needs, and what
// status shows is what it showed before.
func TestPruningKeepsTheRunHistoryBoundedAndTheRunsItMustKeep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	end := time.Date(2026, 6, 30, 2, 0, 0, 0, time.UTC)
	yearOfRuns(t, pool, end)
	before := end.Add(-store.DefaultRunRetention)
	status, err := store.ReadStatus(ctx, pool, 20)
	require.NoError(t, err)

	// count runs q, whose $1 is before.
	count := func(q string) (n int64) {
		t.Helper()
		require.NoError(t, pool.QueryRow(ctx, q, before).Scan(&n))
		return n
	}
	const old = `SELECT count(*) FROM sync_runs WHERE finished_at < $1`
	oldSync := count(old + ` AND pipeline = 'sync'`)
	oldStats := count(old + ` AND pipeline = 'stats'`)
	oldInsights := count(old + ` AND pipeline = 'insights'`)
	recent := count(`SELECT count(*) FROM sync_runs WHERE finished_at >= $1`)
	require.Equal(t, int64(364-90), oldSync, "nights 91 to 364 before end")

	// Bounded: one call removes at most batch x batches runs.
	p, err := store.PruneRuns(ctx, pool, before, 100, 2)
	require.NoError(t, err)
	require.Equal(t, int64(200), p.Runs)
	for {
		q, err := store.PruneRuns(ctx, pool, before, 100, 2)
		require.NoError(t, err)
		p.Runs, p.Units, p.StatsJobs = p.Runs+q.Runs, p.Units+q.Units, p.StatsJobs+q.StatsJobs
		if q.Runs == 0 {
			break
		}
	}
	// The oldest stats run (a job still waiting) stays; so do the export
	// runs, the audience upload's run and posts' only run.
	require.Equal(t, oldSync+oldStats-1+oldInsights, p.Runs)
	require.Equal(t, 20*oldSync, p.Units)
	require.Equal(t, 5*(oldStats-1), p.StatsJobs)
	require.Equal(t, recent, count(`SELECT count(*) FROM sync_runs WHERE finished_at >= $1`), "recent runs are kept")
	require.Equal(t, oldSync+3, count(old), "the export runs, the audience upload's, posts' last and the open stats run")
	require.Equal(t, int64(1), count(old+` AND pipeline = 'stats'`))
	require.Equal(t, int64(1), count(old+` AND pipeline = 'posts'`))
	require.Equal(t, int64(1), count(old+` AND pipeline = 'audience'`))
	require.Zero(t, count(`SELECT count(*) FROM sync_run_units u JOIN sync_runs r ON r.id = u.run_id WHERE r.finished_at < $1`))
	require.Equal(t, int64(5), count(`SELECT count(*) FROM stats_jobs j JOIN sync_runs r ON r.id = j.run_id WHERE r.finished_at < $1`))
	var units int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM sync_run_units`).Scan(&units))
	require.Equal(t, 20*(365-oldSync), units, "the recent runs' units are kept")

	after, err := store.ReadStatus(ctx, pool, 20)
	require.NoError(t, err)
	require.Equal(t, status.Runs, after.Runs, "status shows the same runs")
}
