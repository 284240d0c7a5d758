package jobs

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestOnlyClientErrorsOtherThanRateLimitsArePermanent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&api.AdsError{Status: 404}, true},
		{fmt.Errorf("campaigns account x: %w", &api.AdsError{Status: 403}), true},
		{&api.OAuthError{Status: 401, Code: 89}, true},
		{&api.AdsError{Status: 429}, false},
		{&api.AdsError{Status: 500}, false},
		{&api.OAuthError{Status: 503, Code: 130}, false},
		{&api.RetryAtError{At: time.Now()}, false},
		{errors.New("connection reset"), false},
	} {
		require.Equal(t, tc.want, permanent(tc.err), "%v", tc.err)
	}
}

func TestUnitRetriesBackOffFromASecondToFiveMinutes(t *testing.T) {
	t.Parallel()
	for attempt, want := range map[int]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second,
		9: 256 * time.Second, 10: 5 * time.Minute, 25: 5 * time.Minute} {
		require.Equal(t, want, unitRetryDelay(attempt), "attempt %d", attempt)
	}
}
