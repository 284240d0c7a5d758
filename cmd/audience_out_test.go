package adsynccmd

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hashedAB is what audience hash writes for a CSV holding one user, A@B.co.
var hashedAB = `{"email":["` + sha256Hex("a@b.co") + `"]}` + "\n"

func TestAudienceHashOutIntoAFIFOLeavesItAFIFO(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", "email\nA@B.co\n")
	fifo := filepath.Join(t.TempDir(), "users.pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // waits for a writer, as a shell's reader does
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()

	r := run(t, "audience", "hash", "--in", in, "--out", fifo)
	require.Equal(t, 0, r.code, r.stderr)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	require.Equal(t, fs.ModeNamedPipe, fi.Mode().Type(), "still a FIFO, not replaced by a file")
	select {
	case b := <-got:
		require.Equal(t, hashedAB, b, "the reader got the users")
		require.Contains(t, r.stderr, "rows read: 1\n", "the report is not written into the FIFO")
	case <-time.After(30 * time.Second):
		t.Fatal("nothing was written into the FIFO")
	}
}

func TestAudienceHashOutIntoADeviceLeavesItADevice(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", "email\nA@B.co\n")
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	dev := 1<<8 | 3 // makedev(1, 3), what /dev/null is
	require.NoError(t, syscall.Mknod(null, syscall.S_IFCHR|0o666, dev), "the tests run as root")
	before, err := os.Lstat(null)
	require.NoError(t, err)

	r := run(t, "audience", "hash", "--in", in, "--out", null)
	require.Equal(t, 0, r.code, r.stderr)
	fi, err := os.Lstat(null)
	require.NoError(t, err)
	require.Equal(t, fs.ModeDevice|fs.ModeCharDevice, fi.Mode().Type(), "still a character device")
	require.EqualValues(t, dev, fi.Sys().(*syscall.Stat_t).Rdev)
	require.Equal(t, before.Mode(), fi.Mode(), "its mode unchanged")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left beside it")
}

func TestAudienceHashOutThroughASymlinkReplacesItsTargetKeepingItsMode(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", "email\nA@B.co\n")
	dir := t.TempDir()
	target := filepath.Join(dir, "users.ndjson")
	require.NoError(t, os.WriteFile(target, []byte("last week's\n"), 0o600))
	require.NoError(t, os.Chmod(target, 0o644))
	link := filepath.Join(dir, "latest.ndjson")
	require.NoError(t, os.Symlink("users.ndjson", link))

	r := run(t, "audience", "hash", "--in", in, "--out", link)
	require.Equal(t, 0, r.code, r.stderr)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, fs.ModeSymlink, fi.Mode().Type(), "the link stays a link")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, hashedAB, string(b), "its target holds the users")
	fi, err = os.Stat(target)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o644), fi.Mode(), "and keeps its mode, not 0600")
}
