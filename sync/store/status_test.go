package store

import (
	"context"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
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
