package adsynccmd

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// firstAudience returns an account of the fake and one of its audiences.
func (b *serviceBundle) firstAudience(t *testing.T) (string, string) {
	t.Helper()
	truth := b.srv.AdsTruth()
	var accounts []string
	for id, kinds := range truth.Accounts {
		if len(kinds["custom_audiences"].IDs) > 0 {
			accounts = append(accounts, id)
		}
	}
	require.NotEmpty(t, accounts)
	slices.Sort(accounts)
	return accounts[0], truth.Accounts[accounts[0]]["custom_audiences"].IDs[0]
}

func TestAudienceUploadWaitsReportsAndSkipsTheSameFileAgain(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	in := writeFile(t, "users.csv", audienceCSV)

	r := b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait", "--default-country", "US")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "invalid: line 3: ")
	require.Contains(t, r.stdout, "invalid: line 4: ")
	require.Contains(t, r.stdout, "rows read: 4\nrows invalid: 2\nbatches: 1 (1 done, 0 failed)\nretries: 0\nusers sent: 2\nusers accepted: 2\n")
	require.ElementsMatch(t, []string{sha256Hex("ok@example.org"), sha256Hex("test@example.com")}, b.srv.AudienceMembers(aud, "email"))
	require.Equal(t, []string{sha256Hex("14155550100")}, b.srv.AudienceMembers(aud, "phone_number"))
	require.Equal(t, []string{"crm-1"}, b.srv.AudienceMembers(aud, "partner_user_id"), "crm-2's row was invalid")
	b.requireNoSecrets(t, r.stdout+r.stderr)

	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "skipped: ")
	require.Contains(t, r.stdout, "--force")
}

func TestAudienceUploadRerunWithWaitSendsWhatWasQueued(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	in := writeFile(t, "users.csv", "email\na@example.com\nb@example.com\n")
	r := b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "queued: ")
	require.Empty(t, b.srv.AudienceMembers(aud, "email"), "nothing sent without a worker")

	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "resuming upload ")
	require.Contains(t, r.stdout, "users accepted: 2\n")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 2)
}

func TestAudienceUploadCreateReportsTheExistingAudienceOnADuplicateName(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, _ := b.firstAudience(t)
	in := writeFile(t, "users.csv", "email\na@example.com\n")
	r := b.run(t, "audience", "upload", "--account", acct, "--create", "newsletter", "--in", in)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "created custom audience ")
	require.Contains(t, r.stdout, "queued: ")

	r = b.run(t, "audience", "upload", "--account", acct, "--create", "newsletter", "--in", in)
	require.Equal(t, 1, r.code)
	require.Regexp(t, `a custom audience named "newsletter" already exists: \S+ \(upload to it with --audience \S+\)`, r.stderr)
}

func TestAudienceUploadExitsNonZeroWhenABatchFails(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	truth := b.srv.AdsTruth()
	var accounts []string
	for id, kinds := range truth.Accounts {
		if len(kinds["custom_audiences"].IDs) > 0 {
			accounts = append(accounts, id)
		}
	}
	require.GreaterOrEqual(t, len(accounts), 2)
	slices.Sort(accounts)
	// Another account's audience: the service refuses the users for good.
	other := truth.Accounts[accounts[1]]["custom_audiences"].IDs[0]
	in := writeFile(t, "users.csv", "email\na@example.com\n")
	r := b.run(t, "audience", "upload", "--account", accounts[0], "--audience", other, "--in", in, "--wait")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stdout, "batches: 1 (0 done, 1 failed)")
	require.Contains(t, r.stderr, "1 of 1 batches failed")
	require.Empty(t, b.srv.AudienceMembers(other, "email"))
}

func TestAudienceUploadRefusesBadFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--audience", "x", "--in", "f"}, "--account is required"},
		{[]string{"--account", "a", "--in", "f"}, "exactly one of --audience and --create"},
		{[]string{"--account", "a", "--audience", "x", "--create", "n", "--in", "f"}, "exactly one of --audience and --create"},
		{[]string{"--account", "a", "--audience", "x"}, "--in FILE is required"},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--op", "add"}, `--op "add"`},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--mode", "replace", "--op", "delete"}, "--mode replace"},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--expires-at", "soon"}, `--expires-at "soon"`},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--effective-at", "2026-02-01", "--expires-at", "2026-01-01"}, "later than"},
	} {
		r := run(t, append([]string{"audience", "upload"}, tt.args...)...)
		require.Equal(t, 2, r.code, "%v: %s", tt.args, r.stderr)
		require.Contains(t, r.stderr, tt.want)
	}
}
