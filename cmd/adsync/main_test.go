package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/adsyncbin"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// These tests run adsync as separate processes (the test binary re-executed
// as adsync), so they can kill workers mid-flight and run several at once.

const asMainEnv = "ADSYNC_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main()
		return
	}
	// One generated service for the whole run, whichever hour it crosses, with
	// a location list of 2,000 entries: the commands sync and export every
	// list, and the full one (tens of thousands) is the jobs tests'.
	fixtures.PinForTests(2000)
	os.Exit(runTests(m))
}

// runTests builds the adsync the tests start (see binary_test.go), then
// runs them.
func runTests(m *testing.M) int {
	defer adsyncbin.Cleanup()
	if err := setPlainAdsync(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return localpg.Main(m)
}

// env is a fake service, a migrated database and a configuration for
// adsync processes.
type env struct {
	srv  *fixtures.Server
	db   string
	pool *pgxpool.Pool
	conf string
	dir  string
	base string // the fake's address (control paths under /_fixtures/)
	exe  string // the adsync binary start runs: adsyncExe() unless a test says
}

// patience is how long a test waits for a command that takes seconds to a
// minute on a quiet machine (a full pass, a worker's shutdown): only a hang
// takes longer, while a loaded machine running the package's other tests at
// once may take minutes.
const patience = 5 * time.Minute

// testWorker is the worker settings of newEnv's configuration: a
// heartbeat and a death far quicker than the defaults, so that the tests of
// a worker's death take a second, not half a minute. A job may take as
// long as the tests wait for a command (patience): adsync run's steps are
// jobs, and on a loaded machine its export of every table took over a
// minute.
const testWorker = "worker: {heartbeat: 200ms, dead_after: 1s, job_timeout: 5m}\n"

// newEnv serves a fake built from tweak and writes a configuration with
// extra appended (YAML).
func newEnv(t testing.TB, tweak func(*fixtures.Options), extra string) *env {
	t.Helper()
	served := fixtures.Serve(t, func(o *fixtures.Options) {
		o.Locations = 2000 // as the fakes the commands serve (TestMain): a test that needs more says so
		if tweak != nil {
			tweak(o)
		}
	})
	srv, opts := served.Server, served.Options()
	e := &env{srv: srv, db: synctest.MigratedDatabase(t), dir: t.TempDir(), base: served.URL, exe: adsyncExe()}
	pool, err := store.Connect(context.Background(), e.db, store.ConnectOptions{MaxConns: 8})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	e.pool = pool
	apiURL, adsURL, sb := served.APIURL, served.AdsURL, served.SandboxAdsURL
	conf := fmt.Sprintf(`database_url: %q
log_level: warn
api:
  url: %s
  ads_url: %s
  sandbox_ads_url: %s
  consumer_key: %s
  consumer_secret: %s
  access_token: %q
  access_secret: %q
  timeout: 10s
schedules: {sync: "", insights: "", posts: "", export: ""}
%sexport: {out: %q}
`, e.db, apiURL, adsURL, sb, opts.ConsumerKey, opts.ConsumerSecret, opts.OwnerToken, opts.OwnerSecret, testWorker, filepath.Join(e.dir, "out"))
	e.conf = filepath.Join(e.dir, "adsync.yaml")
	require.NoError(t, os.WriteFile(e.conf, []byte(conf+extra), 0o600))
	return e
}

// proc is a running adsync process.
type proc struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    strings.Builder
	done   chan struct{}
	status int
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// start runs adsync args with the env's configuration.
func (e *env) start(t testing.TB, args ...string) *proc {
	t.Helper()
	return e.startIn(t, os.Environ(), args...)
}

// startIn runs adsync args with the env's configuration in the
// environment environ (a test that gives its children variables of their
// own, instead of setting them in this process, can run in parallel).
func (e *env) startIn(t testing.TB, environ []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(e.exe, append(args, "--config", e.conf)...)
	cmd.Env = append(slices.Clip(environ), asMainEnv+"=1")
	return startProc(t, cmd)
}

// startProc starts cmd, collecting its output; the test's end kills it.
func startProc(t testing.TB, cmd *exec.Cmd) *proc {
	t.Helper()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
	}()
	require.NoError(t, cmd.Start())
	go func() {
		err := cmd.Wait()
		_ = pw.Close()
		p.status = cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.status = -int(ws.Signal())
		}
		_ = err
		close(p.done)
	}()
	t.Cleanup(func() { p.kill() })
	return p
}

// run runs adsync args to the end and returns its exit status and output.
func (e *env) run(t testing.TB, args ...string) (int, string) {
	t.Helper()
	return e.runIn(t, os.Environ(), args...)
}

// runIn is run in the environment environ (see startIn).
func (e *env) runIn(t testing.TB, environ []string, args ...string) (int, string) {
	t.Helper()
	p := e.startIn(t, environ, args...)
	select {
	case <-p.done:
	case <-time.After(patience):
		p.kill()
		t.Fatalf("adsync %v did not finish: %s", args, p.output())
	}
	time.Sleep(10 * time.Millisecond) // let the output reader drain
	return p.status, p.output()
}

// kill sends SIGKILL: no shutdown, no cleanup.
func (p *proc) kill() {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *proc) stop(t testing.TB) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(patience):
		t.Fatalf("the worker did not stop on SIGTERM: %s", p.output())
	}
	require.Equal(t, 0, p.status, p.output())
}

// worker starts adsync worker on a free port.
func (e *env) worker(t testing.TB) *proc {
	t.Helper()
	return e.start(t, "worker", "--http-addr", "127.0.0.1:0", "--shutdown-timeout", "20s")
}

var runIDPattern = regexp.MustCompile(`sync run (\d+) queued`)

// queueSync queues a sync run and returns its id.
func (e *env) queueSync(t testing.TB, args ...string) string {
	t.Helper()
	code, out := e.run(t, append([]string{"sync"}, args...)...)
	require.Equal(t, 0, code, out)
	m := runIDPattern.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	return m[1]
}

// outcome reads a run's outcome.
func (e *env) outcome(t testing.TB, id string) string {
	t.Helper()
	var o string
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT outcome FROM sync_runs WHERE id = $1`, id).Scan(&o))
	return o
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// execCommand runs the test binary as adsync.
func execCommand(self string, args ...string) *exec.Cmd {
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	return cmd
}
