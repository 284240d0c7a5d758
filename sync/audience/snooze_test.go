package audience_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/stretchr/testify/require"
)

func TestA429PastTheGovernorsWaitSnoozesTheJobWithoutFailingTheBatch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.srv.AddFault(fixtures.FaultRule{Path: usersPath, Kind: fixtures.Fault429, RetryAfter: 600, Times: 1})
	res := b.plan(b.options(b.writeFile("users.csv", emailsCSV(0, 10))))

	// The sender hands the wait up instead of sleeping ten minutes.
	s := &audience.Sender{Pool: b.pool, API: b.deps.API}
	err := s.Send(context.Background(), res.Upload.ID, 1)
	var rae *api.RetryAtError
	require.True(t, errors.As(err, &rae), "%v", err)
	require.Greater(t, rae.Wait(time.Now()), 5*time.Minute)

	// The worker turns that into a snooze: the job waits, the batch is
	// neither done nor failed. (The fault fired once; the governor now
	// holds the window closed until the reset it was told.)
	b.startWorker()
	require.Eventually(t, func() bool {
		var state string
		var at time.Time
		err := b.pool.QueryRow(context.Background(),
			`SELECT state, scheduled_at FROM river_job WHERE kind = 'audience_batch'`).Scan(&state, &at)
		require.NoError(t, err)
		return state == "scheduled" && time.Until(at) > 5*time.Minute
	}, 30*time.Second, 50*time.Millisecond)
	p, err := audience.LoadProgress(context.Background(), b.pool, res.Upload.ID)
	require.NoError(t, err)
	require.Zero(t, p.Done+p.Failed)
	require.Equal(t, audience.StatePlanned, p.State)
}
