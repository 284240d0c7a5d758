package outfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// openStream opens what is not a regular file (a device, a FIFO, a
// process's open file at path) for writing, with flag added, and spools the
// output for it. It is opened now, so a refusal is known before the output
// is made, and never truncated: O_TRUNC means nothing to a device or a FIFO,
// and a file reached through /proc is appended to.
func openStream(name, path string, flag int) (*File, error) {
	out, err := os.OpenFile(path, os.O_WRONLY|flag, 0)
	if err != nil {
		return nil, err
	}
	if flag&os.O_APPEND == 0 {
		// What was seen a moment ago as a device or a FIFO must still be
		// one: writing into a regular file put there meanwhile, without
		// replacing it, would leave its old tail behind the output.
		if fi, err := out.Stat(); err != nil || fi.Mode().IsRegular() || fi.IsDir() {
			_ = out.Close()
			if err == nil {
				err = errors.New("it changed while it was opened; nothing was written")
			}
			return nil, err
		}
	}
	tmp, err := spool()
	if err != nil {
		_ = out.Close()
		return nil, err
	}
	return &File{name: name, tmp: tmp, out: out, closeOut: out.Close}, nil
}

// spool is a temporary file already removed from its folder: the process
// keeps it open, and nothing is left behind when it ends, however it ends.
func spool() (*os.File, error) {
	f, err := os.CreateTemp("", "adsync-spool-*")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary file: %w", err)
	}
	_ = os.Remove(f.Name())
	return f, nil
}

// copyOut copies the spool into the destination and closes it.
func (f *File) copyOut() error {
	if _, err := f.tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(f.out, f.tmp); err != nil {
		return err
	}
	if f.closeOut != nil {
		closeOut := f.closeOut
		f.closeOut = nil
		return closeOut()
	}
	return nil
}
