package synctest_test

import (
	"flag"
	"os"
	"os/exec"
	"testing"

	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(synctest.Main(m, 7)) }

// wantParallelEnv tells a child run of this binary the -parallel it must see.
const wantParallelEnv = "SYNCTEST_WANT_PARALLEL"

// Main's parallel is the default -parallel of the package's tests; a
// -parallel on the command line still wins.
func TestMainSetsTheDefaultParallelAndTheCommandLineWins(t *testing.T) {
	if want := os.Getenv(wantParallelEnv); want != "" {
		require.Equal(t, want, flag.Lookup("test.parallel").Value.String())
		return
	}
	self, err := os.Executable()
	require.NoError(t, err)
	for want, args := range map[string][]string{"7": nil, "3": {"-test.parallel", "3"}} {
		cmd := exec.Command(self, append([]string{"-test.run", "^" + t.Name() + "$", "-test.count", "1"}, args...)...)
		cmd.Env = append(os.Environ(), wantParallelEnv+"="+want)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "with %v: %s", args, out)
		require.Contains(t, string(out), "PASS")
	}
}
