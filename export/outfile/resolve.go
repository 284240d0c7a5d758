package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// target is what a path names once its symbolic links are followed.
type target struct {
	path    string      // the final target, every link on the way followed
	info    os.FileInfo // its Lstat; nil when nothing is there
	viaProc bool        // the way led into /proc: a process's open file
}

// maxLinks bounds the links followed, as the kernel's own lookup does.
const maxLinks = 40

// resolve follows path's symbolic links one at a time (not with
// filepath.EvalSymlinks) to see whether the way leads into /proc: the
// target of /proc/self/fd/1 is not always a path (pipe:[123]), and when it
// is, the file it names is one a shell opened, to be written through, not
// replaced.
func resolve(path string) (target, error) {
	p := filepath.Clean(path)
	for hops := 0; hops <= maxLinks; hops++ {
		t, err := lookup(p)
		switch {
		case err == nil && t.viaProc:
			return t, nil
		case errors.Is(err, fs.ErrNotExist) && hops > 0, err == nil && t.info == nil && hops > 0:
			return target{}, fmt.Errorf("it is a symbolic link to %s, which does not exist", p)
		case err != nil:
			return target{}, err
		case t.info == nil, t.info.Mode()&fs.ModeSymlink == 0:
			return t, nil
		}
		link, err := os.Readlink(t.path)
		if err != nil {
			return target{}, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(t.path), link)
		}
		p = link
	}
	return target{}, errors.New("too many levels of symbolic links")
}

// lookup finds p with the links of its folders followed, not its own.
func lookup(p string) (target, error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return target{}, err
	}
	p = filepath.Join(dir, filepath.Base(p))
	if p == "/proc" || strings.HasPrefix(p, "/proc/") {
		return target{path: p, viaProc: true}, nil
	}
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return target{path: p}, nil
	}
	if err != nil {
		return target{}, err
	}
	return target{path: p, info: fi}, nil
}
