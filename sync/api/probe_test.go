package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestProbeServiceCountsTheAccountsPageChecksTheBearerTokenAndReadsTheClockSkew(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.Accounts = 3 })
	f.srv.SetClockOffset(2 * time.Minute) // within the window: signed calls pass
	p, err := api.ProbeService(context.Background(), f.config(), 10*time.Second)
	require.NoError(t, err)
	require.True(t, p.Signed)
	require.NoError(t, p.AccountsErr)
	require.Equal(t, 3, p.Accounts)
	require.False(t, p.More)
	require.NoError(t, p.BearerErr)
	require.Equal(t, 1, f.srv.Stats().Family("GET /12/accounts").Requests, "one page read")
	require.Equal(t, 3, p.Dates, "the accounts page, the bearer token request and GET /2/posts")
	require.InDelta(t, (2 * time.Minute).Seconds(), p.Skew.Seconds(), 1.5)
}

func TestProbeServiceWithoutAUserTokenMakesOnlyTheBearerCallAndTriesEachCallOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.AddFault(fixtures.FaultRule{Path: "/2/posts", Method: "GET", Kind: fixtures.Fault500})
	cfg := f.config()
	cfg.UserToken = nil
	p, err := api.ProbeService(context.Background(), cfg, 10*time.Second)
	require.NoError(t, err)
	require.False(t, p.Signed)
	require.Error(t, p.BearerErr)
	require.Equal(t, 1, f.srv.Stats().Family("GET /2/posts").Requests, "doctor reports a fault, it does not retry it")
	require.Zero(t, f.srv.Stats().Family("GET /12/accounts").Requests)
}
