package adsynccmd

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
)

// parkedArgs is a job no worker runs: parked an hour ahead, it waits in
// the scheduled state until a test cancels it through River's UI.
type parkedArgs struct{}

func (parkedArgs) Kind() string { return "test_parked" }

// parkJob inserts a parked job and returns its id.
func parkJob(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	res, err := client.Insert(context.Background(), parkedArgs{}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, "scheduled", string(res.Job.State))
	return res.Job.ID
}

// jobState reads a job's state from River's table.
func jobState(t *testing.T, pool *pgxpool.Pool, id int64) string {
	t.Helper()
	var state string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT state FROM river_job WHERE id = $1`, id).Scan(&state))
	return state
}

// pageRequest is one request to the worker's HTTP server: Host overrides
// the address's, header holds the browser's headers.
type pageRequest struct {
	method, path, host, body string
	header                   map[string]string
	user, pass               string
}

// send sends req to the worker at addr and returns the response with its
// body read.
func send(t *testing.T, addr string, req pageRequest) (*http.Response, string) {
	t.Helper()
	if req.method == "" {
		req.method = http.MethodGet
	}
	r, err := http.NewRequest(req.method, "http://"+addr+req.path, strings.NewReader(req.body))
	require.NoError(t, err)
	if req.host != "" {
		r.Host = req.host
	}
	for k, v := range req.header {
		r.Header.Set(k, v)
	}
	if req.user != "" {
		r.SetBasicAuth(req.user, req.pass)
	}
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// requireUnframable checks the headers every page of the worker sends:
// no framing (old and new spelling) and no content sniffing.
func requireUnframable(t *testing.T, resp *http.Response, what string) {
	t.Helper()
	require.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"), what)
	require.Equal(t, "frame-ancestors 'none'", resp.Header.Get("Content-Security-Policy"), what)
	require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), what)
}

// queuePaused says whether River's queue name is paused.
func queuePaused(t *testing.T, pool *pgxpool.Pool, name string) bool {
	t.Helper()
	var paused bool
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT paused_at IS NOT NULL FROM river_queue WHERE name = $1`, name).Scan(&paused))
	return paused
}

// On loopback no password guards the pages, so a page of any site that
// gets its name to resolve to 127.0.0.1 (DNS rebinding) would be
// same-origin with them: the pages answer only a Host naming this machine
// (an address, localhost) or an allowed name. Every page, refusals
// included, says it must not be framed or sniffed; the probes stay open.
func TestWorkerOnLoopbackRefusesAForeignHostAndEveryPageForbidsFraming(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	addr, _, stop := startWorker(t, b, "http_allowed_hosts: adsync.test\nschedules:\n  sync: \"\"\n  insights: \"\"\n  posts: \"\"\n  export: \"\"\n")
	defer stop()
	pool := b.pool(t)
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		resp, _ := send(t, addr, pageRequest{path: "/riverui/api/queues/default"})
		return resp.StatusCode == http.StatusOK
	}, busyWait, 50*time.Millisecond, "River's UI starts with the workers and the default queue is registered")

	const evil = "evil.example:9090"
	resp, body := send(t, addr, pageRequest{path: "/", host: evil})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.Contains(t, body, `"evil.example:9090"`)
	require.Contains(t, body, "http_allowed_hosts")
	requireUnframable(t, resp, "the refusal")
	resp, body = send(t, addr, pageRequest{method: http.MethodPut, path: "/riverui/api/queues/default/pause", host: evil})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.False(t, queuePaused(t, pool, "default"), "a rebound page cannot pause a queue")
	resp, _ = send(t, addr, pageRequest{path: "/healthz", host: evil})
	require.Equal(t, http.StatusOK, resp.StatusCode, "the probes stay outside the access layer")

	// The machine's own names and the allowed one reach the pages.
	for _, host := range []string{addr, "localhost:" + port, "adsync.test:" + port} {
		resp, body = send(t, addr, pageRequest{path: "/", host: host})
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", host, body)
	}
	resp, body = send(t, addr, pageRequest{method: http.MethodPut, path: "/riverui/api/queues/default/pause", host: "localhost:" + port})
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.True(t, queuePaused(t, pool, "default"), "the same write under localhost pauses the queue")
	resp, body = send(t, addr, pageRequest{method: http.MethodPut, path: "/riverui/api/queues/default/resume"})
	require.Equal(t, http.StatusOK, resp.StatusCode, body)

	for _, path := range []string{"/", "/riverui/", "/riverui/api/jobs?limit=1"} {
		resp, body = send(t, addr, pageRequest{path: path})
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, body)
		requireUnframable(t, resp, path)
		require.Equal(t, "same-origin", resp.Header.Get("Referrer-Policy"), path)
	}
}

// A browser that has the password cached sends it with a request any site
// makes, so off loopback the password alone does not stop a cross-site
// write: a POST a plain HTML form can send (text/plain, a JSON-looking
// body) from another site is refused and the job keeps its state, whichever
// header says where it comes from. The same write from the worker's own
// page, or from a script that says nothing of a site, goes through.
func TestWorkerRefusesACrossSiteWriteEvenWithThePassword(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	const password = "ui-pw-cross-site"
	addr, _, stop := startWorker(t, b, "ui_password: "+password+"\nschedules:\n  sync: \"\"\n  insights: \"\"\n  posts: \"\"\n  export: \"\"\n",
		"--http-addr", "0.0.0.0:0")
	defer stop()
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	own := "127.0.0.1:" + port
	pool := b.pool(t)
	require.Eventually(t, func() bool {
		resp, _ := send(t, own, pageRequest{path: "/riverui/", user: "admin", pass: password})
		return resp.StatusCode == http.StatusOK
	}, busyWait, 50*time.Millisecond, "River's UI starts with the workers")

	cancel := func(id int64, header map[string]string) (*http.Response, string) {
		return send(t, own, pageRequest{method: http.MethodPost, path: "/riverui/api/jobs/cancel", user: "admin", pass: password,
			header: header, body: `{"ids":["` + strconv.FormatInt(id, 10) + `"],"pad":"="}`})
	}
	id := parkJob(t, pool)
	for _, foreign := range []map[string]string{
		{"Origin": "http://evil.example", "Content-Type": "text/plain"},
		{"Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"},
		{"Sec-Fetch-Site": "same-site", "Origin": "http://other.127.0.0.1.nip.io:" + port},
		{"Referer": "http://evil.example/form.html", "Content-Type": "text/plain"},
		{"Origin": "null"},
	} {
		resp, body := cancel(id, foreign)
		require.Equal(t, http.StatusForbidden, resp.StatusCode, "%v: %s", foreign, body)
		require.Contains(t, body, "cross-site", foreign)
		requireUnframable(t, resp, "the refusal")
		require.Equal(t, "scheduled", jobState(t, pool, id), "%v: the job is not cancelled", foreign)
	}

	resp, body := cancel(id, map[string]string{"Origin": "http://" + own, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Equal(t, "cancelled", jobState(t, pool, id), "the worker's own page cancels the job")
	id = parkJob(t, pool)
	resp, body = cancel(id, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Equal(t, "cancelled", jobState(t, pool, id), "a script, with the password, cancels the job")
}
