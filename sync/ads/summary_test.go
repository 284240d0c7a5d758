package ads

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/stretchr/testify/require"
)

func TestAFailedSyncRunSaysOnceOfEachUnreachableAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := store.Connect(ctx, localpg.NewDatabase(t), store.ConnectOptions{MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	_, err = migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	id, err := store.CreateRun(ctx, pool, "sync", "manual", nil)
	require.NoError(t, err)
	var units strings.Builder
	for _, e := range Names() {
		fmt.Fprintf(&units, "(%d, 'nosuchaccount', '%s', 'failed', '%s account nosuchaccount: GET /12/accounts/{account_id}/%s: HTTP 404: NOT_FOUND: Account nosuchaccount not found'),", id, e, e, e)
	}
	_, err = pool.Exec(ctx, `INSERT INTO sync_run_units (run_id, account_id, entity, state, error) VALUES `+units.String()+
		fmt.Sprintf(`(%d, '', 'content_categories', 'failed', 'content_categories: GET /12/content_categories: HTTP 500: access_token=leaked'),
		(%d, '', 'iab_categories', 'succeeded', NULL)`, id, id))
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE sync_runs SET outcome = 'partial' WHERE id = $1`, id)
	require.NoError(t, err)
	run, err := store.GetRun(ctx, pool, id)
	require.NoError(t, err)

	err = RunFailure(ctx, pool, run)
	require.Error(t, err)
	msg := err.Error()
	require.Equal(t, fmt.Sprintf("sync run %d partial: %d units failed:\n", id, len(Names())+1)+
		fmt.Sprintf("account nosuchaccount: not found, or these credentials cannot reach it (%d units failed)\n", len(Names()))+
		"content_categories: GET /12/content_categories: HTTP 500: access_token=[redacted]", msg)
}
