package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// agencySecretKey encrypts the stored tokens of the agency tests.
const agencySecretKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// addTokens runs adsync auth add with every generated user's token and
// secret on standard input.
func (e *env) addTokens(t testing.TB, users []fixtures.FakeUser) {
	t.Helper()
	var in strings.Builder
	for _, u := range users {
		fmt.Fprintf(&in, "%s %s %s\n", u.Token, u.Secret, u.ScreenName)
	}
	cmd := execCommand(adsyncExe(), "auth", "add", "--config", e.conf)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, u := range users {
		require.Contains(t, string(out), u.ID)
		require.NotContains(t, string(out), u.Token)
		require.NotContains(t, string(out), u.Secret)
	}
}

// generatedUsers are the fake's users besides the owner, each with a token.
func (e *env) generatedUsers() []fixtures.FakeUser {
	var generated []fixtures.FakeUser
	for _, u := range e.srv.Users() {
		if u.Token != "" && u.ID != e.srv.Options().OwnerUserID {
			generated = append(generated, u)
		}
	}
	return generated
}

// TestAgencyFleetSyncsEveryAccountOnceAndSurvivesARevokedToken is the
// agency's proof: 20 users' tokens besides the configured owner's, 1,000
// accounts each reached by one to three of them, three worker processes.
// One user's token is revoked in the middle of the run. Every account is
// synced exactly once, by one user, equal to the fake's ground truth, and
// no request is refused for its rate window.
func TestAgencyFleetSyncsEveryAccountOnceAndSurvivesARevokedToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *fixtures.Options) {
		o.Accounts, o.Users = 1000, 20
		o.CampaignsPerAccount, o.LineItemsPerCampaign, o.CardsPerAccount = 2, 1, 0
		o.PostsPerAccount, o.AudiencesPerAccount, o.MediaPerAccount = 0, 0, 0
	}, fmt.Sprintf("secret_key: %q\nqueues: {sync: 4}\n", agencySecretKey))
	generated := e.generatedUsers()
	require.Len(t, generated, 20)
	e.addTokens(t, generated)

	for range 3 {
		e.worker(t)
	}
	id := e.queueSync(t, "--entities", "campaigns")

	// Revoke one user's token once the run is under way: its remaining
	// accounts move to the other users who reach them.
	victim := generated[0].ID
	ctx := context.Background()
	succeeded := func() int {
		var n int
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM sync_run_units WHERE run_id = $1 AND state = 'succeeded'`, id).Scan(&n))
		return n
	}
	waitFor(t, 5*time.Minute, "a third of the units", func() bool { return succeeded() >= 330 })
	require.NoError(t, e.srv.RevokeUser(victim))
	waitFor(t, 5*time.Minute, "the run to end", func() bool { return e.outcome(t, id) != "running" })
	require.Equal(t, "succeeded", e.outcome(t, id))

	// Every live account's unit once, succeeded.
	var units, distinct, failed, live int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM accounts WHERE NOT deleted`).Scan(&live))
	require.Greater(t, live, 900)
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT (account_id, entity)), count(*) FILTER (WHERE state <> 'succeeded')
		FROM sync_run_units WHERE run_id = $1 AND entity <> 'accounts'`, id).Scan(&units, &distinct, &failed))
	require.Equal(t, live, units)
	require.Equal(t, live, distinct)
	require.Zero(t, failed)
	requireTablesMatch(t, e.pool, e.srv.AdsTruth(), "campaigns")

	// The revoked token was met mid-run and is no longer used.
	var state string
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT state FROM api_users WHERE user_id = $1`, victim).Scan(&state))
	require.Equal(t, "revoked", state)

	// Each account's list was read by one user (the revoked user's refused
	// requests aside), and no request met an exhausted window.
	st := e.srv.Stats()
	readers := map[string]map[string]bool{} // pattern|account -> users
	used := map[string]int{}
	throttled := 0
	for k, c := range st.ByUser {
		throttled += c.Throttled
		if k.AccountID == "" || !strings.HasSuffix(k.Pattern, "/campaigns") {
			continue
		}
		key := k.Pattern + "|" + k.AccountID
		if readers[key] == nil {
			readers[key] = map[string]bool{}
		}
		readers[key][k.User] = true
		used[k.User]++
	}
	require.Zero(t, throttled, "429 answers")
	for key, us := range readers {
		// The fake counts a request before it checks the token: the
		// revoked user's refused request, then its successor's, both count.
		if len(us) > 1 && us[victim] {
			delete(us, victim)
		}
		require.Len(t, us, 1, "%s was read by %v", key, us)
	}
	require.GreaterOrEqual(t, len(used), 15, "the accounts spread over the users: %v", used)
}
