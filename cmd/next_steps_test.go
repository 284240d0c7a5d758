package adsynccmd

import (
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
	steps := nextSteps("out", flags, note, true)
	require.Contains(t, steps, " status --config 'my conf.yaml' --database-url postgres://app@db.example/adsync ")
	require.Contains(t, steps, " run --config 'my conf.yaml' --database-url postgres://app@db.example/adsync --demo ")

	a = &app{databaseURL: "postgres://app:pw-never-shown@db.example/adsync"}
	flags, note = a.passedGlobals()
	require.Empty(t, flags)
	require.Contains(t, note, "export ADSYNC_DATABASE_URL=")
	steps = nextSteps("out", flags, note, false)
	require.NotContains(t, steps, "pw-never-shown")
	require.Contains(t, steps, "  # first: export ADSYNC_DATABASE_URL=")
	require.False(t, strings.Contains(steps, "--demo"))
}

func TestSpanWordsSaysWholeDaysAsDays(t *testing.T) {
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
	steps := nextSteps("s3://b/p?endpoint=http://127.0.0.1:7070&use_path_style=true", "", "", false)
	require.Contains(t, steps, ` export --out 's3://b/p?endpoint=http://127.0.0.1:7070&use_path_style=true' --full`)
	require.NotContains(t, steps, "duckdb")
	require.NotContains(t, steps, "campaigns/*")
}
