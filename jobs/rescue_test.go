package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

func TestLivenessRegistersBeatsAndUnregisters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	l := &jobs.Liveness{Pool: pool, Log: zap.NewNop(), ClientID: jobs.NewClientID(), Interval: 20 * time.Millisecond}
	stop, err := l.Start(ctx)
	require.NoError(t, err)
	var first time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT heartbeat_at FROM adsync_workers WHERE client_id = $1`, l.ClientID).Scan(&first))
	require.Eventually(t, func() bool {
		var hb time.Time
		_ = pool.QueryRow(ctx, `SELECT heartbeat_at FROM adsync_workers WHERE client_id = $1`, l.ClientID).Scan(&hb)
		return hb.After(first)
	}, patience, 10*time.Millisecond)
	stop()
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM adsync_workers`).Scan(&n))
	require.Zero(t, n, "a clean stop leaves nothing to rescue")
}

func TestUnitWhoseJobIsCancelledFromOutsideEndsAndItsRunFinishes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSync(t, nil, func(d *jobs.Deps, fake *synctest.Fake) {
		cfg := fake.Config(d.Pool)
		cfg.Governor.MaxWait = time.Second // a longer wait snoozes the unit
		c, err := api.NewClient(cfg)
		require.NoError(t, err)
		d.API = c
	})
	l := &jobs.Liveness{Pool: b.pool, Log: zap.NewNop(), ClientID: jobs.NewClientID(), Interval: 50 * time.Millisecond}
	stop, err := l.Start(ctx)
	require.NoError(t, err)
	t.Cleanup(stop)
	// Every campaigns unit waits an hour for the rate limit: someone
	// cancels its job meanwhile (River's JobCancel, as a River UI does).
	b.fake.Srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts/*/campaigns", Method: "GET", Kind: fixtures.Fault429, RetryAfter: 3600})
	id := b.start(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}})
	var snoozed []int64
	require.Eventually(t, func() bool {
		rows, err := b.pool.Query(ctx, `SELECT id FROM river_job WHERE kind = 'sync_unit' AND state = 'scheduled'`)
		require.NoError(t, err)
		snoozed, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		require.NoError(t, err)
		r, err := store.GetRun(ctx, b.pool, id)
		require.NoError(t, err)
		c := entityCounts(r, "campaigns")
		return c.Units > 0 && len(snoozed) == c.Units
	}, patience, 20*time.Millisecond)
	for _, j := range snoozed {
		_, err := b.client.JobCancel(ctx, j)
		require.NoError(t, err)
	}
	r := waitRun(t, b.pool, id)
	require.Equal(t, "partial", r.Outcome, "the accounts succeeded, every campaigns unit failed")
	c := entityCounts(r, "campaigns")
	require.Equal(t, c.Units, c.FailedUnits)
	require.Regexp(t, `campaigns \S+: job \d+ was cancelled before the unit ended`, r.Error)
}
