package adsynccmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

// A configured database is filled from the fake only when asked with --demo.
func TestRunWithDemoCompletesAPipelinePassEndToEndAgainstTheFakeInAConfiguredDatabase(t *testing.T) {
	t.Parallel()
	db := localpg.NewDatabase(t)
	out := t.TempDir()
	conf := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(conf, []byte("export:\n  out: "+out+"\n"), 0o600))

	r := run(t, "run", "--demo", "--database-url", db, "--config", conf)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "fake service: http://127.0.0.1:")
	require.Contains(t, r.stdout, "applied", "the configured database is migrated")
	require.NotContains(t, r.stdout, "local Postgres", "the configured database is used as is")
	require.Regexp(t, `sync run \d+ succeeded`, r.stdout)
	require.Regexp(t, `campaigns\s+75\s+75\s+0\s+0\s+\d+\s+0`, r.stdout, "first pass inserts every campaign")
	require.Contains(t, r.stdout, "invalid: line 102:", "the sample file's bad rows are reported")
	require.Contains(t, r.stdout, "adds: 3000 sent, 3000 accepted\ndeletes: 0 sent, 0 accepted\n")
	require.Regexp(t, `1 keyword sets, 1 windows, \d+ requests, \d+ volume buckets stored`, r.stdout)
	require.NotContains(t, r.stdout, "no keyword sets configured", "the demo looks up its own keyword set")
	require.Regexp(t, `found\s+[1-9]\d*`, r.stdout)
	require.Regexp(t, `jobs [1-9]\d*, rows [1-9]\d*\nstats run \d+ succeeded`, r.stdout, "the analytics pass")
	m := regexp.MustCompile(`export run \d+: (\d+) rows`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	rows, _ := strconv.Atoi(m[1])
	require.Greater(t, rows, 1000)
	files, _ := filepath.Glob(filepath.Join(out, "campaigns", "dt=*", "*.parquet"))
	require.Len(t, files, 1)
	require.Contains(t, r.stdout, "What to try next")
	st := run(t, "status", "--database-url", db)
	require.Equal(t, 0, st.code, st.stderr)
	for _, p := range []string{"sync", "audience", "insights", "posts", "stats", "export"} {
		require.Regexp(t, `(?m)^\d+\s+`+p+`\s+run\s`, st.stdout, "each pipeline of the pass is recorded as triggered by run")
	}

	// A second pass: the sync finds everything unchanged, the same file is skipped.
	r = run(t, "run", "--demo", "--database-url", db, "--config", conf)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Regexp(t, `campaigns\s+75\s+0\s+0\s+75\s+0\s+0`, r.stdout, "unchanged records are neither updated nor counted as deleted again")
	require.Contains(t, r.stdout, "skipped: the sample CRM file (fixtures/sample/crm.csv, built in) was already uploaded",
		"the skip names the sample, not its temporary copy")
	require.NotContains(t, r.stdout, "created custom audience", "the audience of the first pass is not created again")
	require.NotContains(t, r.stdout+r.stderr, "fake-consumer-secret")
}

func TestNextStepsAgainstTheRealServiceNameNoDemoFileAndNoFake(t *testing.T) {
	t.Parallel()
	steps := nextSteps("out", "", "", false, false)
	require.Contains(t, steps, " run ")
	for _, demo := range []string{"crm.csv", "CRM file", "fixtures serve"} {
		require.NotContains(t, steps, demo)
	}
	require.Contains(t, nextSteps("out", "", "", false, true), "fixtures serve", "the demo's steps show the fake")
}
