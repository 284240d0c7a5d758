package main

import (
	"os"

	"github.com/adsync/adsync/fixtures/adsyncbin"
)

// The processes these tests start run a plain build of adsync, compiled
// once per test run, not this race-built test binary: under the race
// detector each child costs several times the CPU, and what these tests
// pin (kills, signals, exit codes, what a process prints, a fleet's shared
// work) is the same in either build. Data races are the in-process tests'
// concern (cmd, jobs, sync/..., all under -race); the fleet test alone
// (TestThreeWorkersDoEachUnitOnceWithinTheRateBudgets) still runs its
// workers race-built (raceAdsync), as three processes sharing work is
// where a race between a worker's goroutines would show.

// plainAdsync is the path of the adsync the tests run (see TestMain).
var plainAdsync string

// adsyncExe is the adsync binary the tests start.
func adsyncExe() string { return plainAdsync }

// raceAdsync is this test binary, run as adsync (asMainEnv): race-built
// when the tests are.
func raceAdsync() string {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return self
}

// setPlainAdsync sets plainAdsync: this binary when it is not race-built,
// else the run's plain build (adsyncbin).
func setPlainAdsync() error {
	if !raceBuilt {
		plainAdsync = raceAdsync()
		return nil
	}
	exe, err := adsyncbin.Path()
	plainAdsync = exe
	return err
}
