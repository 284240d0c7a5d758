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

// oneShotRuns is how many times BenchmarkOneShotSync runs each command; it
// reports the medians.
const oneShotRuns = 5

// BenchmarkOneShotSync runs `adsync sync --wait` of a 2-account fake as its
// own process, oneShotRuns times (the first on empty tables, the others
// incremental), and reports the median client CPU seconds of one run, start
// to exit: start-up, the River client, the migrations check, the work,
// shutdown. Its baseline, measured in the same run, is `adsync version`
// from the same binary and configuration (start-up and exit alone:
// libphonenumber's metadata, loaded in its package's init, is part of both).
// The figure is printed, not held to a limit. The worker's settings are the
// defaults a user has, not the tests' quick heartbeat (testWorker): a beat
// every 200 ms, each with its statements, costs a one-shot of a second a few
// more. With ADSYNC_BENCH_PROFILE=DIR each sync writes its CPU profile to
// DIR/oneshot-N.pprof.
func BenchmarkOneShotSync(b *testing.B) {
	e := newEnv(b, func(o *fixtures.Options) { o.Accounts = 2 }, "")
	conf, err := os.ReadFile(e.conf)
	require.NoError(b, err)
	defaults := strings.Replace(string(conf), testWorker, "", 1)
	require.NotEqual(b, string(conf), defaults, "the configuration sets the tests' worker settings")
	require.NoError(b, os.WriteFile(e.conf, []byte(defaults), 0o600))
	for range b.N {
		cpu, wall := medianRun(b, e, func(i int) []string {
			args := []string{"sync", "--wait"}
			if dir := os.Getenv("ADSYNC_BENCH_PROFILE"); dir != "" {
				args = append(args, "--cpuprofile", filepath.Join(dir, fmt.Sprintf("oneshot-%d.pprof", i)))
			}
			return args
		})
		startCPU, _ := medianRun(b, e, func(int) []string { return []string{"version"} })
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(startCPU.Seconds(), "startup-cpu-s")
	}
}

// medianRun runs adsync oneShotRuns times with the arguments args(i) gives
// run i, each to a zero exit, and returns the median CPU (user and system)
// and wall time of one run.
func medianRun(b *testing.B, e *env, args func(i int) []string) (cpu, wall time.Duration) {
	b.Helper()
	var cpus, walls []time.Duration
	for i := range oneShotRuns {
		start := time.Now()
		p := e.start(b, args(i)...)
		<-p.done
		walls = append(walls, time.Since(start))
		require.Equal(b, 0, p.status, p.output())
		st := p.cmd.ProcessState
		cpus = append(cpus, st.UserTime()+st.SystemTime())
	}
	slices.Sort(cpus)
	slices.Sort(walls)
	return cpus[oneShotRuns/2], walls[oneShotRuns/2]
}
