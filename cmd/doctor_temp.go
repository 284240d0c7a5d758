package adsynccmd

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/audience"
)

// checkTempFolder checks that dir (os.TempDir(): TMPDIR) takes a file, as
// an audience plan needs (it spools its users there, and past
// hashing.KeysInMemory users their keys), and says how many users its free
// space holds. It leaves nothing behind.
func checkTempFolder(dir string) doctorCheck {
	c := doctorCheck{name: "temp folder"}
	const todo = "set TMPDIR to a writable folder with room: an audience plan keeps about %d bytes a user there while it plans " +
		"(a user of one identifier), and %d bytes more a user past its first %d users"
	f, err := os.CreateTemp(dir, "adsync-doctor-*")
	if err == nil {
		_, err = f.Write(make([]byte, hashing.KeyBytes))
		err = errors.Join(err, f.Close(), os.Remove(f.Name()))
	}
	if err != nil {
		c.status, c.found = checkFail, dir+" cannot be written: "+err.Error()
		c.todo = fmt.Sprintf(todo, audience.TempBytesPerUser, hashing.KeyBytes, hashing.KeysInMemory)
		return c
	}
	c.status, c.found = checkOK, dir+" is writable"
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) == nil {
		free := uint64(st.Bavail) * uint64(st.Bsize)
		perUser := uint64(audience.TempBytesPerUser + 2*hashing.KeyBytes)
		c.found += fmt.Sprintf(", %.1f GB free: an audience plan of up to about %d million users fits (%d bytes a user of one identifier, its keys' runs merging)",
			float64(free)/1e9, free/perUser/1e6, perUser)
	}
	return c
}
