package audience

import (
	"errors"
	"os"
	"syscall"

	"github.com/adsync/adsync/hashing"
)

// TempBytesPerPlannedUser is about how many bytes of os.TempDir planning
// takes a user of one identifier at its peak: its spooled hash
// (TempBytesPerUser) and its key twice while the keys' runs merge (past
// hashing.KeysInMemory users).
const TempBytesPerPlannedUser = TempBytesPerUser + 2*hashing.KeyBytes

// TempDirRoom is what CheckTempDir found of a folder: its free bytes, when
// the system says (Known).
type TempDirRoom struct {
	Free  uint64
	Known bool
}

// Users is about how many users of one identifier a plan may hold there.
func (r TempDirRoom) Users() uint64 { return r.Free / uint64(TempBytesPerPlannedUser) }

// CheckTempDir checks that dir (os.TempDir(), that is TMPDIR, for a plan)
// takes a file, as a plan needs (it spools its users there, and past
// hashing.KeysInMemory users their keys), and says how much room it has.
// It leaves nothing behind.
func CheckTempDir(dir string) (TempDirRoom, error) {
	f, err := os.CreateTemp(dir, "adsync-doctor-*")
	if err == nil {
		_, err = f.Write(make([]byte, hashing.KeyBytes))
		err = errors.Join(err, f.Close(), os.Remove(f.Name()))
	}
	if err != nil {
		return TempDirRoom{}, err
	}
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return TempDirRoom{}, nil
	}
	return TempDirRoom{Free: uint64(st.Bavail) * uint64(st.Bsize), Known: true}, nil
}
