package audience

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/adsync/adsync/hashing"
)

// spool holds a source's users between reading the source and recording
// its plan: a temporary file of hashed users (never a raw identifier),
// written as the source is read and read back once, in the same order,
// inside the plan's transaction. The source is thus read with nothing of
// adsync's own open: no transaction, no lock, no upload recorded, however
// long a query takes. Memory stays flat whatever the source's size; the
// file, in os.TempDir, takes about TempBytesPerUser bytes a user (a hash
// in 32 bytes), and is removed by Close.
type spool struct {
	f     *os.File
	w     *bufio.Writer
	buf   []byte
	users int64
}

// TempBytesPerUser is about how many bytes of os.TempDir a plan's spool
// takes a user of one hashed identifier (each further one adds about 33):
// what adsync doctor counts a user (a test pins it).
const TempBytesPerUser = 40

// maxUserBytes bounds one spooled user: far more than a request may hold.
const maxUserBytes = 64 << 20

// newSpool creates an empty spool.
func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", "adsync-audience-*.spool")
	if err != nil {
		return nil, fmt.Errorf("spool the users: %w", err)
	}
	return &spool{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// add appends u.
func (s *spool) add(u *hashing.HashedUser) error {
	var err error
	if s.buf, err = u.AppendBinary(s.buf[:0]); err != nil {
		return err
	}
	var head [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(head[:], uint64(len(s.buf)))
	if _, err := s.w.Write(head[:n]); err != nil {
		return fmt.Errorf("spool the users: %w", err)
	}
	if _, err := s.w.Write(s.buf); err != nil {
		return fmt.Errorf("spool the users: %w", err)
	}
	s.users++
	return nil
}

// replay gives emit every user added, in order.
func (s *spool) replay(emit func(hashing.HashedUser) error) error {
	var u hashing.HashedUser
	return s.each(func(rec []byte) error {
		if err := u.UnmarshalBinary(rec); err != nil {
			return fmt.Errorf("read the spooled users back: %w", err)
		}
		return emit(u)
	})
}

// replayJSON gives emit the user object and line of every user added, in
// order, written straight from the spool: what an add sends. obj is valid
// until emit returns.
func (s *spool) replayJSON(emit func(line int, obj []byte) error) error {
	var obj []byte
	return s.each(func(rec []byte) error {
		var line int
		var err error
		if obj, line, err = hashing.AppendBinaryJSON(obj[:0], rec); err != nil {
			return fmt.Errorf("read the spooled users back: %w", err)
		}
		return emit(line, obj)
	})
}

// each gives fn every user added, in its binary form, in order; rec is
// valid until fn returns.
func (s *spool) each(fn func(rec []byte) error) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spool the users: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spool the users: %w", err)
	}
	r := bufio.NewReaderSize(s.f, 1<<20)
	for range s.users {
		size, err := binary.ReadUvarint(r)
		if err == nil && size > maxUserBytes {
			err = fmt.Errorf("a user of %d bytes", size)
		}
		if err == nil {
			s.buf = slices.Grow(s.buf[:0], int(size))[:size]
			_, err = io.ReadFull(r, s.buf)
		}
		if err != nil {
			return fmt.Errorf("read the spooled users back: %w", err)
		}
		if err := fn(s.buf); err != nil {
			return err
		}
	}
	return nil
}

// Close removes the spool's file.
func (s *spool) Close() error {
	if s == nil {
		return nil
	}
	return errors.Join(s.f.Close(), os.Remove(s.f.Name()))
}
