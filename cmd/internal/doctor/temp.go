package doctor

import (
	"fmt"

	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/audience"
)

// checkTempFolder checks that dir takes a file, as an audience plan needs
// (audience.CheckTempDir), and says how many users its free space holds.
func checkTempFolder(dir string) check {
	c := check{name: "temp folder"}
	room, err := audience.CheckTempDir(dir)
	if err != nil {
		c.status, c.found = statusFail, dir+" cannot be written: "+err.Error()
		c.todo = fmt.Sprintf("set TMPDIR to a writable folder with room: an audience plan keeps about %d bytes a user there while it plans "+
			"(a user of one identifier), and %d bytes more a user past its first %d users",
			audience.TempBytesPerUser, hashing.KeyBytes, hashing.KeysInMemory)
		return c
	}
	c.status, c.found = statusOK, dir+" is writable"
	if room.Known {
		c.found += fmt.Sprintf(", %.1f GB free: an audience plan of up to about %d million users fits (%d bytes a user of one identifier, its keys' runs merging)",
			float64(room.Free)/1e9, room.Users()/1e6, audience.TempBytesPerPlannedUser)
	}
	return c
}
