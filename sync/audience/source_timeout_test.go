package audience_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// sessions are the other sessions on pool's database, by state and query.
type session struct{ State, Query string }

func sessions(t *testing.T, pool *pgxpool.Pool) []session {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT coalesce(state, ''), query FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`)
	require.NoError(t, err)
	defer rows.Close()
	var out []session
	for rows.Next() {
		var s session
		require.NoError(t, rows.Scan(&s.State, &s.Query))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

// sleeping reports whether a session fetches the source's rows (its
// pg_sleep).
func sleeping(ss []session) bool {
	for _, s := range ss {
		if s.State == "active" && strings.Contains(s.Query, "FETCH") {
			return true
		}
	}
	return false
}

func TestASleepingSourceQueryIsCutByItsTimeoutWithNothingOfAdsyncsHeldOpenMeanwhile(t *testing.T) {
	t.Parallel()
	b := setup(t)
	def := audience.Definition{Name: "sleepy", AccountID: b.account, AudienceID: b.audienceID,
		Query: `SELECT pg_sleep(30)::text AS email`, Mode: audience.ModeAdd, QueryTimeout: time.Second}
	type outcome struct {
		res *audience.SyncResult
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		res, err := b.keep(audience.SyncOptions{Definition: def, Trigger: "schedule"})
		done <- outcome{res, err}
	}()

	// While the user's query runs, adsync holds no transaction open.
	var during []session
	require.Eventually(t, func() bool { during = sessions(t, b.pool); return sleeping(during) }, 20*time.Second, 5*time.Millisecond)
	for _, s := range during {
		require.NotEqual(t, "idle in transaction", s.State, "a session idle in a transaction while the source runs: %q", s.Query)
	}
	var uploads, running int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM audience_uploads), (SELECT count(*) FROM sync_runs WHERE outcome = 'running')`).Scan(&uploads, &running))
	require.Zero(t, uploads+running, "no upload or run recorded while the source runs")

	var got outcome
	select {
	case got = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the query was not cut by its timeout")
	}
	require.Less(t, time.Since(start), 15*time.Second)
	require.Error(t, got.err)
	var timeout *audience.QueryTimeoutError
	require.True(t, errors.As(got.err, &timeout), "%v", got.err)
	require.ErrorContains(t, got.err, "audience sleepy: ")
	require.ErrorContains(t, got.err, `query "SELECT pg_sleep(30)::text AS email" ran longer than its time limit of 1s and was cut`)
	require.ErrorContains(t, got.err, "raise audience.query_timeout (env ADSYNC_AUDIENCE_QUERY_TIMEOUT)")

	run := b.run(got.res.RunID)
	require.Equal(t, "failed", run.Outcome)
	require.Contains(t, run.Error, "audience.query_timeout")
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM audience_uploads), (SELECT count(*) FROM sync_runs WHERE outcome = 'running')`).Scan(&uploads, &running))
	require.Zero(t, uploads+running, "no upload, no run left running")
	require.Eventually(t, func() bool {
		for _, s := range sessions(t, b.pool) {
			if s.State == "idle in transaction" || s.State == "active" {
				return false
			}
		}
		return true
	}, 5*time.Second, 10*time.Millisecond, "nothing left open or running on the database")
}
