package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// oneShotCPULimit is what a one-shot `adsync sync --wait` of a small
// deployment may cost the client, start to exit.
const oneShotCPULimit = 250 * time.Millisecond

// BenchmarkOneShotSync runs `adsync sync --wait` of a 2-account fake as its
// own process, five times (the first on empty tables, the others
// incremental), and reports the median client CPU seconds of one run, start
// to exit: start-up, the River client, the migrations check, the work,
// shutdown. The worker's settings are the defaults a user has, not the
// tests' quick heartbeat (testWorker): a beat every 200 ms, each with its
// statements, costs a one-shot of a second a few more. The limit is
// oneShotCPULimit. With ADSYNC_BENCH_PROFILE=DIR each run writes its CPU
// profile to DIR/oneshot-N.pprof.
func BenchmarkOneShotSync(b *testing.B) {
	e := newEnv(b, func(o *fixtures.Options) { o.Accounts = 2 }, "")
	conf, err := os.ReadFile(e.conf)
	require.NoError(b, err)
	defaults := strings.Replace(string(conf), testWorker, "", 1)
	require.NotEqual(b, string(conf), defaults, "the configuration sets the tests' worker settings")
	require.NoError(b, os.WriteFile(e.conf, []byte(defaults), 0o600))
	for range b.N {
		var cpu, wall []time.Duration
		for i := range 5 {
			args := []string{"sync", "--wait"}
			if dir := os.Getenv("ADSYNC_BENCH_PROFILE"); dir != "" {
				args = append(args, "--cpuprofile", filepath.Join(dir, fmt.Sprintf("oneshot-%d.pprof", i)))
			}
			start := time.Now()
			p := e.start(b, args...)
			<-p.done
			wall = append(wall, time.Since(start))
			require.Equal(b, 0, p.status, p.output())
			st := p.cmd.ProcessState
			cpu = append(cpu, st.UserTime()+st.SystemTime())
		}
		slices.Sort(cpu)
		slices.Sort(wall)
		b.ReportMetric(cpu[2].Seconds(), "cpu-s")
		b.ReportMetric(wall[2].Seconds(), "wall-s")
		b.ReportMetric(oneShotCPULimit.Seconds(), "limit-cpu-s")
	}
}
