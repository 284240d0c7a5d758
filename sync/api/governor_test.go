package api

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMemoryStoreFollowsTheServicesWindows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewMemoryStore()
	now := time.Unix(1_000_000, 0)
	ok, _, err := m.Reserve(ctx, "b", now, nil, time.Minute)
	require.NoError(t, err)
	require.True(t, ok, "an unknown bucket lets one probe through")
	ok, again, _ := m.Reserve(ctx, "b", now, nil, time.Minute)
	require.False(t, ok, "the rest wait for the probe's answer")
	require.Equal(t, now.Add(probePoll), again)
	require.NoError(t, m.Observe(ctx, "b", RateLimit{Limit: 3, Remaining: 1, Reset: now.Add(time.Minute)}, now))

	ok, _, _ = m.Reserve(ctx, "b", now, nil, time.Minute)
	require.True(t, ok)
	ok, reset, _ := m.Reserve(ctx, "b", now, nil, time.Minute)
	require.False(t, ok, "one remaining, one in flight: no room")
	require.Equal(t, now.Add(time.Minute), reset)

	require.NoError(t, m.Observe(ctx, "b", RateLimit{Limit: 3, Remaining: 0, Reset: now.Add(time.Minute)}, now))
	ok, _, _ = m.Reserve(ctx, "b", now.Add(59*time.Second), nil, time.Minute)
	require.False(t, ok)
	ok, _, _ = m.Reserve(ctx, "b", now.Add(61*time.Second), nil, time.Minute)
	require.True(t, ok, "at the reset a probe opens the next window")
	ok, _, _ = m.Reserve(ctx, "b", now.Add(61*time.Second), nil, time.Minute)
	require.False(t, ok, "until the probe's answer arrives")
	require.NoError(t, m.Observe(ctx, "b", RateLimit{Limit: 3, Remaining: 2, Reset: now.Add(121 * time.Second)}, now.Add(61*time.Second)))
	for i := 0; i < 2; i++ {
		ok, _, _ = m.Reserve(ctx, "b", now.Add(62*time.Second), nil, time.Minute)
		require.True(t, ok, "the answer opens the new window's remaining budget")
	}
	ok, _, _ = m.Reserve(ctx, "b", now.Add(62*time.Second), nil, time.Minute)
	require.False(t, ok)
}

func TestMemoryStorePresetGovernsTheFirstWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewMemoryStore()
	now := time.Unix(1_000_000, 0)
	preset := &Budget{Limit: 2, Window: time.Minute}
	for i := 0; i < 2; i++ {
		ok, _, _ := m.Reserve(ctx, "aud", now, preset, time.Minute)
		require.True(t, ok)
	}
	ok, reset, _ := m.Reserve(ctx, "aud", now, preset, time.Minute)
	require.False(t, ok)
	require.Equal(t, now.Add(time.Minute), reset)
}

func TestLateAnswerFromAnEndedWindowIsIgnored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewMemoryStore()
	now := time.Unix(1_000_000, 0)
	ok, _, _ := m.Reserve(ctx, "b", now, nil, time.Minute)
	require.True(t, ok)
	require.NoError(t, m.Observe(ctx, "b", RateLimit{Limit: 10, Remaining: 9, Reset: now.Add(2 * time.Minute)}, now))
	require.NoError(t, m.Observe(ctx, "b", RateLimit{Limit: 10, Remaining: 0, Reset: now.Add(time.Minute)}, now))
	ok, _, _ = m.Reserve(ctx, "b", now, nil, time.Minute)
	require.True(t, ok, "the stale zero did not close the current window")
}

func TestGovernorWaitsForShortResetsAndDefersLongOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Unix(1_000_000, 0)
	g := NewGovernor(NewMemoryStore())
	g.Now = func() time.Time { return now }
	var slept []time.Duration
	g.Sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); now = now.Add(d); return nil }
	require.NoError(t, g.Store.Observe(ctx, "GET /x", RateLimit{Limit: 1, Remaining: 0, Reset: now.Add(10 * time.Second)}, now))
	_, err := g.Acquire(ctx, "GET /x", "", "")
	require.NoError(t, err)
	require.Len(t, slept, 1)
	require.GreaterOrEqual(t, slept[0], 10*time.Second)

	require.NoError(t, g.Store.Observe(ctx, "GET /y", RateLimit{Limit: 1, Remaining: 0, Reset: now.Add(time.Hour)}, now))
	_, err = g.Acquire(ctx, "GET /y", "", "")
	var rae *RetryAtError
	require.ErrorAs(t, err, &rae)
	require.Equal(t, now.Add(time.Hour), rae.At)
}

func TestGovernorPrefersTheAccountWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Unix(1_000_000, 0)
	g := NewGovernor(NewMemoryStore())
	g.Now = func() time.Time { return now }
	g.MaxWait = 0
	b, err := g.Acquire(ctx, "GET /c", "", "acct1")
	require.NoError(t, err)
	g.Observe(ctx, b, &RateLimit{Limit: 100, Remaining: 99, Reset: now.Add(time.Minute)}, &RateLimit{Limit: 1, Remaining: 0, Reset: now.Add(time.Minute)})
	_, err = g.Acquire(ctx, "GET /c", "", "acct1")
	require.Error(t, err, "the account's exhausted window blocks")
	_, err = g.Acquire(ctx, "GET /c", "", "acct2")
	require.NoError(t, err, "another account's window is its own")
}

func TestAReservationNobodyAnswersStopsCountingAfterItsTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewMemoryStore()
	now := time.Unix(1_000_000, 0)
	// A probe whose process died before the answer.
	ok, _, _ := m.Reserve(ctx, "b", now, nil, 10*time.Second)
	require.True(t, ok)
	ok, _, _ = m.Reserve(ctx, "b", now.Add(9*time.Second), nil, 10*time.Second)
	require.False(t, ok, "within its TTL the lost probe still holds the window")
	ok, _, _ = m.Reserve(ctx, "b", now.Add(11*time.Second), nil, 10*time.Second)
	require.True(t, ok, "after its TTL another request may probe")
}
