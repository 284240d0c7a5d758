package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Place moves the finished file src to dst, a name that must be free: it
// never replaces, follows or writes into whatever already holds dst (a
// file, a symbolic link, a FIFO, a device), and leaves it as it is. It is
// how adsync publishes into a folder it owns, where a name already taken
// means someone else put something there. A taken name is an error
// wrapping fs.ErrExist.
func Place(src, dst string) error {
	err := os.Link(src, dst)
	switch {
	case err == nil:
		return os.Remove(src)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s: %w", dst, fs.ErrExist)
	case errors.Is(err, syscall.EXDEV), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.ENOTSUP):
		// A file system without hard links: look, then rename (a name
		// taken between the two is the one case this cannot see).
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("%s: %w", dst, fs.ErrExist)
		}
		return os.Rename(src, dst)
	default:
		return err
	}
}
