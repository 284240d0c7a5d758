package jobs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
)

// waitKind returns the next event of a job of kind.
func waitKind(t *testing.T, events <-chan *river.Event, kind string) *river.Event {
	t.Helper()
	for {
		if ev := waitEvent(t, events); ev.Job.Kind == kind {
			return ev
		}
	}
}

// audienceWorker is a worker whose audience_sync jobs a test runs one at
// a time, waiting for each one's next event.
type audienceWorker struct {
	t      *testing.T
	client *river.Client[pgx.Tx]
	events <-chan *river.Event
}

func startAudienceWorker(t *testing.T, deps *jobs.Deps) *audienceWorker {
	t.Helper()
	client := jobstest.StartWorker(t, deps, jobs.Options{})
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed, river.EventKindJobSnoozed)
	t.Cleanup(cancel)
	return &audienceWorker{t: t, client: client, events: events}
}

// run inserts an audience_sync job and returns its first event.
func (w *audienceWorker) run(args jobs.AudienceSyncArgs) *river.Event {
	w.t.Helper()
	_, err := w.client.Insert(context.Background(), args, nil)
	require.NoError(w.t, err)
	return w.next()
}

// next waits for the next event of an audience_sync job.
func (w *audienceWorker) next() *river.Event {
	w.t.Helper()
	return waitKind(w.t, w.events, "audience_sync")
}

// counterValue is one series' value in m's registry.
func counterValue(t *testing.T, m *jobs.Metrics, family string, labels map[string]string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
	series:
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue series
				}
			}
			return s.GetCounter().GetValue()
		}
	}
	t.Fatalf("no series %s%v", family, labels)
	return 0
}

func emails(n int) string {
	var b strings.Builder
	b.WriteString("email\n")
	for i := range n {
		fmt.Fprintf(&b, "user%d@example.com\n", i)
	}
	return b.String()
}

func TestAudienceSyncJobKeepsItsAudienceAndARefusedReplaceIsCancelledCountedAndRecordedFailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, nil)
	truth := fake.Srv.AdsTruth()
	var accounts []string
	for id, kinds := range truth.Accounts {
		if len(kinds["custom_audiences"].IDs) > 0 {
			accounts = append(accounts, id)
		}
	}
	slices.Sort(accounts)
	account, aud := accounts[0], truth.Accounts[accounts[0]]["custom_audiences"].IDs[0]
	path := filepath.Join(t.TempDir(), "crm.csv")
	require.NoError(t, os.WriteFile(path, []byte(emails(20)), 0o600))

	deps := jobstest.Deps(t, fake, pool)
	deps.Metrics = jobs.NewMetrics()
	deps.Metrics.AudienceSyncs([]string{"crm"})
	deps.Audiences = map[string]audience.Definition{"crm": {Name: "crm", AccountID: account, AudienceID: aud, Path: path, Mode: audience.ModeReplace}}
	w := startAudienceWorker(t, deps)
	ev := w.run(jobs.AudienceSyncArgs{Name: "crm", Trigger: "schedule"})
	require.Equal(t, river.EventKindJobCompleted, ev.Kind, "errors: %v", ev.Job.Errors)
	require.Eventually(t, func() bool {
		var sending bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM audience_uploads WHERE state = 'planned')`).Scan(&sending))
		return !sending
	}, patience, 20*time.Millisecond, "the upload's batches were sent")
	require.Len(t, fake.Srv.AudienceMembers(aud, "email"), 20)
	require.Equal(t, 1.0, counterValue(t, deps.Metrics, "adsync_audience_syncs_total", map[string]string{"audience": "crm", "outcome": "planned"}))

	// Emptied by mistake: refused, cancelled (no retry can help), counted,
	// and recorded failed with the plan; the members stay.
	require.NoError(t, os.WriteFile(path, []byte("email\n"), 0o600))
	ev = w.run(jobs.AudienceSyncArgs{Name: "crm", Trigger: "schedule"})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	require.Contains(t, ev.Job.Errors[len(ev.Job.Errors)-1].Error, "audience crm: the source has no valid user")
	require.Equal(t, 1.0, counterValue(t, deps.Metrics, "adsync_audience_syncs_total", map[string]string{"audience": "crm", "outcome": "refused"}))
	var outcome, trigger, reason string
	require.NoError(t, pool.QueryRow(ctx, `SELECT outcome, trigger, error FROM sync_runs ORDER BY id DESC LIMIT 1`).Scan(&outcome, &trigger, &reason))
	require.Equal(t, []string{"failed", "schedule"}, []string{outcome, trigger})
	require.Contains(t, reason, "nothing was sent (plan: add 0 users, delete 20 of 20 known identifiers")
	require.Len(t, fake.Srv.AudienceMembers(aud, "email"), 20)

	// A name the configuration no longer holds is cancelled.
	ev = w.run(jobs.AudienceSyncArgs{Name: "gone"})
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	require.Contains(t, ev.Job.Errors[len(ev.Job.Errors)-1].Error, "audience gone is not configured")
}

func TestAudienceSchedulesAreCheckedAndEmptyOnesSkipped(t *testing.T) {
	t.Parallel()
	periodic, err := jobs.AudiencePeriodicJobs(map[string]string{"crm": "CRON_TZ=Europe/Berlin 0 3 * * *", "manual": ""})
	require.NoError(t, err)
	require.Len(t, periodic, 1)
	_, err = jobs.AudiencePeriodicJobs(map[string]string{"crm": "0 3 * *"})
	require.EqualError(t, err, `audience crm: schedule: invalid cron spec "0 3 * *": expected exactly 5 fields, found 4: [0 3 * *]`)
}

func TestConfiguredAudiencesRunsAreScrapedAtZeroFromTheStart(t *testing.T) {
	t.Parallel()
	m := jobs.NewMetrics()
	m.AudienceSyncs([]string{"crm", "vip"})
	for _, name := range []string{"crm", "vip"} {
		for _, outcome := range []string{"planned", "unchanged", "refused", "failed"} {
			require.Zero(t, counterValue(t, m, "adsync_audience_syncs_total", map[string]string{"audience": name, "outcome": outcome}))
		}
	}
}

// A run waits (snoozes) while an earlier upload to its audience is being
// sent; one that has waited for hours fails, recorded, instead of waiting
// unseen for an upload that will never end.
func TestAudienceSyncJobWaitsForAnUnfinishedUploadThenGivesUpRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, nil)
	path := filepath.Join(t.TempDir(), "crm.csv")
	require.NoError(t, os.WriteFile(path, []byte(emails(3)), 0o600))
	deps := jobstest.Deps(t, fake, pool)
	deps.Metrics = jobs.NewMetrics()
	deps.Audiences = map[string]audience.Definition{"crm": {Name: "crm", AccountID: "a1", AudienceID: "aud1", Path: path, Mode: audience.ModeReplace}}
	var stuck int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO audience_uploads (account_id, audience_id, file_path, checksum, operation, mode)
		VALUES ('a1', 'aud1', 'earlier.csv', 'x', 'update', 'replace') RETURNING id`).Scan(&stuck))
	w := startAudienceWorker(t, deps)
	ev := w.run(jobs.AudienceSyncArgs{Name: "crm", Trigger: "schedule"})
	require.Equal(t, river.EventKindJobSnoozed, ev.Kind)
	var runs int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM sync_runs`).Scan(&runs))
	require.Zero(t, runs, "waiting is not a run")

	// The same job, hours later.
	_, err := pool.Exec(ctx, `UPDATE river_job SET created_at = now() - interval '7 hours', scheduled_at = now() WHERE id = $1`, ev.Job.ID)
	require.NoError(t, err)
	ev = w.next()
	require.Equal(t, river.EventKindJobCancelled, ev.Kind)
	var outcome, reason string
	require.NoError(t, pool.QueryRow(ctx, `SELECT outcome, error FROM sync_runs`).Scan(&outcome, &reason))
	require.Equal(t, "failed", outcome)
	require.Equal(t, fmt.Sprintf("audience crm: upload %d to audience aud1 is still being sent ('adsync worker' sends it): run again once it is done", stuck), reason)
	require.Equal(t, 1.0, counterValue(t, deps.Metrics, "adsync_audience_syncs_total", map[string]string{"audience": "crm", "outcome": "failed"}))
}
