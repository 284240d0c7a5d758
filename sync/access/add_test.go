package access_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/sync/access"
	"github.com/stretchr/testify/require"
)

func TestReadTokenLinesSkipsBlanksAndCommentsAndKeepsAnOverlongLineToRefuseIt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", hashing.DefaultMaxLineBytes+1)
	lines, err := access.ReadTokenLines(strings.NewReader("# users\n\n  \n" + long + "\nt s\n"))
	require.NoError(t, err)
	require.Len(t, lines, 2, "the overlong line and the pair")
	lines, err = access.ReadTokenLines(strings.NewReader("# only a comment\n\n"))
	require.NoError(t, err)
	require.Empty(t, lines)
}

func TestAddStoresEachAcceptedTokenAndRefusesTheOthersByLineNumberWithoutShowingThem(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *fixtures.Options) { o.Accounts, o.Users = 4, 1 })
	ctx := context.Background()
	var user fixtures.FakeUser
	for _, u := range b.fake.Srv.Users() {
		if u.ID != b.fake.Srv.Options().OwnerUserID {
			user = u
		}
	}
	require.NotEmpty(t, user.Token)
	long := strings.Repeat("y", hashing.DefaultMaxLineBytes+1)
	in := "# the agency's users\n" + user.Token + " " + user.Secret + " @agency_client\n" +
		"only-one-field\n" + "1000000099-unknowntoken unknownsecret\n" + long + "\n"
	lines, err := access.ReadTokenLines(strings.NewReader(in))
	require.NoError(t, err)
	var out, errOut strings.Builder
	err = access.Onboarding{Tokens: b.tokens, App: b.app, Out: &out, Err: &errOut}.Add(ctx, lines)
	var refused *access.RefusedLinesError
	require.ErrorAs(t, err, &refused)
	require.Equal(t, access.RefusedLinesError{Refused: 3, Lines: 4, Added: 1}, *refused)
	require.EqualError(t, err, "auth add: 3 of 4 lines refused (see above); 1 users added")

	require.Regexp(t, `^added user `+user.ID+` \(@agency_client\): reaches \d+ accounts; token stored encrypted\n$`, out.String())
	require.Contains(t, errOut.String(), "auth add: line 3: expected TOKEN SECRET [SCREEN_NAME], found 1 field (the line is not shown: it may hold a secret)\n")
	require.Contains(t, errOut.String(), "auth add: line 4: user 1000000099: the service refused the token: GET /12/accounts: HTTP 401: code 89")
	require.Contains(t, errOut.String(), "auth add: line 5: longer than ")
	requireNoSecrets(t, out.String()+errOut.String(), user.Token, user.Secret, "unknownsecret", "1000000099-unknowntoken", "only-one-field")

	stored, err := b.tokens.ForUser(ctx, b.app.Credentials(), user.ID)
	require.NoError(t, err)
	require.Equal(t, "agency_client", stored.ScreenName)
	users, err := access.ListUsers(ctx, b.pool)
	require.NoError(t, err)
	require.Len(t, users, 1)
	require.Equal(t, "ok", users[0].State)
	require.NotEmpty(t, users[0].Accounts, "the accounts its token reaches are recorded")
}
