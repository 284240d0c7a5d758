package stats_test

import (
	"os"
	"testing"

	"github.com/adsync/adsync/sync/synctest"
)

// The tests compute (the fake's analytics, decoding them) as much as they
// wait on Postgres, whose work is another process's: four at a time keep
// both cores busy. None waits on the wall clock (the fakes' clocks are
// moved), so more at once cannot make one time out.
func TestMain(m *testing.M) { os.Exit(synctest.Main(m, 4)) }
