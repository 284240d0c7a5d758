package api_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestRefusedConnectionOnFirstCallNamesTheURLAtOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	cfg := f.config()
	cfg.AdsURL = "http://" + fixtures.ClosedAddr(t) + "/ads"
	cfg.BackoffBase, cfg.BackoffMax = 5*time.Second, 10*time.Second
	start := time.Now()
	err := listAccounts(newClient(t, cfg))
	require.Less(t, time.Since(start), 3*time.Second, "no retries before the base ever answered")
	var be *api.BaseError
	require.ErrorAs(t, err, &be)
	require.Equal(t, api.BaseAds, be.Base)
	require.Equal(t, api.Final, api.Explain(err).Verdict, "a base that never answered is a setting to fix, not an outage")
	require.ErrorContains(t, err, "connection refused")
	require.ErrorContains(t, err, cfg.AdsURL+"/12/accounts")
	require.ErrorContains(t, err, "check the ads base URL")
}

func TestBareNotFoundAtAWrongBasePathNamesTheBase(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	cfg := f.config()
	cfg.AdsURL = strings.TrimSuffix(f.adsURL, "/ads") + "/not-the-ads-base"
	err := listAccounts(newClient(t, cfg))
	var be *api.BaseError
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, err, api.ErrNotFound)
	require.Equal(t, api.Final, api.Explain(err).Verdict)
	require.ErrorContains(t, err, "HTTP 404")
	require.ErrorContains(t, err, cfg.AdsURL+"/12/accounts")
	require.ErrorContains(t, err, "check the path of the ads base URL "+cfg.AdsURL)
}

func TestNotFoundInTheServiceEnvelopeIsNotABaseError(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	_, err := newClient(t, f.config()).Do(context.Background(),
		&api.Request{Method: "GET", Base: api.BaseAds, Path: "/12/accounts/no-such-account/campaigns", Auth: api.AuthUser})
	require.ErrorIs(t, err, api.ErrNotFound)
	var be *api.BaseError
	require.False(t, errors.As(err, &be), err.Error())
}

func TestFaultsAfterTheBaseAnsweredAreRetriedAndLogged(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	core, logs := observer.New(zapcore.InfoLevel)
	cfg := f.config()
	cfg.Logger = zap.New(core)
	c := newClient(t, cfg)
	require.NoError(t, listAccounts(c))
	f.srv.AddFault(fixtures.FaultRule{Path: "/ads/12/accounts", Kind: fixtures.FaultReset, Times: 2})
	resp, err := c.Do(context.Background(), &api.Request{Method: "GET", Base: api.BaseAds, Path: "/12/accounts", Auth: api.AuthUser})
	require.NoError(t, err)
	require.Equal(t, 3, resp.Attempts)
	require.Equal(t, 2, logs.FilterMessage("api request failed; retrying").Len())
}

// A worker's user clients are made again from its base client (every 30 s,
// see access.Set): what a base answered is the base's, so a client made
// after it answered takes a refused connection for an outage to retry, not
// for a wrong setting that fails the work for good.
func TestAUserClientMadeAfterTheBaseAnsweredRetriesARefusedConnection(t *testing.T) {
	t.Parallel()
	srv := fixtures.New(fixtures.DefaultOptions())
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	o := srv.Options()
	cfg := api.Config{Credentials: api.Credentials{ConsumerKey: o.ConsumerKey, ConsumerSecret: o.ConsumerSecret},
		UserToken: &api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret}, MaxAttempts: 2,
		Timeout: 5 * time.Second, BackoffBase: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond}
	cfg.APIURL, cfg.AdsURL, cfg.SandboxAdsURL = srv.URLs(hs.URL)
	base := newClient(t, cfg)
	require.NoError(t, listAccounts(base))
	hs.Close() // the service goes away: nothing listens at the base any more

	err := listAccounts(base.WithUserToken(&api.Token{Token: o.OwnerToken, Secret: o.OwnerSecret}))
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	var be *api.BaseError
	require.False(t, errors.As(err, &be), err.Error())
	require.Equal(t, api.Retry, api.Explain(err).Verdict)
}
