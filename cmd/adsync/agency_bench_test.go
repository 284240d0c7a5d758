package main

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/fixtures/measure"
	"github.com/stretchr/testify/require"
)

// agencyLatencyMS delays every service answer in BenchmarkAgencyWorkers, as
// a service across the internet does; without it the fake answers in
// microseconds and the figure would measure only the 2-core machine's CPU.
const agencyLatencyMS = 50

// BenchmarkAgencyWorkers syncs the same agency (20 users' tokens besides
// the owner's, 1,000 accounts of 2 campaigns and 2 line items each, every
// answer delayed agencyLatencyMS) with 1, 2 and 3 `adsync worker`
// processes of 4 sync jobs each. A first, untimed run discovers who reaches
// what and reads the roles; each timed run starts from empty entity tables.
//
// Per fleet size it reports wall and CPU seconds (the workers, this process
// serving the fake, Postgres), the speed-up against one worker, and the
// requests each user made: the fewest and the most, the users used, the most
// any user's window admitted on one endpoint against its limit, and 429s.
func BenchmarkAgencyWorkers(b *testing.B) {
	e := newEnv(b, func(o *fixtures.Options) {
		o.Accounts, o.Users = 1000, 20
		o.CampaignsPerAccount, o.LineItemsPerCampaign, o.CardsPerAccount = 2, 1, 0
		o.PostsPerAccount, o.AudiencesPerAccount, o.MediaPerAccount = 0, 0, 0
	}, fmt.Sprintf("secret_key: %q\nqueues: {sync: 4}\n", agencySecretKey))
	e.addTokens(b, e.generatedUsers())
	e.srv.AddFault(fixtures.FaultRule{Path: "/**", Kind: fixtures.FaultLatency, LatencyMS: agencyLatencyMS})
	const entities = "campaigns,line_items"
	cpu := measure.NewCPU(b, e.pool)

	// Discovery and role checks, untimed: the timed runs compare fleets on
	// the same, routine work.
	warm := e.fleet(b, 3)
	e.syncToEnd(b, entities)
	warm.stop(b)

	var oneWorker float64
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				_, err := e.pool.Exec(context.Background(), `TRUNCATE campaigns, line_items, sync_bookmarks`)
				require.NoError(b, err)
				f := e.fleet(b, n)
				before, cpu0 := e.srv.Stats(), cpu.Now()+f.cpu(b)
				b.StartTimer()
				start := time.Now()
				e.syncToEnd(b, entities)
				wall := time.Since(start)
				b.StopTimer()
				used := cpu.Now() + f.cpu(b) - cpu0
				f.stop(b)
				requireTablesMatch(b, e.pool, e.srv.AdsTruth(), "campaigns", "line_items")

				if n == 1 {
					oneWorker = wall.Seconds()
				}
				b.ReportMetric(wall.Seconds(), "wall-s")
				b.ReportMetric(used.Seconds(), "cpu-s")
				if oneWorker > 0 {
					b.ReportMetric(oneWorker/wall.Seconds(), "speedup")
				}
				reportUserRequests(b, before, e.srv.Stats(), e.srv.Options().RateLimits.Limit)
				b.StartTimer()
			}
		})
	}
}

// fleet is a set of running adsync worker processes.
type fleet []*proc

// fleet starts n workers and waits until each has registered, so a timed
// run does not measure their start.
func (e *env) fleet(t testing.TB, n int) fleet {
	t.Helper()
	var f fleet
	pids := make([]int32, n)
	for i := range n {
		p := e.worker(t)
		f = append(f, p)
		pids[i] = int32(p.cmd.Process.Pid)
	}
	waitFor(t, time.Minute, "the workers to register", func() bool {
		var k int
		require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT count(*) FROM adsync_workers WHERE pid = ANY($1)`, pids).Scan(&k))
		return k == n
	})
	return f
}

// cpu is the CPU time the workers have used so far.
func (f fleet) cpu(t testing.TB) time.Duration {
	var sum time.Duration
	for _, p := range f {
		d, err := localpg.PIDCPU(p.cmd.Process.Pid)
		require.NoError(t, err)
		sum += d
	}
	return sum
}

func (f fleet) stop(t testing.TB) {
	for _, p := range f {
		p.stop(t)
	}
}

// syncToEnd queues a full sync of entities and waits for it to succeed.
func (e *env) syncToEnd(t testing.TB, entities string) {
	t.Helper()
	id := e.queueSync(t, "--entities", entities, "--full")
	waitFor(t, 10*time.Minute, "sync run "+id, func() bool { return e.outcome(t, id) != "running" })
	require.Equal(t, "succeeded", e.outcome(t, id))
}

// reportUserRequests reports the requests each user made between two
// snapshots of the fake's statistics, the most one user's window admitted
// on one endpoint (since the fake started) against limit, and 429s.
func reportUserRequests(b *testing.B, before, after fixtures.Stats, limit int) {
	perUser := map[string]int{}
	throttled := 0
	for k, c := range after.ByUser {
		d := c.Requests - before.ByUser[k].Requests
		throttled += c.Throttled - before.ByUser[k].Throttled
		if k.User != "" && d > 0 {
			perUser[k.User] += d
		}
	}
	counts := make([]int, 0, len(perUser))
	for _, n := range perUser {
		counts = append(counts, n)
	}
	require.NotEmpty(b, counts)
	slices.Sort(counts)
	peak := 0
	for _, f := range after.Families {
		peak = max(peak, f.MaxInWindow)
	}
	b.ReportMetric(float64(len(counts)), "users")
	b.ReportMetric(float64(counts[0]), "min-req/user")
	b.ReportMetric(float64(counts[len(counts)-1]), "max-req/user")
	b.ReportMetric(float64(peak), "peak-req/window")
	b.ReportMetric(float64(limit), "limit-req/window")
	b.ReportMetric(float64(throttled), "429s")
}
