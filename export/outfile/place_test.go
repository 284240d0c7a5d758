package outfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlaceMovesAFileToAFreeName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "staged"), filepath.Join(dir, "final")
	require.NoError(t, os.WriteFile(src, []byte("ours"), 0o644))
	require.NoError(t, Place(src, dst))
	b, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, "ours", string(b))
	require.NoFileExists(t, src)
}

func TestPlaceNeverReplacesWhatHoldsTheName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dst string)
		mode  fs.FileMode
	}{
		{"a file", func(t *testing.T, dst string) {
			require.NoError(t, os.WriteFile(dst, []byte("theirs"), 0o644))
		}, 0},
		{"a symbolic link", func(t *testing.T, dst string) {
			victim := filepath.Join(filepath.Dir(dst), "victim")
			require.NoError(t, os.WriteFile(victim, []byte("theirs"), 0o644))
			require.NoError(t, os.Symlink(victim, dst))
		}, fs.ModeSymlink},
		{"a link to nothing", func(t *testing.T, dst string) {
			require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(dst), "nothing"), dst))
		}, fs.ModeSymlink},
		{"a FIFO", func(t *testing.T, dst string) {
			require.NoError(t, syscall.Mkfifo(dst, 0o600))
		}, fs.ModeNamedPipe},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "staged"), filepath.Join(dir, "final")
			require.NoError(t, os.WriteFile(src, []byte("ours"), 0o644))
			tc.plant(t, dst)

			err := Place(src, dst)
			require.ErrorIs(t, err, fs.ErrExist)
			require.ErrorContains(t, err, dst)
			fi, err := os.Lstat(dst)
			require.NoError(t, err)
			require.Equal(t, tc.mode, fi.Mode().Type(), "still what was planted")
			require.NoFileExists(t, filepath.Join(dir, "nothing"), "a dangling link is not followed")
			if victim := filepath.Join(dir, "victim"); tc.mode == fs.ModeSymlink {
				if b, err := os.ReadFile(victim); err == nil {
					require.Equal(t, "theirs", string(b))
				}
			}
			require.FileExists(t, src, "the staged file stays for the caller")
		})
	}
}
