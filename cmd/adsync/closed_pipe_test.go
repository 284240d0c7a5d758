package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

// A command whose reader goes away before it writes (adsync migrate |
// head -0) is not killed by SIGPIPE at its first write: it ends as an
// interrupted command does, stopping the demo's Postgres it started, and
// exits with a killed-by-SIGPIPE process's status.
func TestACommandWhoseOutputIsClosedStillStopsTheDemoDatabase(t *testing.T) {
	t.Parallel()
	dir := newDemoDir(t)
	pgDir := filepath.Join(dir, ".adsync", "pg")
	c, err := localpg.Start(context.Background(), localpg.Options{Dir: pgDir, Persistent: true, Durable: true})
	require.NoError(t, err)
	require.NoError(t, c.Stop())

	r, w, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, r.Close()) // the reader is gone before the command starts
	cmd := commandInDir(t, dir, nil, "migrate")
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = w, &stderr
	require.NoError(t, cmd.Start())
	require.NoError(t, w.Close())
	_ = cmd.Wait()
	status := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.False(t, status.Signaled(), "killed by %v; stderr:\n%s", status.Signal(), stderr.String())
	require.Equal(t, 128+int(syscall.SIGPIPE), cmd.ProcessState.ExitCode(), "stderr:\n%s", stderr.String())
	require.Contains(t, stderr.String(), "started for this command", "the command started the demo's Postgres")
	_, err = os.Stat(filepath.Join(pgDir, "data", "postmaster.pid"))
	require.ErrorIs(t, err, os.ErrNotExist, "the demo's Postgres is stopped; stderr:\n%s", stderr.String())
}
