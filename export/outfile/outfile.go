package outfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// File is an output on its way to its destination: what is written reaches
// the destination only on Commit, so a run that fails (Abort) leaves the
// destination as it was and no temporary file behind.
type File struct {
	name string   // the destination as the caller named it, for messages
	tmp  *os.File // where Write goes

	// A regular file is replaced: tmpPath is renamed over final.
	tmpPath, final string
	// Anything else is a stream: tmp is an unnamed spool copied to out.
	out      io.Writer
	closeOut func() error

	done bool
}

// Create starts an output to path. What path holds decides how it is
// written, and nothing already there is ever removed:
//
//   - Nothing, or a regular file: the bytes go to a temporary file in the
//     same directory that Commit syncs and renames over path, so a reader
//     sees the old file or the whole new one. The new file keeps the old
//     one's mode and owner; a file this process cannot give back to its
//     owner (another user's, when not running as root) is an error and is
//     left as it is. A new file gets 0666 less the umask, as os.Create
//     gives. A hard link to the old file keeps the old content.
//   - A character or block device, a FIFO, a socket (/dev/null, a named
//     pipe): it is opened for writing now (a FIFO waits for its reader, as a
//     shell's > does) and the bytes are copied into it on Commit; it is never
//     replaced, truncated or removed.
//   - A process's open file, reached through /proc (/dev/stdout, /dev/fd/N
//     of a shell's process substitution): written like a device, appending,
//     so the bytes land where the shell's > or >> put them.
//   - A symbolic link: followed to its final target, to which the rules
//     above apply: a regular target is replaced in its own directory and the
//     link stays a link to it (as sed -i --follow-symlinks does). A link to
//     nothing is an error naming both ends: it usually points where
//     something used to be (a moved folder, an unmounted disk), and a file
//     created there would be output nobody finds (GNU cp refuses it too).
//   - A directory: an error naming it.
func Create(path string) (*File, error) {
	f, err := create(path)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return f, nil
}

func create(path string) (*File, error) {
	t, err := resolve(path)
	switch {
	case err != nil:
		return nil, err
	case t.viaProc:
		return openStream(path, t.path, os.O_APPEND)
	case t.info == nil:
		return createReplacing(path, t.path, nil)
	case t.info.IsDir():
		return nil, errors.New("it is a directory")
	case t.info.Mode().IsRegular():
		return createReplacing(path, t.path, t.info)
	default:
		return openStream(path, t.path, 0)
	}
}

// Spool starts an output to w, named name in messages: the bytes are kept in
// an unnamed temporary file and copied to w on Commit, for a destination
// that cannot take back what a failed run wrote (standard output).
func Spool(w io.Writer, name string) (*File, error) {
	tmp, err := spool()
	if err != nil {
		return nil, err
	}
	return &File{name: name, tmp: tmp, out: w}, nil
}

// WriteFile writes b to path as Create does, all or nothing.
func WriteFile(path string, b []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}

// Stream reports whether the destination is written into rather than
// replaced: a device, a FIFO, a process's open file, or a Spool's writer.
func (f *File) Stream() bool { return f.final == "" }

// Write adds p to the output; nothing reaches the destination before Commit.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Commit delivers what was written to the destination: the temporary file
// is renamed over it, or the spool copied into it. Whatever happens, the
// File is finished afterwards; on an error a replaced file is still the old
// one.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("writing %s: already committed or aborted", f.name)
	}
	defer f.Abort()
	var err error
	if f.final != "" {
		err = f.rename()
	} else {
		err = f.copyOut()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.name, err)
	}
	return nil
}

// Abort drops what was written: the temporary file is removed and the
// destination left as it was. It does nothing after Commit, so it can be
// deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	_ = f.tmp.Close()
	if f.tmpPath != "" {
		_ = os.Remove(f.tmpPath)
	}
	if f.closeOut != nil {
		_ = f.closeOut()
	}
}
