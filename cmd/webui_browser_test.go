package adsynccmd

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// consoleErrors collects what a page reports as errors: console.error
// calls, uncaught exceptions and the browser's error log entries (a failed
// load, a refused script).
type consoleErrors struct {
	mu   sync.Mutex
	errs []string
}

func (c *consoleErrors) listen(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, string(a.Value)+a.Description)
		}
		msg = "console.error: " + strings.Join(parts, " ")
	case *runtime.EventExceptionThrown:
		msg = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError {
			return
		}
		msg = fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
	default:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, msg)
}

func (c *consoleErrors) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.errs
	c.errs = nil
	return out
}

// chromium is Debian's chromium from PATH, which .ci/test-deps installs.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not on PATH: run .ci/test-deps (it installs Debian's chromium package for the browser test)")
	return ""
}

// The worker's runs page, its performance page and River's UI, in a real
// browser: they load without console errors, show the runs table, the
// chart, each account's charts and top spenders, and the jobs of a
// finished sync; River's UI's own buttons write through the access layer,
// while another site's page can neither write nor frame them.
func TestWorkerPagesLoadInABrowserWithRunsChartAndRiverJobs(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	b := setupService(t, bundleOptions{ownerToken: true})
	addr, stdout, stop := startWorker(t, b, "schedules:\n  sync: \"\"\n  insights: \"\"\n  posts: \"\"\n  export: \"\"\n")
	defer stop()
	require.Contains(t, stdout.String(), "runs page on http://"+addr+"/ (River's UI on /riverui/)")

	r := b.run(t, "sync", "--entities", "campaigns,line_items")
	require.Equal(t, 0, r.code, r.stderr)
	pool := b.pool(t)
	require.Eventually(t, func() bool {
		var outcome string
		_ = pool.QueryRow(context.Background(), `SELECT outcome FROM sync_runs WHERE pipeline = 'sync' ORDER BY id DESC LIMIT 1`).Scan(&outcome)
		return outcome == "succeeded"
	}, busyWait, 50*time.Millisecond, "the worker ran the queued sync")

	// Root runs Chromium without its sandbox, which needs user namespaces.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))...)
	defer cancelAlloc()
	errs := &consoleErrors{}
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithListener(errs.listen))
	defer cancel()
	require.NoError(t, chromedp.Do(ctx), "starting chromium") // the first Run starts the browser: no timeout on it
	ctx, cancelTimeout := context.WithTimeout(ctx, busyWait)
	defer cancelTimeout()
	dir := t.TempDir()
	shot := func(name string) {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
		t.Logf("screenshot: %s", filepath.Join(dir, name))
	}

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("http://"+addr+"/"),
		chromedp.WaitVisible(chromedp.CSS("table#runs")), chromedp.WaitVisible(chromedp.CSS("#chart svg rect.bar.synced"))))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("table#runs tbody")))
	require.NoError(t, err)
	require.Contains(t, text, "sync")
	require.Contains(t, text, "succeeded")
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#chart svg rect.bar.synced').length`))
	require.NoError(t, err)
	require.Equal(t, 30, bars)
	shot("runs.png")
	require.Empty(t, errs.take(), "the runs page logs no errors")

	// The performance page, from the analytics of the last days (short
	// enough for synchronous requests).
	start := time.Now().UTC().AddDate(0, 0, -3).Format(time.DateOnly)
	r = b.run(t, "stats", "sync", "--entities", "CAMPAIGN,LINE_ITEM", "--start", start, "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("http://"+addr+"/performance"),
		chromedp.WaitVisible(chromedp.CSS("section.account svg rect.bar.spend"))))
	counts, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll('section.account')].map(s =>
		s.querySelectorAll('svg rect.bar.spend').length + s.querySelectorAll('svg rect.bar.impressions').length +
		s.querySelectorAll('svg rect.bar.clicks').length)`))
	require.NoError(t, err)
	require.NotEmpty(t, counts, "a section per account that delivered")
	for _, n := range counts {
		require.Equal(t, 3*30, n, "three charts of 30 days each")
	}
	tops, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('table.top.campaigns tbody td[data-spend]').length +
		document.querySelectorAll('table.top.line-items tbody td[data-spend]').length`))
	require.NoError(t, err)
	require.Positive(t, tops, "the top campaigns and line items are listed")
	heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("section.account h2")))
	require.NoError(t, err)
	require.Regexp(t, `(USD|EUR) · \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d`, heading, "the currency and the days")
	shot("performance.png")
	require.Empty(t, errs.take(), "the performance page logs no errors")

	err = chromedp.Do(ctx, chromedp.Navigate("http://"+addr+"/riverui/jobs?state=completed"),
		chromedp.Poll[chromedp.Void](`document.body.innerText.includes('sync_unit') && document.body.innerText.includes('sync_run')`, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "River's UI lists the sync's completed jobs")
	shot("riverui.png")
	require.Empty(t, errs.take(), "River's UI logs no errors")

	// River's UI writes through the access layer: its Cancel button cancels a job.
	mine := parkJob(t, pool)
	err = chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("http://%s/riverui/jobs/%d", addr, mine)),
		chromedp.Click(`//button[normalize-space(.)='Cancel']`))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return jobState(t, pool, mine) == "cancelled" }, busyWait, 50*time.Millisecond,
		"River's UI cancels a job from its own page")
	require.Empty(t, errs.take(), "River's UI logs no errors")
	crossSite(ctx, t, pool, addr, errs)
}

// crossSite opens a page of another site (a server of its own, reached as
// localhost while the worker is 127.0.0.1) and from there sends River's UI
// the write a plain HTML form can send, then frames it: Chromium sends the
// write but the worker refuses it, and Chromium refuses to show the frame.
func crossSite(ctx context.Context, t *testing.T, pool *pgxpool.Pool, addr string, errs *consoleErrors) {
	t.Helper()
	theirs := parkJob(t, pool)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>another site</title><p>another site</p>")
	}))
	defer evil.Close()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)), chromedp.WaitVisible(chromedp.CSS("p"))))
	status, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`fetch('http://%s/riverui/api/jobs/cancel', {method: 'POST', mode: 'no-cors',
  headers: {'Content-Type': 'text/plain'}, body: '{"ids":["%d"],"pad":"="}'}).then(r => r.type)`, addr, theirs), chromedp.EvalAwaitPromise))
	require.NoError(t, err, "%v", errs.take())
	require.Equal(t, "opaque", status, "the browser sent the write")
	require.Equal(t, "scheduled", jobState(t, pool, theirs), "another site's page cannot cancel a job")

	errs.take()
	require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`const f = document.createElement('iframe'); f.src = 'http://%s/riverui/'; document.body.appendChild(f)`, addr))))
	require.Eventually(t, func() bool {
		for _, e := range errs.take() {
			if strings.Contains(e, `violates the following Content Security Policy directive: "frame-ancestors 'none'"`) {
				return true
			}
		}
		return false
	}, busyWait, 50*time.Millisecond, "Chromium refuses to frame River's UI")
}
