package synctest

import (
	"flag"
	"strconv"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
)

// Main is the TestMain of a pipeline test package: localpg.Main (the test
// Postgres server) with go test's -parallel defaulting to parallel instead
// of GOMAXPROCS, unless the command line gives -parallel. A pipeline test
// spends most of its time waiting (on Postgres, on River's polling and
// snoozes, on a fake's latency, on child processes), so GOMAXPROCS tests at
// a time leave the CPU mostly idle; more at once finish the package sooner
// on the same CPU.
func Main(m *testing.M, parallel int) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(parallel)); err != nil {
			panic("synctest: " + err.Error()) // testing registers test.parallel before TestMain runs
		}
	}
	return localpg.Main(m)
}
