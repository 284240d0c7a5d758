package adsynccmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/adsyncbin"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	// One generated service for the whole run, whichever hour it crosses, with
	// a location list of 2,000 entries: the commands sync and export every
	// list, and the full one (tens of thousands) is the jobs tests'.
	fixtures.PinForTests(2000)
	code := localpg.Main(m)
	adsyncbin.Cleanup()
	os.Exit(code)
}

// result is one in-process command run.
type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func TestVersionPrintsVersionAndRiver(t *testing.T) {
	t.Parallel()
	r := run(t, "version")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `^adsync \S+ \(go1\.\d+.*river (v\d+\.\d+\.\d+|unknown)\)\n$`, r.stdout)
}

func TestCPUProfileIsWrittenWhenTheCommandEnds(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "cpu.pprof")
	r := run(t, "version", "--cpuprofile", file)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.True(t, len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b, "a gzipped pprof profile, got %d bytes", len(b))

	r = run(t, "version", "--cpuprofile", filepath.Join(t.TempDir(), "missing", "cpu.pprof"))
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "--cpuprofile")
}

func TestConfigShowMasksSecrets(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(file, []byte("api:\n  consumer_key: ck-visible-nowhere\n  consumer_secret: cs-hidden\n  access_token: at-hidden\n  access_secret: as-hidden\nsecret_key: sk-hidden\nui_password: ui-pw-hidden\nmcp_token: mcp-tok-hidden\n"), 0o600))
	r := run(t, "config", "show", "--config", file, "--database-url", "postgres://app:hunter2@db.example:5432/adsync", "--log-level", "warn")
	require.Equal(t, 0, r.code, r.stderr)
	for _, secret := range []string{"ck-visible-nowhere", "cs-hidden", "at-hidden", "as-hidden", "sk-hidden", "ui-pw-hidden", "mcp-tok-hidden", "hunter2"} {
		require.NotContains(t, r.stdout+r.stderr, secret)
	}
	require.Contains(t, r.stdout, "database_url: postgres://app:xxxxx@db.example:5432/adsync", "flag applied, password masked")
	require.Contains(t, r.stdout, "log_level: warn")
	require.Contains(t, r.stdout, `consumer_secret: "********"`)
	require.Contains(t, r.stdout, `ui_password: "********"`)
	require.Contains(t, r.stdout, `mcp_token: "********"`)
}

func TestUnreachableDatabaseGivesOneLineErrorNamingTheHost(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	r := run(t, "migrate", "--database-url", "postgres://app:hunter2@"+addr+"/adsync?connect_timeout=3")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "cannot connect to database at "+addr)
	require.NotContains(t, r.stderr, "hunter2")
	require.NotContains(t, r.stderr, "goroutine")
	require.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
}

func TestBadConfigFileNamesFileAndLine(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(file, []byte("log_level: info\nqueues:\n  sync: 2\n  surprise: 1\n"), 0o600))
	r := run(t, "config", "show", "--config", file)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, file)
	require.Contains(t, r.stderr, "line 4")
	require.Contains(t, r.stderr, `unknown key "surprise"`)
	require.Empty(t, r.stdout)
}

func TestUnknownCommandIsAUsageError(t *testing.T) {
	t.Parallel()
	r := run(t, "frobnicate")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `unknown command "frobnicate"`)
}

func TestMigrateThenStatusShowsNothingPending(t *testing.T) {
	t.Parallel()
	db := localpg.NewDatabase(t)

	r := run(t, "migrate", "--database-url", db, "--status")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `app\s+1\s+sync_runs\s+pending`, r.stdout)
	require.NotContains(t, r.stdout, "\n0 pending")

	r = run(t, "migrate", "--database-url", db)
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `applied \d+ River and \d+ adsync migrations`, r.stdout)

	r = run(t, "migrate", "--database-url", db)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "database is up to date")

	r = run(t, "migrate", "--database-url", db, "--status")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `app\s+1\s+sync_runs\s+applied\s+\d{4}-\d\d-\d\d`, r.stdout)
	require.Regexp(t, `river\s+1\s+.+\s+applied`, r.stdout)
	require.True(t, strings.HasSuffix(r.stdout, "\n0 pending\n"), r.stdout)
}

// serveFixtures runs `adsync fixtures serve --addr ADDR args...` in the
// background until it answers GET path with 200 and ready accepts the body;
// stop cancels it and returns its result.
func serveFixtures(t *testing.T, path string, ready func(body io.Reader) bool, args ...string) (addr string, stop func() result) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr = l.Addr().String()
	require.NoError(t, l.Close())

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := Run(ctx, append([]string{"fixtures", "serve", "--addr", addr}, args...), strings.NewReader(""), &out, &errb)
		done <- result{code: code, stdout: out.String(), stderr: errb.String()}
	}()
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == 200 && ready(resp.Body)
	}, busyWait, 20*time.Millisecond)
	return addr, func() result {
		cancel()
		return <-done
	}
}

func TestFixturesServeAnswersHealthAndStopsOnCancel(t *testing.T) {
	t.Parallel()
	addr, stop := serveFixtures(t, "/_fixtures/health", func(io.Reader) bool { return true }, "--seed", "7", "--accounts", "2")
	r := stop()
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "ads base: http://"+addr+"/ads")
	require.Contains(t, r.stdout, "seed 7")
}

func TestFixturesServeUsersFlagServesThatManyUsersWithTheirTokens(t *testing.T) {
	t.Parallel()
	var users []fixtures.FakeUser
	_, stop := serveFixtures(t, "/_fixtures/users", func(body io.Reader) bool { return json.NewDecoder(body).Decode(&users) == nil },
		"--accounts", "4", "--users", "3")
	r := stop()
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, users, 4, "the owner and three users")
	for _, u := range users {
		require.NotEmpty(t, u.Accounts, u.ID)
		require.NotContains(t, r.stdout+r.stderr, u.Secret, "secrets stay out of the output")
	}
	require.Contains(t, r.stdout, "3 users besides the owner")

	r = run(t, "fixtures", "serve", "--users", "-1")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "--users")
}

func TestFixturesServeRejectsZeroAccounts(t *testing.T) {
	t.Parallel()
	r := run(t, "fixtures", "serve", "--accounts", "0")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "--accounts")
}

func TestBadCronSpecIsRejectedAtStartNamingKeyAndSpec(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(file, []byte("schedules:\n  export: \"61 4 * * *\"\n"), 0o600))
	r := run(t, "config", "show", "--config", file)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `schedules.export: invalid cron spec "61 4 * * *"`)
}

func TestConfigRefusalsNameKeyAndSource(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(file, []byte("log_level: info\napi:\n  timeout: 30 seconds\n"), 0o600))
	r := run(t, "config", "show", "--config", file)
	require.Equal(t, 1, r.code)
	require.Equal(t, "adsync: config file "+file+`: line 3: api.timeout: invalid duration "30 seconds" (use forms like 90s, 15m, 1h)`+"\n", r.stderr)

	require.NoError(t, os.WriteFile(file, []byte("api:\n  timeout: 0s\n"), 0o600))
	r = run(t, "config", "show", "--config", file)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "api.timeout: 0s: must be positive")
	require.Contains(t, r.stderr, "(file "+file+":2)")

	require.NoError(t, os.WriteFile(file, []byte("export:\n  out: ''\n"), 0o600))
	r = run(t, "config", "show", "--config", file)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "export.out: must not be empty")
}
