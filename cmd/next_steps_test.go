package adsynccmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The suggested commands carry the --config and --database-url adsync run
// was given (and its --demo), never a database password.
func TestNextStepsRepeatTheGlobalFlagsOfTheRunWithoutAPassword(t *testing.T) {
	t.Parallel()
	a := &app{configFile: "my conf.yaml", databaseURL: "postgres://app@db.example/adsync"}
	flags, note := a.passedGlobals()
	require.Equal(t, ` --config 'my conf.yaml' --database-url postgres://app@db.example/adsync`, flags)
	require.Empty(t, note)
	steps := nextSteps("out", flags, note, true, true)
	require.Contains(t, steps, " status --config 'my conf.yaml' --database-url postgres://app@db.example/adsync ")
	require.Contains(t, steps, " run --config 'my conf.yaml' --database-url postgres://app@db.example/adsync --demo ")
	require.Regexp(t, `(?m)^  \S+ worker --http-addr 127\.0\.0\.1:0 --config 'my conf\.yaml' .*# the daemon: schedules; the runs page at the http:// URL it prints, River's UI at /riverui/;`, steps)

	a = &app{databaseURL: "postgres://app:pw-never-shown@db.example/adsync"}
	flags, note = a.passedGlobals()
	require.Empty(t, flags)
	require.Contains(t, note, "export ADSYNC_DATABASE_URL=")
	steps = nextSteps("out", flags, note, false, true)
	require.NotContains(t, steps, "pw-never-shown")
	require.Contains(t, steps, "  # first: export ADSYNC_DATABASE_URL=")
	require.False(t, strings.Contains(steps, "--demo"))
}

func TestSpanWordsSaysWholeDaysAsDays(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		14 * 24 * time.Hour: "14 days",
		24 * time.Hour:      "day",
		36 * time.Hour:      "36h0m0s",
	} {
		if got := spanWords(d); got != want {
			t.Errorf("spanWords(%v) = %q, want %q", d, got, want)
		}
	}
}

// An export to a bucket gets the export line, quoted, and no DuckDB line
// (DuckDB reads a bucket only through its httpfs extension).
func TestNextStepsForABucket(t *testing.T) {
	t.Parallel()
	steps := nextSteps("s3://b/p?endpoint=http://127.0.0.1:7070&use_path_style=true", "", "", false, true)
	require.Contains(t, steps, ` export --out 's3://b/p?endpoint=http://127.0.0.1:7070&use_path_style=true' --full`)
	require.NotContains(t, steps, "duckdb")
	require.NotContains(t, steps, "campaigns/*")
}

// The suggested commands name the binary as it was invoked: a path typed
// with a separator as typed when it works from the current directory (else
// its absolute path), a name the shell found on PATH as that name.
func TestNextStepsNameTheBinaryAsItWasInvoked(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	exe := filepath.Join(root, "tools", "adsync")
	require.NoError(t, os.MkdirAll(filepath.Dir(exe), 0o755))
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	elsewhere := filepath.Join(root, "demo")
	require.NoError(t, os.MkdirAll(elsewhere, 0o755))
	noPath := func(string) (string, error) { return "", exec.ErrNotFound }
	onPath := func(name string) (string, error) {
		if name == "adsync" {
			return exe, nil
		}
		return "", exec.ErrNotFound
	}

	require.Equal(t, "../tools/adsync", invokedAs("../tools/adsync", elsewhere, exe, noPath), "relative, as typed")
	require.Equal(t, "./tools/adsync", invokedAs("./tools/adsync", root, exe, noPath))
	require.Equal(t, exe, invokedAs(exe, elsewhere, exe, noPath), "absolute, as typed")
	require.Equal(t, exe, invokedAs("tools/adsync", elsewhere, exe, noPath),
		"a relative path that does not lead to the binary from here: its absolute path")
	require.Equal(t, "adsync", invokedAs("adsync", elsewhere, exe, onPath), "found on PATH: the plain name")
	require.Equal(t, exe, invokedAs("adsync", elsewhere, exe, noPath), "a name not on PATH: the absolute path")

	spaced := filepath.Join(root, "my tools", "adsync")
	require.NoError(t, os.MkdirAll(filepath.Dir(spaced), 0o755))
	require.NoError(t, os.WriteFile(spaced, []byte("#!/bin/sh\n"), 0o755))
	require.Equal(t, "'../my tools/adsync'", invokedAs("../my tools/adsync", elsewhere, spaced, noPath), "quoted for the shell")

	// What go run builds is gone once it ends: make run's build stands in.
	goRun := filepath.Join(root, "go-build123", "b001", "exe", "adsync")
	require.Equal(t, "adsync", invokedAs(goRun, elsewhere, goRun, noPath))
	require.NoError(t, os.MkdirAll(filepath.Join(elsewhere, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "bin", "adsync"), []byte("#!/bin/sh\n"), 0o755))
	require.Equal(t, "./bin/adsync", invokedAs(goRun, elsewhere, goRun, noPath))
}
