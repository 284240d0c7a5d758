package adsynccmd

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/adsyncbin"
	"github.com/adsync/adsync/fixtures/handbook"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

// freshClone is a directory laid out like the repository's root after
// `make run`: bin/adsync built from this tree, the files the suggested
// commands use (the Makefile, the DuckDB script, the sample CRM file), and,
// once the demo ran, its .adsync/.
type freshClone struct {
	dir string
	env []string
}

// newFreshClone builds bin/adsync into a new directory and copies the
// repository files a fresh clone has that the demo's suggestions use.
func newFreshClone(t *testing.T) *freshClone {
	t.Helper()
	dir, err := os.MkdirTemp("", "adsync-fresh-clone-")
	require.NoError(t, err)
	// As root the local Postgres runs as the postgres OS user: it must reach
	// the directory.
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() {
		stopLeftPostgres(filepath.Join(dir, demoDir, "pg", "data"))
		_ = os.RemoveAll(dir)
	})
	exe, err := adsyncbin.Path()
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, copyFile(exe, filepath.Join(dir, "bin", "adsync"), 0o755))
	for _, f := range []string{"Makefile", "export/testdata/package.json", "export/testdata/package-lock.json",
		"export/testdata/duckdb_query.mjs", "fixtures/sample/crm.csv"} {
		b, err := os.ReadFile(filepath.Join("..", f))
		require.NoError(t, err)
		dst := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
	// DuckDB's Node API as .ci/test-deps installed it; without it make
	// duckdb installs it itself.
	if nm, err := filepath.Abs(filepath.Join("..", "export", "testdata", "node_modules")); err == nil {
		if _, err := os.Stat(filepath.Join(nm, "@duckdb", "node-api")); err == nil {
			require.NoError(t, os.Symlink(nm, filepath.Join(dir, "export", "testdata", "node_modules")))
		}
	}
	// A new user's environment: nothing of adsync configured (the fake's
	// shorter location list kept: TestMain's, which changes nothing a user
	// is shown).
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ADSYNC_") || strings.HasPrefix(kv, fixtures.LocationsEnv+"=") {
			env = append(env, kv)
		}
	}
	return &freshClone{dir: dir, env: env}
}

// copyFile copies src to dst with mode perm.
func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// stopLeftPostgres stops a local Postgres a failed test left running on
// dataDir (each command stops the one it started).
func stopLeftPostgres(dataDir string) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGINT) // fast shutdown
	for i := 0; i < 300; i++ {
		if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// shell is one command line run by bash in dir, as a person would type it.
func (fc *freshClone) shell(ctx context.Context, dir, line string) *exec.Cmd {
	c := exec.CommandContext(ctx, "bash", "-c", line)
	c.Dir, c.Env = dir, fc.env
	// Its own process group, as a terminal's foreground job: Ctrl-C (and a
	// timeout) reach the whole job.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	return c
}

// run runs line in the clone (or in dir when given) until it ends.
func (fc *freshClone) run(t *testing.T, line string) result {
	t.Helper()
	return fc.runIn(t, fc.dir, line)
}

func (fc *freshClone) runIn(t *testing.T, dir, line string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	c := fc.shell(ctx, dir, line)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "%s: %v", line, err)
		code = ee.ExitCode()
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// daemon runs line until it prints a line with a URL (what it serves), then
// checks that URL answers, sends Ctrl-C (SIGINT to its process group) and
// waits for it to end.
func (fc *freshClone) daemon(t *testing.T, line string) (r result, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var errb bytes.Buffer
	c := fc.shell(ctx, fc.dir, line)
	c.Stderr = &errb
	pipe, err := c.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, c.Start())
	var out strings.Builder
	sc := bufio.NewScanner(pipe)
	urlRE := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	for url == "" && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		url = urlRE.FindString(sc.Text())
	}
	if url != "" {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
		} else {
			t.Errorf("%s: its address %s does not answer: %v", line, url, err)
		}
		require.NoError(t, syscall.Kill(-c.Process.Pid, syscall.SIGINT))
	}
	rest, _ := io.ReadAll(pipe)
	out.Write(rest)
	err = c.Wait()
	r = result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	require.NotEmpty(t, url, "%s printed no address it serves:\n%s\n%s", line, r.stdout, r.stderr)
	return r, url
}

// suggestions parses what adsync run prints under "What to try next": the
// block as printed, and its command lines (comment lines left out).
func suggestions(t *testing.T, out string) (block string, lines []string) {
	t.Helper()
	_, after, ok := strings.Cut(out, "\nWhat to try next")
	require.True(t, ok, "adsync run prints what to try next:\n%s", out)
	block, _, _ = strings.Cut("What to try next"+after, "\n\n")
	for _, l := range strings.Split(block, "\n")[1:] {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return block, lines
}

// jsonLogLine finds a log line (zap's JSON or console form) in output meant
// for people.
var jsonLogLine = regexp.MustCompile(`(?m)^\{"level"|^\S+\s+(INFO|WARN|DEBUG)\s|\t(INFO|WARN)\t| \{"`)

// The first ten minutes: `make run` (the demo pass), then every command it
// suggests, run as printed from the repository's root, exits 0 with
// meaningful output; daemons say what they serve and stop on Ctrl-C.
func TestFreshClonePathEverySuggestedCommandWorksAsPrinted(t *testing.T) {
	t.Parallel()
	fc := newFreshClone(t)

	first := fc.run(t, "./bin/adsync run") // what make run runs after building
	require.Equal(t, 0, first.code, "stdout:\n%s\nstderr:\n%s", first.stdout, first.stderr)
	require.Contains(t, first.stdout, "creating a local Postgres in .adsync/pg/")
	require.NotContains(t, first.stdout, "postgres://", "no URL of a socket that closes when the run ends")
	require.Equal(t, 1, strings.Count(first.stdout, "created custom audience"), first.stdout)
	require.NotRegexp(t, jsonLogLine, first.stdout+first.stderr, "output for people has no log lines")
	require.NotContains(t, first.stdout+first.stderr, "posts: fetched")
	require.DirExists(t, filepath.Join(fc.dir, demoDir, "pg", "data"))

	block, lines := suggestions(t, first.stdout)
	require.GreaterOrEqual(t, len(lines), 5, block)
	guide, err := handbook.Read("docs/getting-started.md")
	require.NoError(t, err)
	require.True(t, strings.Contains(guide, "\n"+block+"\n"),
		"docs/getting-started.md shows what adsync run suggests, as printed:\n%s", block)

	seen := map[string]bool{}
	for _, line := range lines {
		require.False(t, strings.HasPrefix(line, "adsync "), "adsync is not on PATH: %s", line)
		if strings.Contains(line, "Ctrl-C") {
			r, url := fc.daemon(t, line)
			require.Equal(t, 0, r.code, "%s ends with 0 on Ctrl-C\nstdout:\n%s\nstderr:\n%s", line, r.stdout, r.stderr)
			switch {
			case strings.Contains(line, " worker"):
				seen["worker"] = true
				require.Contains(t, r.stdout, "worker running; runs page on "+url+"/ (River's UI on /riverui/); health and metrics on "+url+"\n")
				require.Contains(t, r.stdout, "worker stopped")
				require.Contains(t, r.stderr, "adsync: no database configured: using the demo's local Postgres in .adsync/pg/")
				require.Contains(t, r.stderr, "adsync: no service configured: using the demo's fake service at http://127.0.0.1:")
			case strings.Contains(line, " fixtures serve"):
				seen["fixtures serve"] = true
				require.Contains(t, r.stdout, "fake service listening on")
				require.Contains(t, r.stdout, "fake service stopped")
			}
			continue
		}
		r := fc.run(t, line)
		require.Equal(t, 0, r.code, "%s\nstdout:\n%s\nstderr:\n%s", line, r.stdout, r.stderr)
		require.NotEmpty(t, strings.TrimSpace(r.stdout), line)
		require.NotRegexp(t, jsonLogLine, r.stdout+r.stderr, "%s: output for people has no log lines", line)
		switch {
		case strings.Contains(line, " status"):
			seen["status"] = true
			require.Equal(t, "adsync: no database configured: using the demo's local Postgres in .adsync/pg/ (started for this command, stopped when the last adsync command using it ends)\n",
				r.stderr, "one line on stderr says which database")
			require.Contains(t, r.stdout, "RECENT RUNS")
			require.Regexp(t, `\d+\s+sync\s+run\s+.*succeeded`, r.stdout)
		case strings.Contains(line, " db "):
			seen["db"] = true
			require.Contains(t, r.stderr, "adsync: no database configured: using the demo's local Postgres in .adsync/pg/")
			require.Regexp(t, `(?m)^\s*pipeline\s*\|\s*outcome\s*\|\s*count\s*$`, r.stdout)
			require.Regexp(t, `(?m)^\s*sync\s*\|\s*succeeded\s*\|\s*[1-9]\d*\s*$`, r.stdout)
		case strings.HasSuffix(line, " run") || strings.Contains(line, " run "):
			seen["run"] = true
			require.Regexp(t, `campaigns\s+75\s+0\s+0\s+75\s+0\s+0`, r.stdout, "the second pass finds everything unchanged")
			require.NotContains(t, r.stdout, "created custom audience", "the second run does not create the audience again")
			require.Contains(t, r.stdout, `("adsync demo CRM")`)
			require.Contains(t, r.stdout, "created by an earlier run")
			require.Regexp(t, `skipped: fixtures/sample/crm\.csv was already uploaded to audience \S+ as upload 1`, r.stdout,
				"the skip names the user's file")
			require.NotContains(t, r.stdout, os.TempDir()+"/adsync-sample-crm")
		case strings.Contains(line, " export "):
			seen["export"] = true
			require.Regexp(t, `export run \d+: [1-9]\d* rows`, r.stdout)
		case strings.Contains(line, "duckdb"):
			seen["duckdb"] = true
			require.Regexp(t, `entity_status\s+count_star\(\)\n`, r.stdout)
			require.Regexp(t, `ACTIVE\s+[1-9]\d*\n`, r.stdout)
		}
	}
	for _, k := range []string{"status", "db", "run", "export", "duckdb", "worker", "fixtures serve"} {
		require.True(t, seen[k], "adsync run suggests %s:\n%s", k, block)
	}

	// Each command gets a fake generated afresh, holding again the audiences
	// earlier commands created: the demo's audience takes uploads of other
	// files, and a new audience gets an id of its own.
	m := regexp.MustCompile(`created custom audience (\S+) \("adsync demo CRM"\) in account (\S+)\n`).FindStringSubmatch(first.stdout)
	require.NotNil(t, m, first.stdout)
	demoID, account := m[1], m[2]
	sample, err := os.ReadFile(filepath.Join(fc.dir, "fixtures", "sample", "crm.csv"))
	require.NoError(t, err)
	head := strings.SplitAfterN(string(sample), "\n", 12)
	require.NoError(t, os.WriteFile(filepath.Join(fc.dir, "mine.csv"), []byte(strings.Join(head[:11], "")), 0o644))
	r := fc.run(t, "./bin/adsync audience upload --account "+account+" --audience "+demoID+" --in mine.csv --wait")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "adds: 10 sent, 10 accepted")
	r = fc.run(t, "./bin/adsync audience upload --account "+account+" --create 'my list' --in mine.csv --wait")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	m = regexp.MustCompile(`created custom audience (\S+) \("my list"\)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	require.NotEqual(t, demoID, m[1], "a new audience does not take the id of one created before")
	r = fc.run(t, "./bin/adsync run")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.NotContains(t, r.stdout, "created custom audience")
	require.Contains(t, r.stdout, "skipped: fixtures/sample/crm.csv was already uploaded to audience "+demoID)
}

// The demo's database is used only where the demo left it, and never gets
// the fake's data when a database is configured.
func TestDemoDatabaseOnlyInItsDirectoryAndNeverTheFakeForAConfiguredOne(t *testing.T) {
	t.Parallel()
	fc := newFreshClone(t)
	adsync := filepath.Join(fc.dir, "bin", "adsync")

	// Elsewhere no database configured stays an error, and nothing is created.
	elsewhere := t.TempDir()
	r := fc.runIn(t, elsewhere, adsync+" status")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "adsync: no database configured: set --database-url or ADSYNC_DATABASE_URL")
	require.NoDirExists(t, filepath.Join(elsewhere, demoDir))

	// Where the demo left its database, with a configured one: the configured
	// database is used, and with no service configured no fake serves it.
	require.NoError(t, os.MkdirAll(filepath.Join(fc.dir, demoDir, "pg", "data"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(fc.dir, demoDir, "pg", "data", "PG_VERSION"), []byte("15\n"), 0o644))
	db := localpg.NewDatabase(t)
	r = fc.run(t, "./bin/adsync migrate --database-url '"+db+"'")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stderr, "the configured database, not the demo's")
	r = fc.run(t, "./bin/adsync sync --wait --database-url '"+db+"'")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "adsync: no service configured")
	require.NotContains(t, r.stderr, "fake")
	require.NotContains(t, r.stdout, "succeeded")
}
