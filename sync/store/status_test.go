package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
)

func TestRedactHidesCredentialsInMessages(t *testing.T) {
	t.Parallel()
	for in, secret := range map[string]string{
		"GET /2/posts: Authorization: Bearer AAAAAAAAAAAAAAAAAAAAA%2Fxyz":  "AAAAAAAAAAAAAAAAAAAAA%2Fxyz",
		"failed: access_token=abc123def&count=5":                           "abc123def",
		`{"oauth_token_secret": "s3cr3t"}`:                                 "s3cr3t",
		"cannot connect to postgres://app:hunter2@db.internal:5432/adsync": "hunter2",
		`OAuth oauth_consumer_key="k", oauth_signature="c2lnbmF0dXJl%3D"`:  "c2lnbmF0dXJl%3D",
		"consumer_secret: topsecret":                                       "topsecret",
	} {
		out := Redact(in)
		require.NotContains(t, out, secret, in)
		require.Contains(t, out, "[redacted]", in)
	}
	require.Equal(t, "GET /12/accounts: HTTP 404: NOT_FOUND", Redact("GET /12/accounts: HTTP 404: NOT_FOUND"), "ordinary messages are untouched")
	const refused = "GET /12/accounts: dial tcp 127.0.0.1:45477: connection refused: nothing answers at http://127.0.0.1:45477/ads/12/accounts"
	require.Equal(t, refused, Redact(refused), "a URL's port is not a password")
}

func TestReadStatusShowsRunsQueuesAndFailedJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := Connect(ctx, localpg.NewDatabase(t), ConnectOptions{MaxConns: 4})
	require.NoError(t, err)
	defer pool.Close()
	_, err = migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO sync_runs (pipeline, outcome, counts, error) VALUES
		('sync', 'succeeded', '{"campaigns":{"fetched":3}}', NULL),
		('export', 'failed', '{}', 'export: access_token=leaked')`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO river_job (kind, queue, state, args, max_attempts, attempt, errors, metadata, priority, scheduled_at, attempted_at, finalized_at)
		VALUES ('sync_unit', 'sync', 'discarded', '{}', 3, 3, ARRAY['{"at":"2026-01-01T00:00:00Z","attempt":3,"error":"GET /x: Bearer abcdef failed","trace":""}'::jsonb], '{}', 1, now(), now(), now()),
		       ('export', 'export', 'available', '{}', 5, 0, NULL, '{}', 1, now(), NULL, NULL)`)
	require.NoError(t, err)
	st, err := ReadStatus(ctx, pool, 10)
	require.NoError(t, err)
	require.Len(t, st.Runs, 2)
	require.Equal(t, "export", st.Runs[0].Pipeline, "most recent first")
	require.NotContains(t, st.Runs[0].Error, "leaked")
	require.Contains(t, st.Queues, QueueDepth{Queue: "sync", State: "discarded", Jobs: 1})
	require.Contains(t, st.Queues, QueueDepth{Queue: "export", State: "available", Jobs: 1})
	require.Len(t, st.Failed, 1)
	require.Equal(t, "sync_unit", st.Failed[0].Kind)
	require.NotContains(t, st.Failed[0].LastError, "abcdef")
	require.Contains(t, st.Failed[0].LastError, "GET /x")
}

// statusTestArgs are the args of the jobs TestReadStatusListsFailedCancelledAndDiscardedJobs works.
type statusTestArgs struct {
	Outcome string `json:"outcome"`
}

func (statusTestArgs) Kind() string { return "status_test" }

// statusTestWorker fails as its args say, with secrets in its errors.
type statusTestWorker struct {
	river.WorkerDefaults[statusTestArgs]
}

func (statusTestWorker) Work(_ context.Context, job *river.Job[statusTestArgs]) error {
	if job.Args.Outcome == "cancel" {
		return river.JobCancel(errors.New("GET /12/accounts: oauth_token_secret=cancel-secret rejected"))
	}
	return errors.New("connecting to postgres://app:discard-secret@db.internal/adsync failed")
}

func TestReadStatusListsFailedCancelledAndDiscardedJobsRedacted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := Connect(ctx, localpg.NewDatabase(t), ConnectOptions{MaxConns: 4})
	require.NoError(t, err)
	defer pool.Close()
	_, err = migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)

	workers := river.NewWorkers()
	river.AddWorker(workers, statusTestWorker{})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:  map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}},
		Workers: workers, FetchPollInterval: 100 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	// Cancelled through River's client before it ran: no error recorded.
	later, err := client.Insert(ctx, statusTestArgs{Outcome: "later"}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, err = client.JobCancel(ctx, later.Job.ID)
	require.NoError(t, err)
	// Cancelled by its worker, and discarded after its only attempt.
	cancelled, err := client.Insert(ctx, statusTestArgs{Outcome: "cancel"}, nil)
	require.NoError(t, err)
	discarded, err := client.Insert(ctx, statusTestArgs{Outcome: "discard"}, &river.InsertOpts{MaxAttempts: 1})
	require.NoError(t, err)
	require.NoError(t, client.Start(ctx))
	defer func() { require.NoError(t, client.Stop(ctx)) }()
	require.Eventually(t, func() bool {
		var open int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state NOT IN ('cancelled', 'discarded')`).Scan(&open))
		return open == 0
	}, 20*time.Second, 50*time.Millisecond)

	st, err := ReadStatus(ctx, pool, 10)
	require.NoError(t, err)
	require.Contains(t, st.Queues, QueueDepth{Queue: river.QueueDefault, State: "cancelled", Jobs: 2})
	byID := map[int64]FailedJob{}
	for _, f := range st.Failed {
		byID[f.ID] = f
	}
	require.Len(t, byID, 3, "every cancelled and discarded job is listed")
	require.Equal(t, "cancelled", byID[later.Job.ID].State)
	require.Empty(t, byID[later.Job.ID].LastError)
	require.Equal(t, "cancelled", byID[cancelled.Job.ID].State)
	require.Contains(t, byID[cancelled.Job.ID].LastError, "GET /12/accounts")
	require.Equal(t, "discarded", byID[discarded.Job.ID].State)
	require.Contains(t, byID[discarded.Job.ID].LastError, "db.internal")
	for _, f := range st.Failed {
		require.NotContains(t, f.LastError, "cancel-secret")
		require.NotContains(t, f.LastError, "discard-secret")
	}

	st, err = ReadStatus(ctx, pool, 1)
	require.NoError(t, err)
	require.Len(t, st.Failed, 1, "limit bounds the listing")
	_, err = ReadStatus(ctx, pool, 0)
	require.ErrorContains(t, err, "must be at least 1")
}

// A run with more counts than a line can name (an export counts every
// table) shows how many, their sum and zeros, and the largest ones; a run
// with a few shows each.
func TestCountsSummaryNamesTheLargestOfManyCountsAndEachOfAFew(t *testing.T) {
	t.Parallel()
	few := RunSummary{Counts: map[string]any{"units": 3.0, "failed_units": 0.0, "campaigns": map[string]any{"fetched": 5.0}}}
	require.Equal(t, "failed_units=0 fetched=5 units=3", few.CountsSummary())

	many := map[string]any{}
	for i := range 200 {
		many[fmt.Sprintf("report_%03d_daily", i)] = 0.0
	}
	for i := range 14 {
		many[fmt.Sprintf("table_%02d", i)] = float64(100 + i)
	}
	many["ad_stats"] = 4607.0
	many["sync_runs"] = 113.0 // ties with table_13: by name
	got := RunSummary{Counts: many}.CountsSummary()
	require.Equal(t, "216 counts, 6211 in all, 200 zero; largest: ad_stats=4607 sync_runs=113 table_13=113 table_12=112 "+
		"table_11=111 table_10=110 table_09=109 table_08=108 table_07=107 table_06=106 table_05=105 table_04=104 "+
		"(+4 more, on the runs page)", got)
	require.NotContains(t, got, "report_000_daily", "zero counts are counted, not named")
}
