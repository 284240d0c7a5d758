package main

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runEnv runs adsync args to the end with extra environment variables.
func (e *env) runEnv(t *testing.T, vars []string, args ...string) (int, string) {
	t.Helper()
	return e.runIn(t, append(os.Environ(), vars...), args...)
}

func TestClosedPortAsAdsURLFailsAtOnceNamingURLAndSetting(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, "")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + l.Addr().String() + "/ads"
	require.NoError(t, l.Close())
	code, out := e.runEnv(t, []string{"ADSYNC_ADS_URL=" + dead}, "sync", "--entities", "campaigns", "--wait")
	require.Equal(t, 1, code, out)
	// No silent retries: no request retried, no unit's job run again.
	require.NotContains(t, out, "retrying", out)
	var attempts int
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT coalesce(max(attempt), 0) FROM river_job WHERE errors IS NOT NULL`).
		Scan(&attempts))
	require.LessOrEqual(t, attempts, 1, "a job that failed ran once")
	require.Contains(t, out, "connection refused")
	require.Contains(t, out, dead+"/12/accounts")
	require.Contains(t, out, "connection refused at "+dead+"/12/accounts: check the ads base URL (api.ads_url, from env ADSYNC_ADS_URL)")
}

func TestWrongAdsBasePathIsNamedWithItsSetting(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, "")
	conf, err := os.ReadFile(e.conf)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(e.conf, []byte(strings.Replace(string(conf), "/ads\n", "/not-the-ads-base\n", 1)), 0o600))
	code, out := e.run(t, "api", "GET", "/12/accounts")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "HTTP 404")
	require.Contains(t, out, "/not-the-ads-base/12/accounts")
	require.Contains(t, out, "check the path of the ads base URL")
	require.Contains(t, out, "(api.ads_url, from file "+e.conf+":5; env ADSYNC_ADS_URL)")
}
