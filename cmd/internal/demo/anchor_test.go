package demo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// The demo's fakes keep one anchor for a day, so a pass an hour after
// another sees the same service; after a day the data moves to the present.
func TestTheDemosFakesKeepOneAnchorForADay(t *testing.T) {
	t.Setenv(fixtures.AnchorEnv, "") // the test binary pins one: this test is about the file
	file := filepath.Join(t.TempDir(), "fake", "anchor")
	start := time.Date(2026, 11, 24, 9, 58, 30, 0, time.UTC)
	first, err := Anchor(file, start)
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), first)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, "2026-11-24T09:00:00Z\n", string(b))

	again, err := Anchor(file, start.Add(3*time.Minute)) // the hour turned
	require.NoError(t, err)
	require.Equal(t, first, again)
	again, err = Anchor(file, first.Add(23*time.Hour+59*time.Minute))
	require.NoError(t, err)
	require.Equal(t, first, again)

	later, err := Anchor(file, first.Add(25*time.Hour+10*time.Minute))
	require.NoError(t, err)
	require.Equal(t, first.Add(25*time.Hour), later, "a day later: the current hour")

	require.NoError(t, os.WriteFile(file, []byte("garbage"), 0o644))
	fixed, err := Anchor(file, start)
	require.NoError(t, err)
	require.Equal(t, first, fixed, "an unreadable record is replaced")

	t.Setenv(fixtures.AnchorEnv, "2026-01-02T03:00:00Z")
	pinned, err := Anchor(file, start)
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), pinned, "ADSYNC_FAKE_ANCHOR wins")
	t.Setenv(fixtures.AnchorEnv, "soon")
	_, err = Anchor(file, start)
	require.ErrorContains(t, err, "ADSYNC_FAKE_ANCHOR")
}
