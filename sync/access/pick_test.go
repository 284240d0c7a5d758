package access_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/adsync/adsync/sync/access"
	"github.com/stretchr/testify/require"
)

func TestPickIsStableSpreadsAndMovesOnlyALostUsersAccounts(t *testing.T) {
	t.Parallel()
	users := make([]string, 20)
	for i := range users {
		users[i] = fmt.Sprint(1000000101 + i)
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
		require.InDelta(t, accounts/len(users), share[u], float64(accounts/len(users)/5), "user %s's share", u)
	}
	// Without one user, only that user's accounts move.
	rest := users[1:]
	for a := range accounts {
		got := access.Pick(fmt.Sprintf("acc%05d", a), rest)
		if first[a] != users[0] {
			require.Equal(t, first[a], got)
		} else {
			require.NotEqual(t, users[0], got)
		}
	}
	require.Empty(t, access.Pick("acc", nil))
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
