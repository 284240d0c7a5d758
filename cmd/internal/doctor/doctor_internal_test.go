package doctor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The temp folder check says whether an audience plan can keep its users'
// keys there, names the fix when not, and leaves nothing behind.
func TestDoctorChecksTheTempFolderAPlanWritesIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := checkTempFolder(dir)
	require.Equal(t, statusOK, c.status, c.found)
	require.Contains(t, c.found, dir+" is writable")
	require.Regexp(t, `GB free: an audience plan of up to about \d+ million users fits`, c.found)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)

	missing := filepath.Join(dir, "missing")
	c = checkTempFolder(missing)
	require.Equal(t, statusFail, c.status)
	require.Contains(t, c.found, missing+" cannot be written")
	require.Equal(t, "set TMPDIR to a writable folder with room: an audience plan keeps about 40 bytes a user there while it plans "+
		"(a user of one identifier), and 16 bytes more a user past its first 262144 users", c.todo)
}

// The clock check fails past the service's timestamp window, warns well
// before it, and reads a difference under a second as agreement.
func TestClockCheckFailsPastTheWindowAndWarnsBeforeIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		skew          time.Duration
		status, found string
	}{
		{400 * time.Millisecond, statusOK, "the service's clock agrees with this machine's within a second (Date header)"},
		{-10 * time.Second, statusOK, "the service's clock is 10s behind this machine's (Date header, 1s resolution)"},
		{ClockWarn, statusWarn, "the service's clock is 30s ahead of this machine's (Date header, 1s resolution)"},
		{-ClockFail, statusFail, "the service's clock is 5m0s behind this machine's (Date header, 1s resolution)"},
	} {
		c := checkClock(tc.skew, 3)
		require.Equal(t, tc.status, c.status, tc.skew)
		require.Equal(t, tc.found, c.found, tc.skew)
		require.Equal(t, tc.status == statusOK, c.todo == "", tc.skew)
	}
	require.Equal(t, statusSkip, checkClock(0, 0).status, "no Date header: nothing to compare")
}
