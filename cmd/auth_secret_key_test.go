package adsynccmd

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

// olderSecretKey stands for the ADSYNC_SECRET_KEY a token was stored under
// before the configured one replaced it.
const olderSecretKey = "an-older-secret-key-never-printed-either"

// storeUnderOlderKey stores a token for userID encrypted under
// olderSecretKey: the configured key cannot decrypt it.
func (b *serviceBundle) storeUnderOlderKey(t *testing.T, userID string) api.UserToken {
	t.Helper()
	ut := api.UserToken{Token: "old-token-of-" + userID + "-never-shown", Secret: "old-secret-of-" + userID + "-never-shown",
		UserID: userID, ScreenName: "user" + userID, AccessType: api.AccessWrite}
	require.NoError(t, api.PGUserTokenStore{Pool: b.pool(t), SecretKey: olderSecretKey}.Save(context.Background(), b.creds(), ut))
	return ut
}

// storedUsers lists the users with a stored token, revoked or not.
func (b *serviceBundle) storedUsers(t *testing.T) []string {
	t.Helper()
	var users []string
	require.NoError(t, b.pool(t).QueryRow(context.Background(),
		`SELECT coalesce(array_agg(user_id ORDER BY user_id), '{}') FROM api_user_tokens`).Scan(&users))
	return users
}

func TestAuthLoginReplacesAStoredTokenTheChangedSecretKeyCannotDecryptSayingSo(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	old := b.storeUnderOlderKey(t, fixtures.DefaultOwnerUserID)

	it := b.start(t, "auth", "login")
	authURL := it.authorizeURL(t)
	require.Eventually(t, func() bool { return strings.Contains(it.stdout.String(), "Enter the PIN:") }, 5*time.Second, 10*time.Millisecond)
	status, page := approveInBrowser(t, authURL)
	require.Equal(t, http.StatusOK, status, page)
	m := pinPattern.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	_, err := io.WriteString(it.stdin, m[1]+"\n")
	require.NoError(t, err)

	r := it.wait(t)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stderr, "adsync: the stored token of user "+fixtures.DefaultOwnerUserID+
		" cannot be decrypted with this ADSYNC_SECRET_KEY (was it changed?): this login replaces it\n")
	require.Contains(t, r.stdout, "logged in as @"+fixtures.DefaultOwnerScreen)
	require.NotContains(t, r.stdout, "still stored", "the same user's token was replaced")
	ut := b.storedToken(t)
	b.requireNoSecrets(t, r.stdout+r.stderr, ut.Token, ut.Secret, old.Token, old.Secret, olderSecretKey)
}

func TestAuthRemoveForgetsOnlyTheNamedUsersTokenWithoutDecryptingIt(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	first := b.storeUnderOlderKey(t, "1001")
	second := b.storeUnderOlderKey(t, "1002")

	r := b.run(t, "auth", "revoke", "--user-id", "1001")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "stored token of user 1001: cannot decrypt")
	require.Contains(t, r.stderr, "adsync auth remove --user-id 1001")

	r = b.run(t, "auth", "remove", "--user-id", "1001")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "removed the stored token of user 1001")
	require.Equal(t, []string{"1002"}, b.storedUsers(t), "the other user's token is kept")

	r = b.run(t, "auth", "remove", "--user-id", "1001")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "no stored token of user 1001")

	r = b.run(t, "auth", "remove")
	require.Equal(t, 2, r.code, r.stdout)
	require.Contains(t, r.stderr, "--user-id is required")
	require.Equal(t, []string{"1002"}, b.storedUsers(t))
	b.requireNoSecrets(t, r.stdout+r.stderr, first.Token, first.Secret, second.Token, second.Secret, olderSecretKey)
}

func TestDoctorNamesLoginAndRemoveForAStoredTokenItCannotDecrypt(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	old := b.storeUnderOlderKey(t, "1001")
	r := run(t, "doctor", "--config", doctorConfig(t, b, t.TempDir()), "--database-url", b.db)
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "service"))
	require.Contains(t, r.stdout, "stored token of user 1001: cannot decrypt: wrong key or altered data (was ADSYNC_SECRET_KEY changed?)")
	require.Contains(t, r.stdout, "-> run adsync auth login to replace it, or adsync auth remove --user-id 1001 to forget it")
	b.requireNoSecrets(t, r.stdout+r.stderr, old.Token, old.Secret, olderSecretKey)
}

func TestAShortSecretKeyIsRefusedSayingHowToMakeOneWithoutEchoingIt(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	const short = "short-key-never-shown"
	conf := doctorConfig(t, b, t.TempDir(), "secret_key: "+testSecretKey, "secret_key: "+short)
	for _, args := range [][]string{{"auth", "login"}, {"auth", "revoke"}, {"api", "GET", "/12/accounts"}} {
		r := run(t, append(args, "--config", conf, "--database-url", b.db)...)
		require.Equal(t, 1, r.code, "%v: %s", args, r.stdout)
		require.Contains(t, r.stderr, "ADSYNC_SECRET_KEY is too short: it needs at least 32 characters; make one with `openssl rand -base64 32`", args)
		require.NotContains(t, r.stdout+r.stderr, short, args)
	}
}
