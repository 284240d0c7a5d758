package audience_test

import (
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/audience"
	"github.com/stretchr/testify/require"
)

func TestTwoWorkersShareTheAudienceUsersBudgetWithoutA429(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// The 1,500 a minute shrunk to 10 per 2 seconds.
	b.srv.SetRateLimits(fixtures.RateLimitOptions{AudienceUsersWindow: 2 * time.Second, AudienceUsersLimit: 10})
	o := b.options(b.writeFile("users.csv", emailsCSV(0, 300)))
	o.MaxUsers = 10
	res := b.plan(o)
	require.Equal(t, 30, res.Batches)
	b.startWorker()
	b.startWorker()
	p := b.waitFinished(res.Upload.ID)
	require.Equal(t, audience.StateDone, p.State)
	st := b.srv.Stats().Family(fixtures.FamilyAudienceUsers)
	require.Zero(t, st.Throttled, "no request was refused for the rate")
	require.Equal(t, 30, st.Requests)
	require.LessOrEqual(t, st.MaxInWindow, 10)
	require.Equal(t, expectedSet(t, o.Path), b.membership())
}
