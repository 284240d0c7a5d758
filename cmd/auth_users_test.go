package adsynccmd

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

// runStdin runs adsync with the bundle's configuration and database, stdin
// on standard input.
func (b *serviceBundle) runStdin(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := a.run(context.Background(), append(args, "--config", b.conf, "--database-url", b.db))
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// agencyService is a fake with three users besides the owner, reaching
// eight accounts between them. Each user's Accounts are those the
// service's account list shows it (the fake's /_fixtures/users names its
// deleted accounts too, which the list leaves out); deleted are the
// deleted accounts.
func agencyService(t *testing.T) (b *serviceBundle, users []fixtures.FakeUser, deleted []string) {
	t.Helper()
	b = setupService(t, bundleOptions{fake: func(o *fixtures.Options) { o.Accounts, o.Users = 8, 3 }})
	live := map[string]bool{}
	lr := api.ListRequest{Base: api.BaseAds, Path: "/12/accounts", Endpoint: "GET /12/accounts"}
	for page, err := range api.Pages[struct {
		ID string `json:"id"`
	}](context.Background(), b.userClient(t), lr) {
		require.NoError(t, err)
		for _, a := range page.Items {
			live[a.ID] = true
		}
	}
	for _, u := range b.srv.Users() {
		if u.ID == b.srv.Options().OwnerUserID {
			for _, a := range u.Accounts { // the owner reaches every account
				if !live[a.AccountID] {
					deleted = append(deleted, a.AccountID)
				}
			}
			continue
		}
		u.Accounts = slices.DeleteFunc(u.Accounts, func(a fixtures.UserAccount) bool { return !live[a.AccountID] })
		users = append(users, u)
	}
	require.Len(t, users, 3)
	for _, u := range users {
		require.NotEmpty(t, u.Token)
		require.NotEmpty(t, u.Secret)
		require.NotEmpty(t, u.Accounts, "user %s reaches accounts", u.ID)
	}
	return b, users, deleted
}

// secretsOf lists every user's token and secret.
func secretsOf(users []fixtures.FakeUser) []string {
	var out []string
	for _, u := range users {
		out = append(out, u.Token, u.Secret)
	}
	return out
}

// addAll runs auth add with every user's token, the first with its
// screen name.
func (b *serviceBundle) addAll(t *testing.T, users []fixtures.FakeUser) result {
	t.Helper()
	in := fmt.Sprintf("# the agency's users\n%s %s @%s\n\n", users[0].Token, users[0].Secret, users[0].ScreenName)
	for _, u := range users[1:] {
		in += u.Token + "\t" + u.Secret + "\n"
	}
	r := b.runStdin(t, in, "auth", "add")
	require.Equal(t, 0, r.code, r.stderr)
	b.requireNoSecrets(t, r.stdout+r.stderr, secretsOf(users)...)
	return r
}

// listRow matches auth list's row of one user.
func listRow(u fixtures.FakeUser, screen, state string, accounts int) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(u.ID) + `\s+` + regexp.QuoteMeta(screen) + `\s+` + state + `\s+` +
		fmt.Sprint(accounts) + `\s+never$`)
}

func TestAuthAddStoresEachUsersTokenAndAuthListShowsThem(t *testing.T) {
	t.Parallel()
	b, users, _ := agencyService(t)
	r := b.addAll(t, users)
	want := fmt.Sprintf("added user %s (@%s): reaches %d accounts; token stored encrypted\n", users[0].ID, users[0].ScreenName, len(users[0].Accounts))
	for _, u := range users[1:] {
		want += fmt.Sprintf("added user %s (@-): reaches %d accounts; token stored encrypted\n", u.ID, len(u.Accounts))
	}
	require.Equal(t, want, r.stdout)
	require.Empty(t, r.stderr)

	ctx := context.Background()
	stored, err := api.PGUserTokenStore{Pool: b.pool(t), SecretKey: testSecretKey}.All(ctx, b.creds())
	require.NoError(t, err)
	require.Len(t, stored, 3)
	for _, su := range stored {
		require.NoError(t, su.Err)
		i := slices.IndexFunc(users, func(u fixtures.FakeUser) bool { return u.ID == su.UserID })
		require.GreaterOrEqual(t, i, 0, su.UserID)
		require.Equal(t, users[i].Token, su.Token.Token)
		require.Equal(t, users[i].Secret, su.Token.Secret)
		require.Equal(t, api.AccessWrite, su.Token.AccessType)
	}

	r = b.run(t, "auth", "list")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `^USER ID\s+SCREEN NAME\s+STATE\s+ACCOUNTS\s+LAST USED\n`, r.stdout)
	require.Regexp(t, listRow(users[0], "@"+users[0].ScreenName, "ok", len(users[0].Accounts)), r.stdout)
	for _, u := range users[1:] {
		require.Regexp(t, listRow(u, "-", "ok", len(u.Accounts)), r.stdout)
	}
	for _, u := range users {
		var pairs []string
		for _, a := range u.Accounts {
			pairs = append(pairs, a.AccountID+":?") // roles not read yet
		}
		slices.Sort(pairs)
		require.Contains(t, r.stdout, "\n  accounts: "+strings.Join(pairs, " ")+"\n")
	}
	b.requireNoSecrets(t, r.stdout+r.stderr, secretsOf(users)...)

	// auth list needs no ADSYNC_SECRET_KEY.
	conf := b.writeConfig(t, bundleOptions{noSecretKey: true}, nil)
	r = run(t, "auth", "list", "--config", conf, "--database-url", b.db)
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, listRow(users[1], "-", "ok", len(users[1].Accounts)), r.stdout)
}

func TestAuthAddRefusesBadLinesByNumberAndStoresTheGoodOnes(t *testing.T) {
	t.Parallel()
	b, users, _ := agencyService(t)
	bad := users[1]
	in := strings.Join([]string{
		"# tokens",
		users[0].Token + " " + users[0].Secret,
		bad.Token + " " + bad.Secret + "-not-the-secret " + bad.ScreenName,
		"",
		users[2].Token,
		users[2].Token + " " + users[2].Secret,
	}, "\n") + "\n"
	r := b.runStdin(t, in, "auth", "add")
	require.Equal(t, 2, r.code, r.stdout)
	require.Equal(t, fmt.Sprintf("added user %s (@-): reaches %d accounts; token stored encrypted\n", users[0].ID, len(users[0].Accounts))+
		fmt.Sprintf("added user %s (@-): reaches %d accounts; token stored encrypted\n", users[2].ID, len(users[2].Accounts)), r.stdout)
	require.Regexp(t, `(?m)^auth add: line 3: user `+bad.ID+`: the service refused the token: GET /12/accounts: HTTP 401: code 32: .*\(check the line's token and secret.*\)$`, r.stderr)
	require.Regexp(t, `(?m)^auth add: line 5: expected TOKEN SECRET \[SCREEN_NAME\], found 1 field \(the line is not shown`, r.stderr)
	require.Contains(t, r.stderr, "adsync: auth add: 2 of 4 lines refused (see above); 2 users added\n")
	require.Equal(t, 3, strings.Count(r.stderr, "\n"), "one line per refused line and one summary: %q", r.stderr)
	b.requireNoSecrets(t, r.stdout+r.stderr, append(secretsOf(users), bad.Secret+"-not-the-secret")...)

	ctx := context.Background()
	pool := b.pool(t)
	stored, err := api.PGUserTokenStore{Pool: pool, SecretKey: testSecretKey}.All(ctx, b.creds())
	require.NoError(t, err)
	var ids []string
	for _, su := range stored {
		ids = append(ids, su.UserID)
	}
	slices.Sort(ids)
	require.Equal(t, []string{users[0].ID, users[2].ID}, ids, "nothing stored for the refused line")
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM api_users WHERE user_id = $1) + (SELECT count(*) FROM account_users WHERE user_id = $1)`, bad.ID).Scan(&n))
	require.Zero(t, n)

	// No token at all is a usage error.
	r = b.runStdin(t, "# nothing yet\n\n", "auth", "add")
	require.Equal(t, 2, r.code, r.stdout)
	require.Contains(t, r.stderr, "auth add: no tokens on standard input")
}

func TestAuthAddRefusesAnOverLongLineByNumberAndStoresTheGoodOnesAroundIt(t *testing.T) {
	t.Parallel()
	b, users, _ := agencyService(t)
	// A line over the limit (a token and a runaway secret), between good
	// lines: refused as any bad line is, by its number and the limit.
	long := users[2].Token + " " + strings.Repeat("s", 1<<20)
	in := strings.Join([]string{
		users[0].Token + " " + users[0].Secret,
		users[1].Token + " " + users[1].Secret,
		long,
		users[2].Token + " " + users[2].Secret,
	}, "\n") + "\n"
	r := b.runStdin(t, in, "auth", "add")
	require.Equal(t, 2, r.code, r.stdout)
	want := ""
	for _, u := range users {
		want += fmt.Sprintf("added user %s (@-): reaches %d accounts; token stored encrypted\n", u.ID, len(u.Accounts))
	}
	require.Equal(t, want, r.stdout, "the good lines before and after it are stored")
	require.Equal(t, "auth add: line 3: longer than 1048576 bytes, the longest line read (the line is not shown: it may hold a secret)\n"+
		"adsync: auth add: 1 of 4 lines refused (see above); 3 users added\n", r.stderr)
	b.requireNoSecrets(t, r.stdout+r.stderr, secretsOf(users)...)

	stored, err := api.PGUserTokenStore{Pool: b.pool(t), SecretKey: testSecretKey}.All(context.Background(), b.creds())
	require.NoError(t, err)
	require.Len(t, stored, 3)
	for _, su := range stored {
		require.NoError(t, su.Err)
		i := slices.IndexFunc(users, func(u fixtures.FakeUser) bool { return u.ID == su.UserID })
		require.GreaterOrEqual(t, i, 0, su.UserID)
		require.True(t, users[i].Secret == su.Token.Secret, "user %s: the good line's secret is stored, not the long line's", su.UserID)
	}
}

func TestAuthRemoveForgetsTheUserButKeepsSyncedAccounts(t *testing.T) {
	t.Parallel()
	b, users, deleted := agencyService(t)
	ctx := context.Background()
	pool := b.pool(t)
	insertAccounts(t, b, allAccounts(users), deleted)
	b.addAll(t, users)

	gone := users[1]
	r := b.run(t, "auth", "remove", "--user-id", gone.ID)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "removed the stored token of user "+gone.ID)

	r = b.run(t, "auth", "list")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout, gone.ID)
	require.Regexp(t, listRow(users[0], "@"+users[0].ScreenName, "ok", len(users[0].Accounts)), r.stdout)
	require.Regexp(t, listRow(users[2], "-", "ok", len(users[2].Accounts)), r.stdout)

	var accounts, reach int
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM account_users WHERE user_id = $1)`, gone.ID).Scan(&accounts, &reach))
	require.Equal(t, len(allAccounts(users))+len(deleted), accounts, "synced accounts are kept")
	require.Zero(t, reach)
	_, err := api.PGUserTokenStore{Pool: pool, SecretKey: testSecretKey}.ForUser(ctx, b.creds(), gone.ID)
	require.ErrorIs(t, err, api.ErrNoStoredToken)

	// With every user removed, auth list says how to add one.
	for _, u := range []fixtures.FakeUser{users[0], users[2]} {
		require.Equal(t, 0, b.run(t, "auth", "remove", "--user-id", u.ID).code)
	}
	r = b.run(t, "auth", "list")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "adsync auth add")
	require.Contains(t, r.stdout, "adsync auth login")
}

func TestStatusListsAccountsNoTokenReachesAfterARevoke(t *testing.T) {
	t.Parallel()
	b, users, deleted := agencyService(t)
	insertAccounts(t, b, allAccounts(users), deleted)

	r := b.run(t, "status")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout, "ACCOUNTS NO TOKEN REACHES", "nothing recorded yet")

	b.addAll(t, users)
	r = b.run(t, "status")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout, "ACCOUNTS NO TOKEN REACHES", "every account is reached")

	// Revoke the user who alone reaches the most accounts.
	reachers := map[string][]string{}
	for _, u := range users {
		for _, a := range u.Accounts {
			reachers[a.AccountID] = append(reachers[a.AccountID], u.ID)
		}
	}
	var victim string
	var alone []string
	for _, u := range users {
		var only []string
		for _, a := range u.Accounts {
			if len(reachers[a.AccountID]) == 1 {
				only = append(only, a.AccountID)
			}
		}
		if len(only) > len(alone) {
			victim, alone = u.ID, only
		}
	}
	require.NotEmpty(t, alone, "some account is reached by one user only")
	slices.Sort(alone)

	r = b.run(t, "auth", "revoke", "--user-id", victim)
	require.Equal(t, 0, r.code, r.stderr)
	r = b.run(t, "auth", "list")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^`+victim+`\s+\S+\s+revoked\s+\d+\s+never\n  accounts: .*\n  revoked: revoked with adsync auth revoke$`, r.stdout)

	r = b.run(t, "status")
	require.Equal(t, 0, r.code, r.stderr)
	_, section, ok := strings.Cut(r.stdout, "\nACCOUNTS NO TOKEN REACHES\n")
	require.True(t, ok, r.stdout)
	require.Equal(t, strings.Join(alone, "\n")+"\nadsync auth list shows which users reach what; adsync auth add adds tokens\n", section)
	b.requireNoSecrets(t, r.stdout+r.stderr, secretsOf(users)...)
}

func TestStatusAndAuthListCapTheirListingsAt20(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	ctx := context.Background()
	pool := b.pool(t)
	var ids []string
	for i := range 23 {
		ids = append(ids, fmt.Sprintf("acct%02d", i))
	}
	insertAccounts(t, b, ids, nil)
	require.NoError(t, access.RecordListed(ctx, pool, 0, "42", ids))
	_, err := access.NoteUser(ctx, pool, "42", "someone", api.Fingerprint("x"))
	require.NoError(t, err)
	require.NoError(t, access.SetState(ctx, pool, "42", api.UserRefused, "GET /12/accounts: HTTP 401: code 32"))

	r := b.run(t, "status")
	require.Equal(t, 0, r.code, r.stderr)
	_, section, ok := strings.Cut(r.stdout, "\nACCOUNTS NO TOKEN REACHES\n")
	require.True(t, ok, r.stdout)
	require.Equal(t, strings.Join(ids[:20], "\n")+"\n... and 3 more\nadsync auth list shows which users reach what; adsync auth add adds tokens\n", section)

	r = b.run(t, "auth", "list")
	require.Equal(t, 0, r.code, r.stderr)
	var pairs []string
	for _, id := range ids[:20] {
		pairs = append(pairs, id+":?")
	}
	require.Regexp(t, `(?m)^42\s+@someone\s+refused\s+23\s+never$`, r.stdout)
	require.Contains(t, r.stdout, "\n  accounts: "+strings.Join(pairs, " ")+" ... and 3 more\n  refused: GET /12/accounts: HTTP 401: code 32\n")
}

// allAccounts lists every account some user reaches.
func allAccounts(users []fixtures.FakeUser) []string {
	var ids []string
	for _, u := range users {
		for _, a := range u.Accounts {
			ids = append(ids, a.AccountID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// insertAccounts stores accounts as a sync would have, the deleted ones
// as tombstones.
func insertAccounts(t *testing.T, b *serviceBundle, ids, deleted []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := b.pool(t).Exec(ctx, `INSERT INTO accounts (id, name, raw, doc_hash, deleted)
		SELECT id, id, jsonb_build_object('id', id), md5(id), coalesce(id = ANY($2::text[]), false) FROM unnest($1::text[]) id`,
		append(slices.Clone(ids), deleted...), deleted)
	require.NoError(t, err)
}
