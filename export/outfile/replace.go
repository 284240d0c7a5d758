package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// createReplacing starts a temporary file beside final (the regular file
// path leads to, or where it will be), owned and moded as old when it
// exists.
func createReplacing(name, final string, old os.FileInfo) (*File, error) {
	// A new file is created like os.Create's (0666 less the umask);
	// os.CreateTemp would make it 0600. A replacement starts private and
	// gets the old file's mode once its owner is set.
	perm := fs.FileMode(0o666)
	if old != nil {
		perm = 0o600
	}
	tmp, tmpPath, err := createTemp(final, perm)
	if err != nil {
		return nil, err
	}
	f := &File{name: name, tmp: tmp, tmpPath: tmpPath, final: final}
	if old != nil {
		if err := keepOwnerAndMode(tmp, old); err != nil {
			f.Abort()
			return nil, err
		}
	}
	return f, nil
}

// createTemp creates a new file named .<base>.<random>.tmp beside path.
// It is written by hand because os.CreateTemp fixes the mode at 0600.
func createTemp(path string, perm fs.FileMode) (*os.File, string, error) {
	dir, base := filepath.Split(path)
	for range 10 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(r[:])+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no free temporary name beside %s", path)
}

// keepOwnerAndMode gives tmp the owner, group and mode of old (the owner
// first: a change of owner clears the set-user-ID bit).
func keepOwnerAndMode(tmp *os.File, old os.FileInfo) error {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		if err := tmp.Chown(int(st.Uid), int(st.Gid)); err != nil {
			return fmt.Errorf("it belongs to user %d, group %d, and a replacement cannot be given to them (%w); it is left as it is", st.Uid, st.Gid, err)
		}
	}
	mode := old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	return tmp.Chmod(mode)
}

// rename makes the temporary file durable and moves it over the final path.
func (f *File) rename() error {
	if err := f.tmp.Sync(); err != nil {
		return err
	}
	if err := f.tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.tmpPath, f.final); err != nil {
		return err
	}
	f.tmpPath = "" // renamed: nothing left to remove
	if d, err := os.Open(filepath.Dir(f.final)); err == nil {
		_ = d.Sync() // the rename itself survives a crash
		_ = d.Close()
	}
	return nil
}
