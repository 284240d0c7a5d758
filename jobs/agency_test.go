package jobs_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

const agencyKey = "agency test key: 32 characters or more"

// setupAgency is a sync bundle acting for the fake's generated users alone
// (their tokens stored, no configured token), and those users.
func setupAgency(t *testing.T, users int, tweak func(*fixtures.Options)) (*syncBundle, []fixtures.FakeUser) {
	t.Helper()
	var generated []fixtures.FakeUser
	b := setupSync(t, func(o *fixtures.Options) {
		o.Users = users
		o.CampaignsPerAccount, o.CardsPerAccount, o.PostsPerAccount, o.AudiencesPerAccount, o.MediaPerAccount = 3, 1, 1, 1, 1
		if tweak != nil {
			tweak(o)
		}
	}, func(d *jobs.Deps, f *synctest.Fake) {
		ctx := context.Background()
		tokens := &api.PGUserTokenStore{Pool: d.Pool, SecretKey: agencyKey}
		for _, u := range f.Srv.Users() {
			if u.ID == f.Srv.Options().OwnerUserID {
				continue
			}
			generated = append(generated, u)
			require.NoError(t, tokens.Save(ctx, d.API.Credentials(), api.UserToken{Token: u.Token, Secret: u.Secret, UserID: u.ID, ScreenName: u.ScreenName}))
		}
		d.Users = &access.Set{Pool: d.Pool, Base: d.API, Tokens: tokens}
	})
	return b, generated
}

// liveReach maps every account the fake's users reach, deleted accounts
// aside (a run syncs no entity of those), to those users.
func liveReach(t *testing.T, b *syncBundle, users []fixtures.FakeUser) map[string][]string {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT id FROM accounts WHERE deleted`)
	require.NoError(t, err)
	deleted, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	reach := map[string][]string{}
	for _, u := range users {
		for _, a := range u.Accounts {
			if !slices.Contains(deleted, a.AccountID) {
				reach[a.AccountID] = append(reach[a.AccountID], u.ID)
			}
		}
	}
	for _, us := range reach {
		slices.Sort(us)
	}
	return reach
}

// candidates are the users of ids with their reach (the accounts the fake
// grants them).
func candidates(users []fixtures.FakeUser, ids []string) []access.Candidate {
	var cs []access.Candidate
	for _, id := range ids {
		i := slices.IndexFunc(users, func(u fixtures.FakeUser) bool { return u.ID == id })
		cs = append(cs, access.Candidate{ID: id, Reach: len(users[i].Accounts)})
	}
	return cs
}

// readers maps each account to the users whose requests of pattern named
// it.
func readers(st fixtures.Stats, suffix string) map[string][]string {
	out := map[string][]string{}
	for k, c := range st.ByUser {
		if k.AccountID != "" && strings.HasSuffix(k.Pattern, suffix) && c.Requests > 0 {
			out[k.AccountID] = append(out[k.AccountID], k.User)
		}
	}
	for _, us := range out {
		slices.Sort(us)
	}
	return out
}

func TestEachAccountIsSyncedByTheOneUserPickedAmongThoseWhoReachIt(t *testing.T) {
	t.Parallel()
	b, users := setupAgency(t, 4, func(o *fixtures.Options) { o.Accounts = 12 })
	r := b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	ctx := context.Background()

	// account_users holds what the fake grants, with the roles.
	reach := map[string][]string{}
	for _, u := range users {
		for _, a := range u.Accounts {
			reach[a.AccountID] = append(reach[a.AccountID], u.ID)
			var perms []string
			var deleted bool
			require.NoError(t, b.pool.QueryRow(ctx, `SELECT au.permissions, a.deleted FROM account_users au JOIN accounts a ON a.id = au.account_id
				WHERE au.account_id = $1 AND au.user_id = $2 AND au.lost_at IS NULL`, a.AccountID, u.ID).Scan(&perms, &deleted))
			if deleted {
				require.Nil(t, perms, "a deleted account's role is not asked for")
				continue
			}
			require.Equal(t, a.Role, access.Role(perms), "user %s on %s", u.ID, a.AccountID)
		}
	}
	var pairs int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM account_users WHERE lost_at IS NULL`).Scan(&pairs))
	total := 0
	for _, us := range reach {
		total += len(us)
	}
	require.Equal(t, total, pairs)

	// Each user's reach is what its listing returned.
	for _, u := range users {
		var n int
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT reach FROM api_users WHERE user_id = $1`, u.ID).Scan(&n))
		require.Equal(t, len(u.Accounts), n, "user %s's reach", u.ID)
	}

	// Every account's campaigns were read by exactly the picked user.
	reach = liveReach(t, b, users)
	got := readers(b.fake.Srv.Stats(), "/campaigns")
	require.Len(t, got, len(reach))
	for acct, us := range reach {
		require.Equal(t, []string{access.Pick(acct, candidates(users, us))}, got[acct], "account %s reached by %v", acct, us)
	}
	requireCampaignsMatch(t, b)
}

func requireCampaignsMatch(t *testing.T, b *syncBundle) {
	t.Helper()
	truth := b.fake.Srv.AdsTruth()
	counts := tableCounts(t, b.pool, "campaigns")
	for acct, per := range truth.Accounts {
		c := per["campaigns"]
		require.Equal(t, [2]int{len(c.IDs), len(c.DeletedIDs)}, counts[acct], "campaigns of account %s", acct)
	}
}

func TestARevokedTokenAndALostAccountMoveTheirAccountsToOtherUsers(t *testing.T) {
	t.Parallel()
	b, users := setupAgency(t, 3, func(o *fixtures.Options) { o.Accounts = 12 })
	r := b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	ctx := context.Background()

	reach := liveReach(t, b, users)
	var shared string
	for acct, us := range reach {
		if len(us) >= 2 {
			shared = acct
			break
		}
	}
	require.NotEmpty(t, shared, "the fake shares some account")

	// The service withdraws the shared account from the user chosen for
	// it, behind adsync's back: that user's next request answers 403, and
	// the account moves to another user who reaches it.
	set := b.deps.Users
	first, err := set.For(ctx, shared, access.NeedRead)
	require.NoError(t, err)
	require.NoError(t, b.fake.Srv.SetAccountAccess(fixtures.AccountAccess{AccountID: shared, UserID: first.ID, Revoked: true}))
	_, err = access.Permissions(ctx, first.Client, shared)
	require.Equal(t, api.UserLost, api.UserFailure(err), "%v", err)
	var swe *api.SwitchUserError
	require.ErrorAs(t, set.Failed(ctx, first, shared, api.UserLost, err), &swe)
	second, err := set.For(ctx, shared, access.NeedRead)
	require.NoError(t, err)
	require.NotEqual(t, first.ID, second.ID)
	_, err = access.Permissions(ctx, second.Client, shared)
	require.NoError(t, err)

	// A token revoked between runs is met by the next run's listing: its
	// user is no longer used, its accounts go to the others who reach them
	// or out of reach.
	revoked := users[0].ID
	require.NoError(t, b.fake.Srv.RevokeUser(revoked))
	r = b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}, Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	var state string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT state FROM api_users WHERE user_id = $1`, revoked).Scan(&state))
	require.Equal(t, "revoked", state)
	unreached, err := access.Unreached(ctx, b.pool)
	require.NoError(t, err)
	for acct, us := range reach {
		others := slices.DeleteFunc(slices.Clone(us), func(u string) bool {
			return u == revoked || (acct == shared && u == first.ID)
		})
		var lost bool
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT inaccessible_since IS NOT NULL FROM accounts WHERE id = $1`, acct).Scan(&lost))
		if len(others) == 0 {
			require.Contains(t, unreached, acct)
			require.True(t, lost, "account %s was reached only by %v", acct, us)
			continue
		}
		require.NotContains(t, unreached, acct)
		require.False(t, lost, "account %s is reached by %v", acct, others)
	}
}

func TestAnalyticsAndAudienceCallsActAsAUserWhoseRoleAllowsThem(t *testing.T) {
	t.Parallel()
	b, users := setupAgency(t, 5, func(o *fixtures.Options) { o.Accounts = 16 })
	r := b.run(t, jobs.SyncRunArgs{Entities: []string{"funding_instruments"}})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	ctx := context.Background()
	roles := map[[2]string]string{}
	for _, u := range users {
		for _, a := range u.Accounts {
			roles[[2]string{a.AccountID, u.ID}] = a.Role
		}
	}
	refused := 0
	for acct, us := range liveReach(t, b, users) {
		for _, need := range []access.Need{access.NeedAnalytics, access.NeedAudience} {
			u, err := b.deps.Users.For(ctx, acct, need)
			var allowed []string
			for _, id := range us {
				if need.Allows([]string{roles[[2]string{acct, id}]}) {
					allowed = append(allowed, id)
				}
			}
			if len(allowed) == 0 {
				var nue *access.NoUserError
				require.ErrorAs(t, err, &nue, "account %s for %s", acct, need)
				require.Contains(t, err.Error(), acct)
				for _, id := range us {
					require.Contains(t, err.Error(), roles[[2]string{acct, id}])
				}
				refused++
				continue
			}
			require.NoError(t, err)
			require.Equal(t, access.Pick(acct, candidates(users, allowed)), u.ID, "account %s for %s among %v", acct, need, allowed)
		}
	}
	t.Logf("%d account and need pairs had no allowed user", refused)
}

func TestWhoReachesAnAccountReadBeforeAListingRecordedItIsReadAgain(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	r := b.run(t, jobs.SyncRunArgs{Entities: []string{"campaigns"}})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	ctx := context.Background()
	var acct string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT account_id FROM account_users ORDER BY 1 LIMIT 1`).Scan(&acct))
	// Nobody reached the account when its reach was read (the listing had
	// not committed yet); it is known by the time the choice looks: the
	// only user acts, where an upload's batch used to fail for good.
	u, err := b.deps.Users.ForReachers(ctx, acct, access.NeedRead, nil)
	require.NoError(t, err)
	require.NotNil(t, u)
}
