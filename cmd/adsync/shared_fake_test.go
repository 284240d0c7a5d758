package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/handbook"
	"github.com/adsync/adsync/fixtures/localfake"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// newDemoDir is a directory for the zero-config demo, holding the sample
// CRM file where the demo's commands look for it. Its end stops what a
// failed test left running there.
func newDemoDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "adsync-demo-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755)) // as root, the postgres OS user must reach it
	sample, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "sample", "crm.csv"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "fixtures", "sample"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fixtures", "sample", "crm.csv"), sample, 0o644))
	t.Cleanup(func() {
		if rec, ok := localfake.Running(context.Background(), filepath.Join(dir, ".adsync", "fake")); ok {
			_ = syscall.Kill(rec.PID, syscall.SIGKILL)
		}
		if b, err := os.ReadFile(filepath.Join(dir, ".adsync", "pg", "data", "postmaster.pid")); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGQUIT) // immediate shutdown
				time.Sleep(time.Second)
			}
		}
		_ = os.RemoveAll(dir)
	})
	return dir
}

// fakeTruth is the shared fake's ground truth (GET /_fixtures/state).
type fakeTruth struct {
	Ads       fixtures.AdsTruth `json:"ads"`
	Analytics struct {
		Jobs []struct {
			ID        string `json:"id"`
			AccountID string `json:"account_id"`
		} `json:"jobs"`
	} `json:"analytics"`
}

func readFakeTruth(t *testing.T, url string) fakeTruth {
	t.Helper()
	resp, err := http.Get(url + "/_fixtures/state")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var st fakeTruth
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	return st
}

// sharedFake is the demo's shared fake as recorded in dir.
func sharedFake(t *testing.T, dir string) localfake.Record {
	t.Helper()
	rec, ok := localfake.Running(context.Background(), filepath.Join(dir, ".adsync", "fake"))
	require.True(t, ok, "the demo's shared fake runs")
	return rec
}

// startWorkerInDir starts adsync worker in dir and waits until it runs.
func startWorkerInDir(t *testing.T, dir string) *proc {
	t.Helper()
	w := startProc(t, commandInDir(t, dir, nil, "worker", "--http-addr", "127.0.0.1:0", "--shutdown-timeout", "20s"))
	waitFor(t, patience, "the worker to run", func() bool { return strings.Contains(w.output(), "worker running") })
	return w
}

// runOK runs adsync args in dir and requires exit status 0.
func runOK(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, stdout, stderr := runInDir(t, dir, nil, args...)
	require.Equal(t, 0, code, "adsync %v\nstdout:\n%s\nstderr:\n%s", args, stdout, stderr)
	return stdout
}

var createdDemoAudience = regexp.MustCompile(`created custom audience (\S+) \("adsync demo CRM"\) in account (\S+)\n`)

// docsScenario is the commands of docs/getting-started.md's scenario beside
// a worker, without ./bin/adsync and the comments.
func docsScenario(t *testing.T) []string {
	t.Helper()
	guide, err := handbook.Read("docs/getting-started.md")
	require.NoError(t, err)
	block, ok := handbook.Block(guide, "sh", "./bin/adsync worker --http-addr 127.0.0.1:0 &")
	require.True(t, ok, "docs/getting-started.md shows commands beside a worker")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		l, _, _ = strings.Cut(l, "#")
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, strings.TrimPrefix(l, "./bin/adsync "))
		}
	}
	return lines
}

// docs/getting-started.md's scenario: a worker left running in the demo's
// directory and commands run beside it talk to one fake, whose ground truth
// is what they report and store; the last of them to end stops it, and its
// audiences are there again for the next user.
func TestCommandsBesideAWorkerInTheDemoDirectoryShareOneFake(t *testing.T) {
	t.Parallel()
	dir := newDemoDir(t)
	first := runOK(t, dir, "run")
	m := createdDemoAudience.FindStringSubmatch(first)
	require.NotNil(t, m, first)
	demoAudience, account := m[1], m[2]
	require.Equal(t, []string{
		"worker --http-addr 127.0.0.1:0 &",
		"audience upload --account " + account + " --create my-list --in fixtures/sample/crm.csv",
		"stats sync --wait", "sync --wait", "run", "kill %1",
	}, docsScenario(t), "the docs show the commands this test runs, with the demo's account")
	require.NoFileExists(t, filepath.Join(dir, ".adsync", "fake", "fake.json"), "the run was the fake's last user")

	worker := startWorkerInDir(t, dir)
	require.Contains(t, worker.output(), "adsync: no service configured: using the demo's fake service at ")
	fake := sharedFake(t, dir)
	require.Equal(t, 3000, readFakeTruth(t, fake.URL).Ads.Membership[demoAudience]["email"].Count,
		"the fake started again holds the members the first run uploaded")

	// Queued without --wait: the worker sends the batches to the audience
	// this command created, in the same fake.
	out := runOK(t, dir, "audience", "upload", "--account", account, "--create", "nc-demo-2", "--in", "fixtures/sample/crm.csv")
	require.Contains(t, out, "queued: 'adsync worker' sends the batches")
	queued := regexp.MustCompile(`created custom audience (\S+) \("nc-demo-2"\)`).FindStringSubmatch(out)
	require.NotNil(t, queued, out)
	waitFor(t, patience, "the worker to send the queued batches", func() bool {
		return readFakeTruth(t, fake.URL).Ads.Membership[queued[1]]["email"].Count == 3000
	})
	out = runOK(t, dir, "audience", "upload", "--account", account, "--create", "nc-demo-3", "--in", "fixtures/sample/crm.csv", "--wait")
	require.Contains(t, out, "adds: 3000 sent, 3000 accepted")
	waited := regexp.MustCompile(`created custom audience (\S+) \("nc-demo-3"\)`).FindStringSubmatch(out)
	require.NotNil(t, waited, out)
	require.Equal(t, 3000, readFakeTruth(t, fake.URL).Ads.Membership[waited[1]]["email"].Count)

	runOK(t, dir, "stats", "sync", "--wait")
	runOK(t, dir, "sync", "--wait")
	again := runOK(t, dir, "run")
	require.Contains(t, again, "created by an earlier run")
	require.Contains(t, again, "skipped: fixtures/sample/crm.csv was already uploaded to audience "+demoAudience)
	require.Equal(t, fake, sharedFake(t, dir), "every command used the worker's fake")
	requireDemoDatabaseMatchesFake(t, dir, fake.URL, readFakeTruth(t, fake.URL))
	membership := readFakeTruth(t, fake.URL).Ads.Membership

	worker.stop(t)
	require.Eventually(t, func() bool { return syscall.Kill(fake.PID, 0) != nil }, patience, 50*time.Millisecond,
		"the worker, its last user, stopped the fake's process")
	require.NoFileExists(t, filepath.Join(dir, ".adsync", "fake", "fake.json"))

	// The next user, with a fake started afresh, finds the audiences as the
	// last one left them. (A third adsync run here added nothing: its skip
	// of the sample file is the second run's, and cmd's fresh-clone test
	// runs the demo again on a fake restarted from its saved state.)
	worker = startWorkerInDir(t, dir)
	require.Equal(t, membership, readFakeTruth(t, sharedFake(t, dir).URL).Ads.Membership)
	worker.stop(t)
}

// requireDemoDatabaseMatchesFake checks the demo's database against the
// shared fake's ground truth: every entity stored once, and every stored
// analytics job one the fake issued, once.
func requireDemoDatabaseMatchesFake(t *testing.T, dir, url string, truth fakeTruth) {
	t.Helper()
	ctx := context.Background()
	c, err := localpg.Start(ctx, localpg.Options{Dir: filepath.Join(dir, ".adsync", "pg"), Persistent: true, Durable: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Stop()) }()
	pool, err := store.Connect(ctx, c.URL("postgres"), store.ConnectOptions{MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	requireEntitiesMatch(t, pool, truth.Ads)

	issued := map[string]string{}
	for _, j := range truth.Analytics.Jobs {
		require.NotContains(t, issued, j.ID, "job ids are unique")
		issued[j.ID] = j.AccountID
	}
	// The first run's jobs were issued by the fake of that run, stopped since.
	rows, err := pool.Query(ctx, `SELECT account_id, service_job_id FROM stats_jobs
		WHERE service_job_id IS NOT NULL AND run_id > (SELECT min(run_id) FROM stats_jobs)`)
	require.NoError(t, err)
	defer rows.Close()
	stored := 0
	for rows.Next() {
		var acct, id string
		require.NoError(t, rows.Scan(&acct, &id))
		require.Equal(t, acct, issued[id], "stored job %s is one the shared fake issued for its account", id)
		stored++
	}
	require.NoError(t, rows.Err())
	require.Positive(t, stored)
	requireStatsMatchFake(t, pool, url, truth)
}

// requireStatsMatchFake checks the stored daily analytics of every account
// against the shared fake's ground truth (GET /_fixtures/analytics) over
// days every account's lookback holds whole in any zone, with a day of
// margin on each side for a test that runs across midnight.
func requireStatsMatchFake(t *testing.T, pool *pgxpool.Pool, url string, truth fakeTruth) {
	t.Helper()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	from, to := today.AddDate(0, 0, -12).Format(time.DateOnly), today.AddDate(0, 0, -3).Format(time.DateOnly)
	type key struct{ entity, id, placement, date string }
	type sums struct{ impressions, engagements, charge int64 }
	checked := 0
	for acct := range truth.Ads.Accounts {
		want := map[key]sums{}
		for _, entity := range stats.DefaultEntities {
			resp, err := http.Get(url + "/_fixtures/analytics?account_id=" + acct + "&entity=" + entity + "&start=" + from + "&end=" + to)
			require.NoError(t, err)
			var body struct {
				Rows []fixtures.AnalyticsTruthRow `json:"rows"`
			}
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			resp.Body.Close()
			for _, r := range body.Rows {
				if v := (sums{r.Impressions, r.Engagements, r.BilledChargeLocalMicro}); v != (sums{}) {
					want[key{r.Entity, r.EntityID, r.Placement, r.Date}] = v
				}
			}
		}
		got := map[key]sums{}
		rows, err := pool.Query(context.Background(), `SELECT entity_type, entity_id, placement, bucket_date::text,
        coalesce(sum(impressions), 0), coalesce(sum(engagements), 0), coalesce(sum(billed_charge_local_micro), 0)
    FROM ad_stats WHERE account_id = $1 AND granularity = 'DAY' AND segment_type = ''
        AND bucket_date BETWEEN $2::date AND $3::date GROUP BY 1, 2, 3, 4`, acct, from, to)
		require.NoError(t, err)
		for rows.Next() {
			var k key
			var v sums
			require.NoError(t, rows.Scan(&k.entity, &k.id, &k.placement, &k.date, &v.impressions, &v.engagements, &v.charge))
			if v != (sums{}) {
				got[k] = v
			}
		}
		require.NoError(t, rows.Err())
		require.Equal(t, want, got, "account %s's daily analytics from %s to %s", acct, from, to)
		checked += len(want)
	}
	require.Positive(t, checked, "the accounts delivered in those days")
}
