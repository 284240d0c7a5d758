package jobs

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/audience"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
)

func TestEveryWorkerAnswersRiverOneWay(t *testing.T) {
	t.Parallel()
	in := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name     string
		err      error
		attempt  int
		want     string // snooze, cancel, retry
		final    bool
		snoozeAt time.Duration
	}{
		{"a rate-limit wait snoozes until the reset", fmt.Errorf("window: %w", &api.RetryAtError{At: in}), 1, "snooze", false, time.Hour},
		{"even on the last attempt", &api.RetryAtError{At: in}, 8, "snooze", false, time.Hour},
		{"a reset already past snoozes briefly", &api.RetryAtError{At: time.Now().Add(-time.Minute)}, 1, "snooze", false, 0},
		{"an invalid request is final", &api.AdsError{Status: 400, Endpoint: "GET /12/insights/keywords/search"}, 1, "cancel", true, 0},
		{"a v2 problem 400 is final", &api.ProblemError{Status: 400}, 1, "cancel", true, 0},
		{"bad credentials are final", &api.OAuthError{Status: 401, Code: 32}, 1, "cancel", true, 0},
		{"a refused batch is final", &api.BatchError{Errors: []api.OperationError{{Code: "INVALID"}}}, 1, "cancel", true, 0},
		{"a pipeline's own permanent error is final", &audience.PermanentError{Err: errors.New("batch not found")}, 1, "cancel", true, 0},
		{"a 503 is retried", &api.AdsError{Status: 503}, 1, "retry", false, 0},
		{"a 429 without a reset is retried", &api.OAuthError{Status: 429, Code: 88}, 1, "retry", false, 0},
		{"no answer is retried", &api.TransportError{Endpoint: "GET /x", Err: errors.New("reset")}, 1, "retry", false, 0},
		{"our own failure is retried", errors.New("conn closed"), 1, "retry", false, 0},
		{"the last attempt is final", &api.AdsError{Status: 500}, 8, "retry", true, 0},
		{"a worker's own cancel is final", river.JobCancel(errors.New("unknown entity")), 1, "cancel", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := &rivertype.JobRow{Attempt: tc.attempt, MaxAttempts: 8}
			out, final := riverError(context.Background(), job, tc.err)
			require.Equal(t, tc.final, final)
			var snooze *rivertype.JobSnoozeError
			var cancel *rivertype.JobCancelError
			switch tc.want {
			case "snooze":
				require.ErrorAs(t, out, &snooze)
				require.InDelta(t, tc.snoozeAt.Seconds(), snooze.Duration.Seconds(), 60)
				require.GreaterOrEqual(t, snooze.Duration, snoozePad)
			case "cancel":
				require.ErrorAs(t, out, &cancel)
			default:
				require.Same(t, tc.err, out)
			}
		})
	}
}

func TestAWorkerShuttingDownIsNeitherRetriedNorFinal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := &api.AdsError{Status: 400}
	out, final := riverError(ctx, &rivertype.JobRow{Attempt: 8, MaxAttempts: 8}, err)
	require.False(t, final, "the job runs again after the restart")
	require.Same(t, error(err), out)
}
