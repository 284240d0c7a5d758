package access_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/adsync/adsync/sync/access"
	"github.com/stretchr/testify/require"
)

func TestPickIsStableSpreadsAndMovesOnlyALostUsersAccounts(t *testing.T) {
	t.Parallel()
	users := make([]access.Candidate, 20)
	for i := range users {
		users[i] = access.Candidate{ID: fmt.Sprint(1000000101 + i), Reach: 20000}
	}
	const accounts = 20000
	reversed := slices.Clone(users)
	slices.Reverse(reversed)
	share := map[string]int{}
	first := make([]string, accounts)
	for a := range accounts {
		id := fmt.Sprintf("acc%05d", a)
		first[a] = access.Pick(id, users)
		share[first[a]]++
		// The order the candidates come in changes nothing.
		require.Equal(t, first[a], access.Pick(id, reversed))
	}
	for _, u := range users {
		require.InDelta(t, accounts/len(users), share[u.ID], float64(accounts/len(users)/5), "user %s's share", u.ID)
	}
	// Without one user, only that user's accounts move.
	rest := users[1:]
	for a := range accounts {
		got := access.Pick(fmt.Sprintf("acc%05d", a), rest)
		if first[a] != users[0].ID {
			require.Equal(t, first[a], got)
		} else {
			require.NotEqual(t, users[0].ID, got)
		}
	}
	require.Empty(t, access.Pick("acc", nil))
}

// An agency's own login reaches every account; each client's user reaches
// its few. Plain rendezvous would give the agency's login a share of every
// account it competes for (a third of those shared with two others, half
// of those shared with one): weighing by reach leaves it about a fair share,
// and a reach that moves within its power of two moves no account.
func TestPickGivesAUserWhoReachesEverythingAFairShare(t *testing.T) {
	t.Parallel()
	const accounts, clients = 2000, 20
	reach := map[string]int{"agency": accounts}
	reachers := make([][]string, accounts)
	for a := range accounts {
		// Each account is reached by the agency and one or two clients.
		reachers[a] = []string{"agency", fmt.Sprint("client", a%clients)}
		if a%3 == 0 {
			reachers[a] = append(reachers[a], fmt.Sprint("client", (a/3+7)%clients))
		}
		for _, u := range reachers[a][1:] {
			reach[u]++
		}
	}
	pick := func(reach map[string]int) (map[string]int, []string) {
		share, chosen := map[string]int{}, make([]string, accounts)
		for a, us := range reachers {
			var cs []access.Candidate
			for _, u := range us {
				cs = append(cs, access.Candidate{ID: u, Reach: reach[u]})
			}
			chosen[a] = access.Pick(fmt.Sprint("acct", a), cs)
			share[chosen[a]]++
		}
		return share, chosen
	}
	share, chosen := pick(reach)
	fair := accounts / (clients + 1)
	require.Less(t, share["agency"], 5*fair/2, "the agency's login's share: %v", share)
	for u, n := range share {
		require.Greater(t, n, fair/3, "user %s's share: %v", u, share)
	}

	// The agency loses a few accounts (its reach stays within the same
	// power of two): no choice changes.
	grown := maps.Clone(reach)
	grown["agency"] = accounts - 50
	_, again := pick(grown)
	require.Equal(t, chosen, again)
}

func TestNeedsAllowTheRolesThatMayMakeTheirCalls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		perms               []string
		read, stats, upload bool
	}{
		{[]string{"ACCOUNT_ADMIN", "POST_COMPOSER"}, true, true, true},
		{[]string{"AD_MANAGER", "POST_COMPOSER"}, true, true, true},
		{[]string{"CREATIVE_MANAGER", "POST_COMPOSER"}, true, false, false},
		{[]string{"CAMPAIGN_ANALYST"}, true, true, false},
		{[]string{"ANALYST"}, true, true, false},
		{[]string{"PARTNER_AUDIENCE_MANAGER"}, true, false, true},
		{nil, true, false, false},
	} {
		require.Equal(t, tc.read, access.NeedRead.Allows(tc.perms), "%v read", tc.perms)
		require.Equal(t, tc.stats, access.NeedAnalytics.Allows(tc.perms), "%v analytics", tc.perms)
		require.Equal(t, tc.upload, access.NeedAudience.Allows(tc.perms), "%v audience", tc.perms)
	}
	require.Equal(t, "AD_MANAGER", access.Role([]string{"AD_MANAGER", "POST_COMPOSER"}))
}
