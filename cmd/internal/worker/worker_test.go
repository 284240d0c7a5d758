package worker

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/adsync/adsync/cmd/internal/webui"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

func TestReadyzAnswersReadyOnlyOnceTheWorkersRunWhileHealthzAndMetricsStayOpen(t *testing.T) {
	t.Parallel()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	o := Options{Pool: pool, Metrics: jobs.NewMetrics(), Access: webui.Access{Loopback: false}}
	var running atomic.Bool
	h := o.routes(webui.New(webui.Options{Pool: pool}), &running)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9090"+path, nil))
		return rec.Code, rec.Body.String()
	}
	code, body := get("/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "workers not running\n", body)
	running.Store(true)
	code, body = get("/readyz")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ready\n", body)
	code, body = get("/healthz")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ok\n", body)
	code, _ = get("/metrics")
	require.Equal(t, http.StatusOK, code, "the scrape is open off loopback without the password")
	code, _ = get("/")
	require.Equal(t, http.StatusForbidden, code, "off loopback without a password the pages are refused")
}

func TestAccessNoteNamesThePasswordRuleNeverThePassword(t *testing.T) {
	t.Parallel()
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9090}
	public := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 9090}
	require.Empty(t, accessNote(loopback, true))
	require.Equal(t, "; basic auth as user admin with ADSYNC_UI_PASSWORD", accessNote(public, true))
	require.Equal(t, "; refused until ADSYNC_UI_PASSWORD is set", accessNote(public, false))
}
