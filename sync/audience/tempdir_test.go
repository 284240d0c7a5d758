package audience_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/adsync/adsync/sync/audience"
	"github.com/stretchr/testify/require"
)

func TestCheckTempDirWritesAFileLeavesNothingAndSaysTheRoom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	room, err := audience.CheckTempDir(dir)
	require.NoError(t, err)
	require.True(t, room.Known)
	require.Positive(t, room.Free)
	require.Equal(t, room.Free/uint64(audience.TempBytesPerPlannedUser), room.Users())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing left behind")

	_, err = audience.CheckTempDir(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
