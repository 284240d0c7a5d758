package adsynccmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// secondAudience is another audience of the account of firstAudience.
func (b *serviceBundle) secondAudience(t *testing.T, acct string) string {
	t.Helper()
	ids := b.srv.AdsTruth().Accounts[acct]["custom_audiences"].IDs
	require.GreaterOrEqual(t, len(ids), 2)
	return ids[1]
}

// The two query sequences of issue 44 (item 4).
func TestAudienceUploadRefusesInvalidRowsBeforeSkippingAndAnEmptyQueryRecordsNothing(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	upload := func(aud, query string, flags ...string) result {
		return b.run(t, append([]string{"audience", "upload", "--account", acct, "--audience", aud, "--query", query}, flags...)...)
	}

	// The valid user uploaded, then the same user with 50 invalid rows.
	r := upload(aud, `SELECT 'a@example.com' AS email`, "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	for _, flags := range [][]string{{"--dry-run"}, nil} {
		r = upload(aud, `SELECT 'a@example.com' AS email UNION ALL SELECT 'bad' || g FROM generate_series(1, 50) g`, flags...)
		require.Equal(t, 1, r.code, "%v: refused, not skipped: %s%s", flags, r.stdout, r.stderr)
		require.Contains(t, r.stderr, "50 of 51 rows invalid, more than --max-invalid 1% (0)")
		require.Contains(t, r.stdout, "invalid: row 2: ", "the refused rows are listed")
		require.NotContains(t, r.stdout, "skipped")
	}

	// An empty query is a no-op, recorded nowhere; an all-invalid one is
	// refused, not skipped against it.
	other := b.secondAudience(t, acct)
	r = upload(other, `SELECT NULL::text AS email`)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "nothing to upload: the query's result has no valid user (1 rows read, 0 invalid), so --op update changes nothing; nothing recorded or sent\n")
	r = upload(other, `SELECT 'bad' || g AS email FROM generate_series(1, 50) g`)
	require.Equal(t, 1, r.code, "refused, not skipped: %s%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "50 of 50 rows invalid, more than --max-invalid 1% (0)")
	var uploads int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*) FROM audience_uploads WHERE audience_id = $1`, other).Scan(&uploads))
	require.Zero(t, uploads)

	// A configured audience in add mode whose query yields no user fails
	// its run: exit 1, and adsync status shows why.
	appendConfig(t, b, "audiences:\n  - name: vip\n    account: "+acct+"\n    audience: "+other+"\n    source:\n      query: SELECT NULL::text AS email\n")
	r = b.run(t, "audience", "sync", "vip")
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stderr, "audience vip: the source has no valid user: nothing to add; a source that yields no user is taken for a broken query or file; nothing was sent")
	st := b.run(t, "status")
	require.Equal(t, 0, st.code, st.stderr)
	require.Regexp(t, `(?m)^\d+\s+audience\s+manual\s+.*\sfailed\s`, st.stdout)
}

// session is another connection to pool's database, as pg_stat_activity
// shows it.
type session struct{ state, query string }

func sessions(t *testing.T, pool *pgxpool.Pool) []session {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT coalesce(state, ''), query FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`)
	require.NoError(t, err)
	defer rows.Close()
	var out []session
	for rows.Next() {
		var s session
		require.NoError(t, rows.Scan(&s.state, &s.query))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

func TestAudienceUploadOfASleepingQueryIsCutByAudienceQueryTimeoutWithNothingLeftOpen(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	appendConfig(t, b, "audience:\n  query_timeout: 1s\n")
	pool := b.pool(t)
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		done <- b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--query", "SELECT pg_sleep(30)::text AS email")
	}()

	// While the query sleeps, nothing else of adsync's is open in a
	// transaction.
	var during []session
	require.Eventually(t, func() bool {
		during = sessions(t, pool)
		for _, s := range during {
			if s.state == "active" && strings.HasPrefix(s.query, "FETCH") {
				return true
			}
		}
		return false
	}, 20*time.Second, 5*time.Millisecond, "the query runs")
	for _, s := range during {
		require.NotEqual(t, "idle in transaction", s.state, "while the source runs: %q", s.query)
	}

	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the query was not cut by audience.query_timeout")
	}
	require.Less(t, time.Since(start), 15*time.Second)
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stderr, `adsync: audience upload: query "SELECT pg_sleep(30)::text AS email" ran longer than its time limit of 1s and was cut; `+
		"nothing was recorded or sent: raise audience.query_timeout (env ADSYNC_AUDIENCE_QUERY_TIMEOUT) or make the query faster\n")
	var uploads, running int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM audience_uploads),
		(SELECT count(*) FROM sync_runs WHERE outcome = 'running')`).Scan(&uploads, &running))
	require.Zero(t, uploads, "no upload recorded")
	require.Zero(t, running, "no run left running")
	require.Eventually(t, func() bool {
		for _, s := range sessions(t, pool) {
			if s.state == "active" || s.state == "idle in transaction" {
				return false
			}
		}
		return true
	}, 5*time.Second, 10*time.Millisecond, "nothing left running or open: the query was cut in Postgres")
}
