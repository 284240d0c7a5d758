package adsynccmd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStatsSyncWaitPullsActiveEntitiesAndRecordsTheRun(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "stats", "sync", "--entities", "CAMPAIGN", "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `accounts \d+, account-days \d+, active entities \d+, requests \d+ \(active entities \d+, synchronous stats \d+, asynchronous jobs \d+\), 429 answers \d+, jobs \d+, rows [1-9]\d*\n`, r.stdout)
	require.Contains(t, r.stdout, " succeeded\n")

	var rows, entities int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*), count(DISTINCT entity_type) FROM ad_stats`).Scan(&rows, &entities))
	require.Positive(t, rows)
	require.Equal(t, 1, entities, "--entities narrows the configured entity types")
	var outcome string
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT outcome FROM sync_runs WHERE pipeline = 'stats'`).Scan(&outcome))
	require.Equal(t, "succeeded", outcome)
}

func TestStatsSyncBadInputIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--entities", "ACCOUNT"}, "ACCOUNT and ORGANIC_POST have no active entities"},
		{[]string{"--granularity", "WEEK"}, "must be DAY or HOUR"},
		{[]string{"--start", "yesterday"}, "neither a date"},
		{[]string{"--segmentation", "REGIONS"}, "needs a country"},
	} {
		b := setupService(t, bundleOptions{ownerToken: true})
		r := b.run(t, append([]string{"stats", "sync"}, tc.args...)...)
		require.Equal(t, 2, r.code, r.stdout+r.stderr)
		require.Contains(t, r.stderr, tc.want)
	}
}

func TestStatsSyncWithoutWaitQueuesTheRunForAWorker(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "stats", "sync", "--entities", "CAMPAIGN")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `^stats run \d+ queued\n$`, r.stdout)
	var kind, state string
	require.NoError(t, b.pool(t).QueryRow(context.Background(),
		`SELECT kind, state FROM river_job ORDER BY id DESC LIMIT 1`).Scan(&kind, &state))
	require.Equal(t, "stats_sync", kind)
	require.Equal(t, "available", state, "no worker of this process took it")
}
