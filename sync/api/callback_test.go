package api_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

// redirect acts as the browser the service redirects to the listener.
func redirect(t *testing.T, l *api.CallbackListener, query string) (int, string) {
	t.Helper()
	resp, err := http.Get(l.URL + "?" + query)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode == http.StatusOK {
		require.Equal(t, "no-store", resp.Header.Get("Cache-Control"), "the page of a redirect is not cached")
	}
	return resp.StatusCode, string(body)
}

func setupListener(t *testing.T) *api.CallbackListener {
	t.Helper()
	l, err := api.ListenForCallback(0)
	require.NoError(t, err)
	t.Cleanup(l.Close)
	require.Regexp(t, `^http://127\.0\.0\.1:\d+/callback$`, l.URL)
	return l
}

func TestCallbackListenerSkipsAStaleRedirectAndReturnsTheVerifierOfItsRequestToken(t *testing.T) {
	t.Parallel()
	l := setupListener(t)
	status, page := redirect(t, l, "oauth_token=earlier-attempt&oauth_verifier=stale")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, page, "adsync is authorized")
	status, _ = redirect(t, l, "oauth_token=ours&oauth_verifier=v1")
	require.Equal(t, http.StatusOK, status)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	verifier, err := l.Wait(ctx, "ours")
	require.NoError(t, err)
	require.Equal(t, "v1", verifier)
}

func TestCallbackListenerReportsADenialOfItsRequestTokenOnly(t *testing.T) {
	t.Parallel()
	l := setupListener(t)
	_, page := redirect(t, l, "denied=another-attempt")
	require.Contains(t, page, "Authorization was denied")
	redirect(t, l, "denied=ours")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := l.Wait(ctx, "ours")
	require.EqualError(t, err, "the user denied the authorization")
}

func TestCallbackListenerRefusesARedirectWithoutAVerifierAndTimesOutSayingWhichFlag(t *testing.T) {
	t.Parallel()
	l := setupListener(t)
	status, _ := redirect(t, l, "oauth_token=ours")
	require.Equal(t, http.StatusBadRequest, status)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := l.Wait(ctx, "ours")
	require.EqualError(t, err, "timed out waiting for the browser's redirect (see --timeout)")
}
