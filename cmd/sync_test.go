package adsynccmd

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestSyncWaitPrintsASummaryAndSucceeds(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "sync", "--wait", "--entities", "campaigns,cards")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^\s*entity\s+fetched\s+inserted\s+updated\s+unchanged\s+deleted\s+failed units\s*$`, r.stdout)
	require.Regexp(t, `(?m)^\s*campaigns\s+\d+\s+\d+\s+0\s+0\s+\d+\s+0\s*$`, r.stdout)
	require.Regexp(t, `(?m)^sync run \d+ succeeded$`, r.stdout)
	var n int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*) FROM campaigns`).Scan(&n))
	require.Positive(t, n)

	// The same again changes nothing.
	r = b.run(t, "sync", "--wait", "--entities", "campaigns")
	require.Equal(t, 0, r.code, r.stderr)
	m := regexp.MustCompile(`(?m)^\s*campaigns\s+(\d+)\s+0\s+0\s+(\d+)\s+0\s+0\s*$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	require.Equal(t, m[1], m[2], "every fetched campaign is unchanged")
}

func TestSyncRefusesUnknownAccountsWithOneLineEach(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	var known string
	for page, err := range api.Pages[struct {
		ID string `json:"id"`
	}](context.Background(), b.userClient(t), api.ListRequest{Base: api.BaseAds, Path: "/12/accounts", Endpoint: "GET /12/accounts"}) {
		require.NoError(t, err)
		known = page.Items[0].ID
		break
	}
	r := b.run(t, "sync", "--wait", "--accounts", "18ce54d4x,"+known+",nosuchaccount,18ce54d4x", "--entities", "campaigns")
	require.Equal(t, 2, r.code, r.stdout+r.stderr)
	require.Equal(t, "adsync: --accounts: 2 of 3 accounts are not in the account list of these credentials (adsync api GET /12/accounts lists it):\n"+
		"account 18ce54d4x: not found, or these credentials cannot reach it\n"+
		"account nosuchaccount: not found, or these credentials cannot reach it\n", r.stderr)
	require.Empty(t, r.stdout)
	var runs int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*) FROM sync_runs`).Scan(&runs))
	require.Zero(t, runs, "nothing was queued")
	b.requireNoSecrets(t, r.stdout+r.stderr)
}

func TestSyncGoesAheadWhenTheAccountListCannotBeReadAndSaysOnceOfAnUnreachableAccount(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	// The check's request fails on every attempt; the run's own accounts
	// listing then passes.
	b.srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts", Kind: fixtures.FaultReset, Times: 5})
	r := b.run(t, "sync", "--wait", "--accounts", "nosuchaccount")
	require.Equal(t, 1, r.code, r.stdout)
	require.Regexp(t, `(?m)^\s*campaigns\s+0\s+0\s+0\s+0\s+0\s+1\s*$`, r.stdout)
	// Each retry of the check's request is logged; the rest is the summary.
	retries := regexp.MustCompile(`(?m)^\{"level":"warn".*"msg":"api request failed; retrying".*\n`)
	require.Len(t, retries.FindAllString(r.stderr, -1), 4)
	stderr := retries.ReplaceAllString(r.stderr, "")
	require.Regexp(t, `^adsync: could not check --accounts against the account list \(.*\); going ahead\n`+
		`adsync: sync run \d+ partial: \d+ units failed:\n`+
		`account nosuchaccount: not found, or these credentials cannot reach it \(\d+ units failed\)\n$`, stderr)
	require.Less(t, len(stderr), 400, "one line per account, not one per entity")
	b.requireNoSecrets(t, r.stdout+r.stderr)
}

func TestSyncWithoutWaitQueuesTheRunAndPrintsItsID(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "sync", "--full")
	require.Equal(t, 0, r.code, r.stderr)
	m := regexp.MustCompile(`^sync run (\d+) queued\n$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	id, _ := strconv.ParseInt(m[1], 10, 64)
	var outcome, params string
	var jobs int
	pool := b.pool(t)
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT outcome, params::text FROM sync_runs WHERE id = $1`, id).Scan(&outcome, &params))
	require.Equal(t, "running", outcome)
	require.JSONEq(t, `{"full": true}`, params)
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'sync_run' AND state = 'available'`).Scan(&jobs))
	require.Equal(t, 1, jobs)
}

func TestSyncRejectsUnknownEntitiesListingTheValidOnes(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "sync", "--entities", "campaigns,widgets")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `unknown entity "widgets"`)
	require.Contains(t, r.stderr, "tailored_audience_permissions")
}

func TestSyncWaitSucceedsSayingWhichAccountsAreNoLongerAccessible(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := b.run(t, "sync", "--wait", "--entities", "campaigns")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout, "no longer accessible")
	var lost string
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT id FROM accounts WHERE NOT deleted ORDER BY id LIMIT 1`).Scan(&lost))
	require.NoError(t, b.srv.SetAccountAccess(fixtures.AccountAccess{AccountID: lost, Revoked: true}))

	r = b.run(t, "sync", "--wait", "--entities", "campaigns")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "accounts no longer accessible to the user (not synced, records kept): "+lost+"\n")
	require.Regexp(t, `(?m)^sync run \d+ succeeded$`, r.stdout)
}
