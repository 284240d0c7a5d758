package outfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeAll creates path's output, writes s and commits it.
func writeAll(path, s string) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := io.WriteString(f, s); err != nil {
		return err
	}
	return f.Commit()
}

// onlyEntries lists the names in dir: no temporary file may stay behind.
func onlyEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func owner(t *testing.T, path string) (uint32, uint32) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid
}

func TestCreateReplacesARegularFileKeepingItsModeAndOwner(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "users.ndjson")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o600))
	require.NoError(t, os.Chmod(path, 0o644))
	require.NoError(t, os.Chown(path, 1234, 5678), "the tests run as root")

	require.NoError(t, writeAll(path, "new\n"))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new\n", string(b))
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o644), fi.Mode(), "a regular file with the old one's mode, not 0600")
	uid, gid := owner(t, path)
	require.Equal(t, []uint32{1234, 5678}, []uint32{uid, gid}, "the old file's owner and group")
	require.Equal(t, []string{"users.ndjson"}, onlyEntries(t, dir))
}

func TestCreateGivesANewFileTheModeOsCreateGives(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref, err := os.Create(filepath.Join(dir, "reference"))
	require.NoError(t, err)
	require.NoError(t, ref.Close())
	want, err := os.Stat(ref.Name())
	require.NoError(t, err)

	path := filepath.Join(dir, "users.ndjson")
	require.NoError(t, writeAll(path, "new\n"))
	got, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, want.Mode(), got.Mode(), "0666 less the umask")
}

func TestCreateWritesIntoAFIFOAndLeavesItAFIFO(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pipe")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()

	require.NoError(t, writeAll(path, "users\n"))
	require.Equal(t, "users\n", string(<-got), "the reader receives the bytes")
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	require.Equal(t, fs.ModeNamedPipe, fi.Mode().Type(), "still a FIFO")
}

func TestCreateWritesIntoADeviceAndLeavesItADevice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "null")
	null := 1<<8 | 3 // makedev(1, 3): the machine's /dev/null
	require.NoError(t, syscall.Mknod(path, syscall.S_IFCHR|0o666, null), "the tests run as root")

	require.NoError(t, writeAll(path, "users\n"))
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	require.Equal(t, fs.ModeDevice|fs.ModeCharDevice, fi.Mode().Type(), "still a character device")
	require.EqualValues(t, null, fi.Sys().(*syscall.Stat_t).Rdev, "the same device")
	require.Equal(t, []string{"null"}, onlyEntries(t, dir))
}

func TestCreateFollowsASymbolicLinkAndReplacesItsTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "data", "users.ndjson")
	require.NoError(t, os.Mkdir(filepath.Dir(real), 0o755))
	require.NoError(t, os.WriteFile(real, []byte("old\n"), 0o640))
	require.NoError(t, os.Chmod(real, 0o640))
	link := filepath.Join(dir, "latest.ndjson")
	require.NoError(t, os.Symlink("data/users.ndjson", link))

	require.NoError(t, writeAll(link, "new\n"))
	target, err := os.Readlink(link)
	require.NoError(t, err)
	require.Equal(t, "data/users.ndjson", target, "the link stays a link to the same target")
	b, err := os.ReadFile(real)
	require.NoError(t, err)
	require.Equal(t, "new\n", string(b), "the target gets the content")
	fi, err := os.Stat(real)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o640), fi.Mode())
	require.Equal(t, []string{"users.ndjson"}, onlyEntries(t, filepath.Dir(real)))
}

func TestCreateThroughALinkToAFIFOWritesIntoTheFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	link := filepath.Join(dir, "out")
	require.NoError(t, os.Symlink(fifo, link))
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()

	require.NoError(t, writeAll(link, "users\n"))
	require.Equal(t, "users\n", string(<-got))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, fs.ModeSymlink, fi.Mode().Type())
	fi, err = os.Lstat(fifo)
	require.NoError(t, err)
	require.Equal(t, fs.ModeNamedPipe, fi.Mode().Type())
}

func TestCreateAppendsToAFileAProcessHasOpenThroughProc(t *testing.T) {
	t.Parallel()
	// What --out /dev/stdout is when a shell ran `adsync ... >> log`.
	path := filepath.Join(t.TempDir(), "log")
	require.NoError(t, os.WriteFile(path, []byte("earlier\n"), 0o644))
	fd, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer fd.Close()
	before, err := os.Stat(path)
	require.NoError(t, err)

	require.NoError(t, writeAll(fmt.Sprintf("/proc/self/fd/%d", fd.Fd()), "users\n"))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "earlier\nusers\n", string(b), "appended, not replaced")
	after, err := os.Stat(path)
	require.NoError(t, err)
	require.True(t, os.SameFile(before, after), "the same file the process holds open")
}

func TestCreateRefusesWhatItCannotWriteNamingThePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "gone", "users.ndjson"), dangling))
	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"a directory", dir, []string{dir, "is a directory"}},
		{"a link to nothing", dangling, []string{dangling, filepath.Join(dir, "gone", "users.ndjson"), "does not exist"}},
		{"a loop of links", loop, []string{loop, "too many levels of symbolic links"}},
		{"a missing folder", filepath.Join(dir, "nowhere", "users.ndjson"), []string{filepath.Join(dir, "nowhere")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Create(tc.path)
			require.Error(t, err)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
	require.ElementsMatch(t, []string{"dangling", "loop"}, onlyEntries(t, dir), "nothing created")
}

func TestAFailedOutputLeavesTheOldFileAndNoTemporary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "users.ndjson")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))

	f, err := Create(path)
	require.NoError(t, err)
	_, err = io.WriteString(f, "half of the new")
	require.NoError(t, err)
	f.Abort()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old\n", string(b), "the run failed: the old content stays")
	require.Equal(t, []string{"users.ndjson"}, onlyEntries(t, dir))

	// A commit that cannot rename (the name became a folder holding a
	// file) removes its temporary and leaves the folder as it is.
	f, err = Create(path)
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	require.NoError(t, os.Mkdir(path, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(path, "keep"), []byte("x"), 0o644))
	err = f.Commit()
	require.ErrorContains(t, err, path)
	require.FileExists(t, filepath.Join(path, "keep"))
	require.Equal(t, []string{"users.ndjson"}, onlyEntries(t, dir))
}

func TestSpoolWritesOnlyOnCommit(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	f, err := Spool(&out, "stdout")
	require.NoError(t, err)
	_, err = io.WriteString(f, "users\n")
	require.NoError(t, err)
	require.Empty(t, out.String(), "nothing before the commit")
	require.NoError(t, f.Commit())
	require.Equal(t, "users\n", out.String())

	out.Reset()
	f, err = Spool(&out, "stdout")
	require.NoError(t, err)
	_, err = io.WriteString(f, "users\n")
	require.NoError(t, err)
	f.Abort()
	require.Empty(t, out.String(), "an aborted spool writes nothing")
}
