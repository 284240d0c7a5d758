package jobs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
)

func TestExportJobWaitsForARunningSyncThenExports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, nil)
	deps := jobstest.Deps(t, fake, pool)
	deps.ExportOut = t.TempDir()
	var syncRun int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO sync_runs (pipeline) VALUES ('sync') RETURNING id`).Scan(&syncRun))

	client := jobstest.StartWorker(t, deps, jobs.Options{Schedules: map[string]string{}})
	events, cancel := client.Subscribe(river.EventKindJobSnoozed, river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	_, err := client.Insert(ctx, jobs.ExportArgs{Tables: []string{"sync_runs"}}, nil)
	require.NoError(t, err)

	ev := waitEvent(t, events)
	require.Equal(t, river.EventKindJobSnoozed, ev.Kind, "an export does not run while a sync is running")
	_, err = pool.Exec(ctx, `UPDATE sync_runs SET outcome = 'succeeded', finished_at = now() WHERE id = $1`, syncRun)
	require.NoError(t, err)
	// Bring the snoozed job forward instead of waiting a minute.
	_, err = pool.Exec(ctx, `UPDATE river_job SET scheduled_at = now() WHERE kind = 'export' AND state = 'scheduled'`)
	require.NoError(t, err)
	ev = waitEvent(t, events)
	require.Equal(t, river.EventKindJobCompleted, ev.Kind, "error: %v", ev.Job.Errors)
	files, _ := filepath.Glob(filepath.Join(deps.ExportOut, "sync_runs", "dt=*", "*.parquet"))
	require.Len(t, files, 1)
}

func waitEvent(t *testing.T, events <-chan *river.Event) *river.Event {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(patience):
		t.Fatalf("no job event within %v", patience)
		return nil
	}
}

func TestExportJobIntoAFolderAdsyncMayNotWriteIsCancelledNotRetried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, nil)
	deps := jobstest.Deps(t, fake, pool)
	deps.ExportOut = t.TempDir()
	mine := filepath.Join(deps.ExportOut, "thesis.txt")
	require.NoError(t, os.WriteFile(mine, []byte("years of work"), 0o644))

	client := jobstest.StartWorker(t, deps, jobs.Options{Schedules: map[string]string{}})
	events, cancel := client.Subscribe(river.EventKindJobCancelled, river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	_, err := client.Insert(ctx, jobs.ExportArgs{Tables: []string{"sync_runs"}}, nil)
	require.NoError(t, err)
	ev := waitEvent(t, events)
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	require.Contains(t, ev.Job.Errors[len(ev.Job.Errors)-1].Error, "not empty")
	b, err := os.ReadFile(mine)
	require.NoError(t, err)
	require.Equal(t, "years of work", string(b))
}
