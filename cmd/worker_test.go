package adsynccmd

import (
	"bytes"
	"path/filepath"

	"context"
	"github.com/adsync/adsync/fixtures"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for a command writing while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWorker runs adsync worker in the background until the returned stop
// is called; it returns the health address and a wait for the exit status.
func startWorker(t *testing.T, b *serviceBundle, extraConfig string, args ...string) (addr string, stdout *syncBuffer, stop func() result) {
	t.Helper()
	f, err := os.OpenFile(b.conf, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(extraConfig)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	ctx, cancel := context.WithCancel(context.Background())
	stdout = &syncBuffer{}
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"worker", "--http-addr", "127.0.0.1:0", "--config", b.conf, "--database-url", b.db}, args...),
			strings.NewReader(""), stdout, stderr)
	}()
	re := regexp.MustCompile(`health and metrics on http://(\S+)`)
	require.Eventually(t, func() bool {
		select {
		case code := <-done:
			t.Fatalf("worker exited early with %d: %s", code, stderr.String())
		default:
		}
		m := re.FindStringSubmatch(stdout.String())
		if m != nil {
			addr = m[1]
		}
		return addr != ""
	}, busyWait, 20*time.Millisecond)
	return addr, stdout, func() result {
		cancel()
		select {
		case code := <-done:
			return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
		case <-time.After(60 * time.Second):
			t.Fatal("worker did not stop within 60s")
			return result{}
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestWorkerAnswersHealthRunsAScheduledJobAndStopsCleanly(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	out := t.TempDir()
	addr, _, stop := startWorker(t, b, "schedules:\n  sync: \"\"\n  insights: \"\"\n  posts: \"\"\n  export: \"@every 1s\"\nexport:\n  out: "+out+"\n")

	code, body := get(t, "http://"+addr+"/healthz")
	require.Equal(t, 200, code)
	require.Equal(t, "ok\n", body)
	code, _ = get(t, "http://"+addr+"/readyz")
	require.Equal(t, 200, code)

	pool := b.pool(t)
	require.Eventually(t, func() bool {
		var n int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM sync_runs WHERE pipeline = 'export' AND trigger = 'schedule' AND outcome = 'succeeded'`).Scan(&n)
		return n > 0
	}, busyWait, 100*time.Millisecond, "the export schedule fired and its job ran")
	require.Eventually(t, func() bool {
		_, metrics := get(t, "http://"+addr+"/metrics")
		// Every series is there from the start at zero: these have counted.
		return nonZero(metrics, `adsync_jobs_total{kind="export",outcome="completed"}`) &&
			nonZero(metrics, `adsync_export_rows_total{table="sync_runs"}`)
	}, busyWait, 100*time.Millisecond)
	_, metrics := get(t, "http://"+addr+"/metrics")
	require.Contains(t, metrics, "adsync_job_duration_seconds_bucket")
	require.Contains(t, metrics, "go_goroutines")

	r := stop()
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "worker stopped")
	_, err := http.Get("http://" + addr + "/healthz")
	require.Error(t, err, "the health server is closed")
}

func TestWorkerRejectsABadScheduleAtStart(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	f, err := os.OpenFile(b.conf, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("schedules:\n  sync: \"every night\"\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	r := b.run(t, "worker", "--http-addr", "127.0.0.1:0")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `schedules.sync: invalid cron spec "every night"`)
}

func TestStatusShowsRunsQueuesAndFailures(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	pool := b.pool(t)
	_, err := pool.Exec(context.Background(), `INSERT INTO sync_runs (pipeline, outcome, counts, finished_at) VALUES ('sync', 'partial', '{"campaigns":{"fetched":5,"inserted":5},"cards":{"fetched":2}}', now())`)
	require.NoError(t, err)
	r := b.run(t, "export", "--out", t.TempDir())
	require.Equal(t, 0, r.code, r.stderr)
	r = b.run(t, "status")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `\d+\s+sync\s+manual\s+\S+ \S+\s+\S+\s+partial\s+fetched=7 inserted=5`, r.stdout)
	require.Regexp(t, `\d+\s+export\s+manual\s+.*succeeded`, r.stdout)
	require.Contains(t, r.stdout, "QUEUES")
	require.Contains(t, r.stdout, "FAILED JOBS")
}

func TestWorkerCountsWorkInMetricsAndShutsDownCleanlyWithJobsInFlight(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	addr, _, stop := startWorker(t, b, "schedules:\n  sync: \"\"\n  insights: \"\"\n  posts: \"\"\n  export: \"\"\n")
	pool := b.pool(t)
	ctx := context.Background()

	r := b.run(t, "sync", "--entities", "campaigns")
	require.Equal(t, 0, r.code, r.stderr)
	acct := ""
	require.Eventually(t, func() bool {
		var outcome string
		_ = pool.QueryRow(ctx, `SELECT outcome FROM sync_runs WHERE pipeline = 'sync' ORDER BY id DESC LIMIT 1`).Scan(&outcome)
		return outcome == "succeeded"
	}, busyWait, 50*time.Millisecond, "the worker ran the queued sync")
	require.NoError(t, pool.QueryRow(ctx, `SELECT min(id) FROM accounts`).Scan(&acct))
	file := filepath.Join(t.TempDir(), "users.csv")
	require.NoError(t, os.WriteFile(file, []byte("email\na@example.com\nb@example.com\n"), 0o600))
	r = b.run(t, "audience", "upload", "--account", acct, "--create", "metrics", "--in", file)
	require.Equal(t, 0, r.code, r.stderr)
	require.Eventually(t, func() bool {
		// Job counts come from River's events, which trail the work itself.
		_, m := get(t, "http://"+addr+"/metrics")
		return strings.Contains(m, `adsync_audience_users_total{result="accepted"} 2`) &&
			nonZero(m, `adsync_jobs_total{kind="sync_unit",outcome="completed"}`)
	}, busyWait, 50*time.Millisecond)
	_, m := get(t, "http://"+addr+"/metrics")
	require.True(t, nonZero(m, `adsync_records_synced_total{entity="campaigns",result="fetched"}`), m)
	require.True(t, nonZero(m, `adsync_api_requests_total{endpoint="GET /12/accounts/{account_id}/campaigns",status="200"}`), m)
	require.True(t, nonZero(m, `adsync_jobs_total{kind="sync_unit",outcome="completed"}`), m)
	require.Contains(t, m, `adsync_audience_users_total{result="sent"} 2`)

	// A slow service keeps a job in flight; SIGTERM lets it finish.
	b.srv.AddFault(fixtures.FaultRule{Path: "/ads/**", Method: "GET", Kind: fixtures.FaultLatency, LatencyMS: 1500})
	r = b.run(t, "sync", "--entities", "campaigns")
	require.Equal(t, 0, r.code, r.stderr)
	require.Eventually(t, func() bool {
		var n int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state = 'running'`).Scan(&n)
		return n > 0
	}, busyWait, 20*time.Millisecond, "a job is in flight")
	res := stop()
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "worker stopped")
	var running int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state = 'running'`).Scan(&running))
	require.Zero(t, running, "no job is left running: it finished or went back to the queue")
	var workers int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM adsync_workers`).Scan(&workers))
	require.Zero(t, workers, "a clean stop unregisters the worker")
}

// nonZero reports whether the scrape holds series with a value above zero.
func nonZero(scrape, series string) bool {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` [1-9][0-9.e+]*$`).MatchString(scrape)
}

// Off loopback, the runs page and River's UI need ADSYNC_UI_PASSWORD as
// basic auth; the probes and the scrape stay open; the password is never
// printed.
func TestWorkerPagesNeedThePasswordOffLoopbackWhileProbesStayOpen(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	const password = "ui-pw-never-printed"
	addr, stdout, stop := startWorker(t, b, "ui_password: "+password+"\nschedules:\n  sync: \"\"\n  insights: \"\"\n  posts: \"\"\n  export: \"\"\n",
		"--http-addr", "0.0.0.0:0")
	require.Contains(t, stdout.String(), "runs page on http://"+addr+"/ (River's UI on /riverui/; basic auth as user admin with ADSYNC_UI_PASSWORD)")
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	base := "http://127.0.0.1:" + port
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		code, _ := get(t, base+path)
		require.Equal(t, 200, code, path)
	}
	do := func(path, user, pass string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, path := range []string{"/", "/riverui/"} {
		code, _ := do(path, "", "")
		require.Equal(t, http.StatusUnauthorized, code, path)
		code, _ = do(path, "admin", "wrong")
		require.Equal(t, http.StatusUnauthorized, code, path)
	}
	require.Eventually(t, func() bool {
		code, _ := do("/riverui/", "admin", password)
		return code == http.StatusOK
	}, busyWait, 50*time.Millisecond, "River's UI starts with the workers")
	code, body := do("/", "admin", password)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `<table id="runs">`)

	r := stop()
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout+r.stderr, password)
}
