package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestUnitRetriesBackOffFromASecondToFiveMinutes(t *testing.T) {
	t.Parallel()
	for attempt, want := range map[int]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second,
		9: 256 * time.Second, 10: 5 * time.Minute, 25: 5 * time.Minute} {
		require.Equal(t, want, unitRetryDelay(attempt), "attempt %d", attempt)
	}
}
