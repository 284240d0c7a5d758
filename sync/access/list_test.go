package access_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
)

func TestListNamesTheFirst20AccountsOfAUserAndWhyItIsNotUsableOnOneLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	var out strings.Builder
	require.NoError(t, access.List(ctx, pool, &out))
	require.Equal(t, "no users yet: add tokens with adsync auth add (TOKEN SECRET [SCREEN_NAME] lines on standard input) or sign in with adsync auth login\n", out.String())

	var accounts []string
	for i := range 25 {
		accounts = append(accounts, fmt.Sprintf("acc%02d", i))
	}
	_, err := access.NoteUser(ctx, pool, "u1", "one", "fp1")
	require.NoError(t, err)
	require.NoError(t, access.RecordListed(ctx, pool, 0, "u1", accounts))
	require.NoError(t, access.SetPermissions(ctx, pool, "acc00", "u1", []string{"AD_MANAGER", "POST_COMPOSER"}))
	require.NoError(t, access.SetState(ctx, pool, "u1", "revoked", "HTTP 401:\ncode 89"))
	_, err = access.NoteUser(ctx, pool, "u2", "", "fp2")
	require.NoError(t, err)

	out.Reset()
	require.NoError(t, access.List(ctx, pool, &out))
	require.Equal(t, strings.Join([]string{
		"USER ID  SCREEN NAME  STATE    ACCOUNTS  LAST USED",
		"u1       @one         revoked  25        never",
		"  accounts: acc00:AD_MANAGER " + strings.Join(suffixed(accounts[1:20], ":?"), " ") + " ... and 5 more",
		"  revoked: HTTP 401: code 89",
		"u2       -            ok       0         never",
		"  accounts: none recorded",
		""}, "\n"), out.String())
}

func suffixed(ss []string, suffix string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s + suffix
	}
	return out
}
