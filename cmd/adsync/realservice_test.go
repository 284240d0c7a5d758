package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/handbook"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

// realServiceSteps are the commands docs/real-service.md asks a new user to
// run, in its order; the test checks the page names them in that order and
// runs each as written.
var realServiceSteps = [][]string{
	{"migrate"},
	{"auth", "login"},
	{"auth", "bearer"},
	{"api", "GET", "/12/accounts"},
	{"run"},
	{"status"},
	{"worker"},
}

// realServiceSection is the numbered walk-through of docs/real-service.md.
func realServiceSection(t *testing.T) string {
	t.Helper()
	doc, err := handbook.Read("docs/real-service.md")
	require.NoError(t, err)
	section, ok := handbook.Section(doc, "Step by step")
	require.True(t, ok, "docs/real-service.md has a section \"Step by step\"")
	return section
}

// A new user with a real account follows docs/real-service.md in order,
// against a service (the fake, in a process of its own) configured only
// through the documented environment, on a fresh database: every command
// succeeds as written.
func TestTheDocsRealServiceWalkThroughWorksAsWritten(t *testing.T) {
	t.Parallel()
	section := realServiceSection(t)
	at := 0
	for _, step := range realServiceSteps {
		i := strings.Index(section[at:], "`adsync "+strings.Join(step, " ")+"`")
		require.GreaterOrEqual(t, i, 0, "the section asks for `adsync %s` after the steps before it", strings.Join(step, " "))
		at += i
	}

	dir := t.TempDir()
	addrFile := filepath.Join(dir, "fake.addr")
	fake := startProc(t, commandInDir(t, dir, nil, "fixtures", "serve", "--addr", "127.0.0.1:0", "--addr-file", addrFile))
	var addr string
	waitFor(t, patience, "the service to listen", func() bool {
		b, err := os.ReadFile(addrFile)
		addr = strings.TrimSpace(string(b))
		return err == nil && addr != ""
	})
	base := "http://" + addr
	env := []string{
		"ADSYNC_DATABASE_URL=" + localpg.NewDatabase(t), // fresh: not migrated
		"ADSYNC_API_URL=" + base, "ADSYNC_ADS_URL=" + base + "/ads", "ADSYNC_SANDBOX_ADS_URL=" + base + "/sandbox",
		"ADSYNC_CONSUMER_KEY=" + fixtures.DefaultConsumerKey, "ADSYNC_CONSUMER_SECRET=" + fixtures.DefaultConsumerSecret,
		"ADSYNC_SECRET_KEY=" + strings.Repeat("k", 44),
	}
	for _, step := range realServiceSteps {
		switch strings.Join(step, " ") {
		case "auth login":
			signInWithPIN(t, dir, env)
		case "worker":
			w := startProc(t, commandInDir(t, dir, env, "worker", "--http-addr", "127.0.0.1:0"))
			waitFor(t, patience, "the worker to run", func() bool { return strings.Contains(w.output(), "worker running") })
			require.NoError(t, w.cmd.Process.Signal(syscall.SIGINT))
			select {
			case <-w.done:
			case <-time.After(patience):
				t.Fatalf("the worker did not stop on Ctrl-C: %s", w.output())
			}
			require.Equal(t, 0, w.status, w.output())
		default:
			code, stdout, stderr := runInDir(t, dir, env, step...)
			require.Equal(t, 0, code, "adsync %s\nstdout:\n%s\nstderr:\n%s", strings.Join(step, " "), stdout, stderr)
		}
	}
	require.NotContains(t, fake.output(), "panic")
}

var authorizeURLInOutput = regexp.MustCompile(`http://\S+/oauth/(authorize|authenticate)\?\S+`)

// signInWithPIN runs `adsync auth login` as the docs write it and, as
// the user would, opens the URL it prints, approves, and types the PIN.
func signInWithPIN(t *testing.T, dir string, env []string) {
	t.Helper()
	cmd := commandInDir(t, dir, env, "auth", "login")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	p := startProc(t, cmd)
	var authURL string
	waitFor(t, patience, "the authorization URL", func() bool {
		authURL = authorizeURLInOutput.FindString(p.output())
		return authURL != ""
	})
	_, page, err := fixtures.ApproveAsOwner(authURL)
	require.NoError(t, err, page)
	pin := fixtures.PINOf(page)
	require.NotEmpty(t, pin, page)
	_, err = io.WriteString(stdin, pin+"\n")
	require.NoError(t, err)
	select {
	case <-p.done:
	case <-time.After(patience):
		t.Fatalf("auth login did not finish: %s", p.output())
	}
	require.Equal(t, 0, p.status, p.output())
	require.Contains(t, p.output(), "@"+fixtures.DefaultOwnerScreen)
}
