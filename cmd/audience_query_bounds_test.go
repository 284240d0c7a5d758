package adsynccmd

import (
	"context"
	"testing"

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
