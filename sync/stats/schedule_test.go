package stats_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// runLikeRiver advances rows ids as River runs their stats_job jobs: all
// at once first, then each again when the wait it returned (its snooze)
// is over; rows due at the same instant run one after another in id order.
// Instead of sleeping it moves the fake's clock to the next instant a row
// is due, so waits cost no time. It returns how many times rows were
// advanced.
func runLikeRiver(tb testing.TB, r *stats.Runner, srv *fixtures.Server, ids []int64) int {
	tb.Helper()
	ctx := context.Background()
	due := make(map[int64]time.Time, len(ids))
	for _, id := range ids {
		due[id] = srv.Now()
	}
	runs := 0
	for len(due) > 0 {
		var next time.Time
		for _, t := range due {
			if next.IsZero() || t.Before(next) {
				next = t
			}
		}
		if d := next.Sub(srv.Now()); d > 0 {
			srv.SetClockOffset(srv.ClockOffset() + d)
		}
		var now []int64
		for id, t := range due {
			if !t.After(next) {
				now = append(now, id)
			}
		}
		slices.Sort(now)
		for _, id := range now {
			runs++
			require.Less(tb, runs, 100*len(ids)+1000, "rows never finished")
			step, err := r.Advance(ctx, id)
			require.NoError(tb, err)
			if step.Done {
				delete(due, id)
				continue
			}
			due[id] = srv.Now().Add(step.Wait)
		}
	}
	return runs
}

// jobCalls counts the client's asynchronous job calls by kind: polls (job
// listings naming job_ids), other listings (the intent before each POST,
// adoption) and POSTs.
type jobCalls struct {
	next                http.RoundTripper
	polls, lists, posts atomic.Int64
}

func (c *jobCalls) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.Contains(req.URL.Path, "/stats/jobs/accounts/") {
		switch {
		case req.Method == http.MethodPost:
			c.posts.Add(1)
		case req.Method == http.MethodGet && req.URL.Query().Has("job_ids"):
			c.polls.Add(1)
		case req.Method == http.MethodGet:
			c.lists.Add(1)
		}
	}
	return c.next.RoundTrip(req)
}
