package adsynccmd

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStatsSyncWaitPullsActiveEntitiesAndRecordsTheRun(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "stats", "sync", "--entities", "CAMPAIGN", "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `accounts \d+, account-days \d+, active entities \d+, requests \d+ \(active entities \d+, synchronous stats \d+, asynchronous jobs \d+\), 429 answers \d+, jobs \d+, rows [1-9]\d*\n`, r.stdout)
	require.Contains(t, r.stdout, " succeeded\n")

	var rows, entities int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*), count(DISTINCT entity_type) FROM ad_stats`).Scan(&rows, &entities))
	require.Positive(t, rows)
	require.Equal(t, 1, entities, "--entities narrows the configured entity types")
	var outcome string
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT outcome FROM sync_runs WHERE pipeline = 'stats'`).Scan(&outcome))
	require.Equal(t, "succeeded", outcome)
}

func TestStatsSyncBadInputIsAUsageError(t *testing.T) {
	t.Parallel()
	// A usage error changes nothing: the cases share one service and database.
	b := setupService(t, bundleOptions{ownerToken: true})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--entities", "ACCOUNT"}, "ACCOUNT and ORGANIC_POST have no active entities"},
		{[]string{"--granularity", "WEEK"}, "must be DAY or HOUR"},
		{[]string{"--start", "yesterday"}, "neither a date"},
		{[]string{"--segmentation", "REGIONS"}, "needs a country"},
	} {
		r := b.run(t, append([]string{"stats", "sync"}, tc.args...)...)
		require.Equal(t, 2, r.code, r.stdout+r.stderr)
		require.Contains(t, r.stderr, tc.want)
	}
}

func TestStatsSyncWithoutWaitQueuesTheRunForAWorker(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "stats", "sync", "--entities", "CAMPAIGN")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `^stats run \d+ queued\n$`, r.stdout)
	var kind, state string
	require.NoError(t, b.pool(t).QueryRow(context.Background(),
		`SELECT kind, state FROM river_job ORDER BY id DESC LIMIT 1`).Scan(&kind, &state))
	require.Equal(t, "stats_sync", kind)
	require.Equal(t, "available", state, "no worker of this process took it")
}

// A span that can never be pulled, in some account's zone, or a
// segmentation the service does not know, is a usage error before anything
// is recorded or queued. At the pinned instant it is already 11 March in
// Tokyo and still 10 March in New York and Berlin.
func TestStatsSyncRefusesARequestThatCanNeverFinishBeforeQueueingIt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	b := setupService(t, bundleOptions{ownerToken: true, now: now})
	byZone := map[string]string{}
	var rec struct {
		Data []struct{ ID, Timezone string } `json:"data"`
	}
	resp := b.run(t, "api", "GET", "/12/accounts")
	require.Equal(t, 0, resp.code, resp.stderr)
	require.NoError(t, json.Unmarshal([]byte(resp.stdout), &rec))
	for _, a := range rec.Data {
		byZone[a.Timezone] = a.ID
	}
	ny, berlin, tokyo := byZone["America/New_York"], byZone["Europe/Berlin"], byZone["Asia/Tokyo"]
	require.NotEmpty(t, ny)
	require.NotEmpty(t, berlin)
	require.NotEmpty(t, tokyo)
	for _, tc := range []struct {
		args    []string
		want    []string
		notWant string
	}{
		{[]string{"--start", "2026-03-05", "--end", "2026-03-05"},
			[]string{"account " + tokyo + ": the span from 2026-03-05 to 2026-03-05 (exclusive, in Asia/Tokyo) is empty"}, ""},
		{[]string{"--start", "2026-03-05", "--end", "2026-03-01"}, []string{"the span from 2026-03-05 to 2026-03-01"}, ""},
		{[]string{"--start", "2026-03-11"}, []string{
			"account " + ny + ": the span starts 2026-03-11, after today there (2026-03-10 in America/New_York)",
			"account " + berlin + ": the span starts 2026-03-11, after today there (2026-03-10 in Europe/Berlin)"}, tokyo},
		{[]string{"--start", "2026-03-11", "--accounts", ny}, []string{"account " + ny + ": the span starts 2026-03-11"}, tokyo},
		{[]string{"--granularity", "HOUR", "--start", "2026-03-10T23:00:00Z"},
			[]string{"the span starts 2026-03-10T23Z, after the current hour there (2026-03-10T20Z in UTC)"}, ""},
		{[]string{"--segmentation", "BOGUS"}, []string{"unknown segmentation_type BOGUS; want one of AGE, GENDER"}, ""},
		{[]string{"--segmentation", "REGIONS"}, []string{"segmentation REGIONS needs a country"}, ""},
	} {
		r := b.run(t, append([]string{"stats", "sync", "--wait"}, tc.args...)...)
		require.Equal(t, 2, r.code, "%v: %s", tc.args, r.stdout+r.stderr)
		for _, w := range tc.want {
			require.Contains(t, r.stderr, w, tc.args)
		}
		if tc.notWant != "" {
			require.NotContains(t, r.stderr, tc.notWant, "%v: only the accounts refused are named", tc.args)
		}
	}
	pool := b.pool(t)
	var runs, queued int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM sync_runs`).Scan(&runs))
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job`).Scan(&queued))
	require.Zero(t, runs, "no run recorded")
	require.Zero(t, queued, "no job queued")

	// The day that has begun in Tokyo is pulled there.
	r := b.run(t, "stats", "sync", "--start", "2026-03-11", "--accounts", tokyo, "--entities", "CAMPAIGN", "--wait")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "accounts 1, account-days 1,")
}

// An interrupted --wait leaves the run open; the same command run again
// continues that run, adopting its waiting jobs, instead of starting a
// second one. The fake's clock stands still, so its asynchronous jobs
// cannot finish until the test moves it.
func TestStatsSyncInterruptedWhileWaitingIsContinuedByTheSameCommand(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	b := setupService(t, bundleOptions{ownerToken: true, now: now})
	pool := b.pool(t)
	count := func(q string) int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), q).Scan(&n))
		return n
	}
	cmd := []string{"stats", "sync", "--entities", "CAMPAIGN", "--start", "2026-02-01", "--end", "2026-03-01", "--wait"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Interrupt once the run is planned and waits for the service's
		// jobs, every one of them created.
		for ctx.Err() == nil && count(`SELECT count(*) FROM sync_runs WHERE (counts->>'planned')::bool
            AND NOT EXISTS (SELECT 1 FROM stats_jobs WHERE state <> 'waiting')`) == 0 {
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
	}()
	r := b.runCtx(ctx, t, cmd...)
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	require.Regexp(t, `stats run \d+: interrupted; run the same command again to resume`, r.stderr)
	require.Equal(t, 1, count(`SELECT count(*) FROM sync_runs WHERE pipeline = 'stats' AND outcome = 'running'`))
	jobs := count(`SELECT count(*) FROM stats_jobs`)
	require.Positive(t, jobs)

	// From now on the service's time passes, a minute every 100ms: its jobs
	// finish.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for d := time.Minute; ; d += time.Minute {
			b.srv.SetClockOffset(d)
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	r = b.run(t, cmd...)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	// A line for an account created after 1 February may come first: its
	// span is clamped to its life.
	require.Regexp(t, `(?m)^continuing stats run \d+, which the same command left unfinished$`, r.stdout)
	require.Contains(t, r.stdout, " succeeded\n")
	require.Equal(t, 1, count(`SELECT count(*) FROM sync_runs WHERE pipeline = 'stats'`), "one run")
	require.Equal(t, 1, count(`SELECT count(*) FROM sync_runs WHERE pipeline = 'stats' AND outcome = 'succeeded'`))
	require.Equal(t, 1, count(`SELECT count(*) FROM river_job WHERE kind = 'stats_sync'`), "its job adopted, not queued again")
	require.Equal(t, jobs, count(`SELECT count(*) FROM stats_jobs WHERE state = 'stored'`), "no job asked for twice")
}
