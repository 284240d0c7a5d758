package webui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// page is the handler behind the access layer in these tests: it adds a
// policy of its own, as the runs page does.
var page = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Add("Content-Security-Policy", "default-src 'none'")
	fmt.Fprint(w, "page")
})

// serve sends one request through a's layer in front of page.
func serve(a Access, method, host string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/riverui/api/jobs/cancel", strings.NewReader(`{"ids":["1"]}`))
	req.Host = host
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	a.Wrap(page).ServeHTTP(rec, req)
	return rec
}

func TestAccessAnswersOnlyAHostNamingThisMachineOrAnAllowedName(t *testing.T) {
	t.Parallel()
	a := Access{Loopback: true, AllowedHosts: []string{"adsync.test", "Proxy.Test:8443"}}
	for host, want := range map[string]int{
		"127.0.0.1:9090": 200, "127.0.0.1": 200, "[::1]:9090": 200, "[::1]": 200,
		"10.1.2.3:9090": 200, "[fe80::1%25eth0]:9090": 200, // an address names no domain to rebind
		"localhost:9090": 200, "LOCALHOST": 200, "localhost.:9090": 200, "app.localhost:9090": 200,
		"adsync.test": 200, "adsync.test:1234": 200, "ADSYNC.TEST.:80": 200, "proxy.test:8443": 200,
		"proxy.test:9090": 403, "proxy.test": 403, "sub.adsync.test": 403,
		"evil.example:9090": 403, "evil.example": 403, "127.0.0.1.nip.io:9090": 403,
		"localhost.evil.example": 403, "2130706433:9090": 403, "": 403,
	} {
		rec := serve(a, http.MethodGet, host, nil)
		require.Equal(t, want, rec.Code, "Host %q: %s", host, rec.Body)
		if want == 403 {
			require.Contains(t, rec.Body.String(), "Host")
			require.NotEqual(t, "page", rec.Body.String())
		}
	}
}

func TestAccessRefusesABrowsersWriteFromAnotherSiteAndPassesItsOwnAndScripts(t *testing.T) {
	t.Parallel()
	a := Access{Loopback: true}
	const own = "http://127.0.0.1:9090"
	for _, tc := range []struct {
		name, method string
		header       map[string]string
		want         int
	}{
		{"a read from another site changes nothing", "GET", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, 200},
		{"HEAD from another site", "HEAD", map[string]string{"Sec-Fetch-Site": "cross-site"}, 200},
		{"OPTIONS from another site", "OPTIONS", map[string]string{"Origin": "http://evil.example"}, 200},
		{"a script says nothing of a site", "POST", nil, 200},
		{"its own page", "POST", map[string]string{"Origin": own, "Sec-Fetch-Site": "same-origin"}, 200},
		{"its own page, Origin only", "POST", map[string]string{"Origin": own}, 200},
		{"its own page behind an https proxy", "POST", map[string]string{"Origin": "https://127.0.0.1:9090"}, 200},
		{"typed by the user", "POST", map[string]string{"Sec-Fetch-Site": "none"}, 200},
		{"same-origin wins over a proxy's Host", "POST", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "https://adsync.test"}, 200},
		{"its own page's Referer", "POST", map[string]string{"Referer": own + "/riverui/jobs/1"}, 200},
		{"Origin of another site", "POST", map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403},
		{"Origin of another port", "POST", map[string]string{"Origin": "http://127.0.0.1:9091"}, 403},
		{"opaque Origin", "POST", map[string]string{"Origin": "null"}, 403},
		{"cross-site", "POST", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site is another origin", "POST", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"cross-site PUT", "PUT", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"cross-site PATCH", "PATCH", map[string]string{"Origin": "http://evil.example"}, 403},
		{"cross-site DELETE", "DELETE", map[string]string{"Origin": "http://evil.example"}, 403},
		{"an old browser's Referer of another site", "POST", map[string]string{"Referer": "http://evil.example/form.html"}, 403},
		{"an unreadable Referer", "POST", map[string]string{"Referer": "http://[evil"}, 403},
		{"Origin is read before Referer", "POST", map[string]string{"Origin": own, "Referer": "http://evil.example/"}, 200},
	} {
		rec := serve(a, tc.method, "127.0.0.1:9090", tc.header)
		require.Equal(t, tc.want, rec.Code, "%s: %s", tc.name, rec.Body)
		if tc.want == 403 {
			require.Contains(t, rec.Body.String(), "forbidden: a cross-site "+tc.method, tc.name)
		}
	}
}

// The password is asked only of a request the other rules let through,
// and a foreign Host is refused before anything is said of the request.
func TestAccessChecksTheHostThenTheSiteThenThePassword(t *testing.T) {
	t.Parallel()
	a := Access{Password: "s3cret-pw"}
	cross := map[string]string{"Sec-Fetch-Site": "cross-site"}
	rec := serve(a, http.MethodPost, "evil.example:9090", cross)
	require.Equal(t, 403, rec.Code)
	require.Contains(t, rec.Body.String(), `Host "evil.example:9090"`)
	rec = serve(a, http.MethodPost, "10.0.0.5:9090", cross)
	require.Equal(t, 403, rec.Code)
	require.Contains(t, rec.Body.String(), "cross-site")
	require.Empty(t, rec.Header().Get("WWW-Authenticate"), "no login prompt for a refused write")
	rec = serve(a, http.MethodPost, "10.0.0.5:9090", nil)
	require.Equal(t, 401, rec.Code)
}

func TestAccessForbidsFramingAndSniffingOnEveryResponseRefusalsIncluded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		a      Access
		method string
		host   string
		header map[string]string
		want   int
	}{
		{"the page", Access{Loopback: true}, "GET", "127.0.0.1:9090", nil, 200},
		{"a foreign Host", Access{Loopback: true}, "GET", "evil.example", nil, 403},
		{"a cross-site write", Access{Loopback: true}, "POST", "127.0.0.1:9090", map[string]string{"Origin": "http://evil.example"}, 403},
		{"no password off loopback", Access{}, "GET", "10.0.0.5:9090", nil, 403},
		{"a wrong password", Access{Password: "pw"}, "GET", "10.0.0.5:9090", nil, 401},
	} {
		rec := serve(tc.a, tc.method, tc.host, tc.header)
		require.Equal(t, tc.want, rec.Code, tc.name)
		h := rec.Header()
		require.Equal(t, "DENY", h.Get("X-Frame-Options"), tc.name)
		require.Contains(t, h.Values("Content-Security-Policy"), "frame-ancestors 'none'", tc.name)
		require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), tc.name)
		require.Equal(t, "same-origin", h.Get("Referrer-Policy"), tc.name)
		if tc.want == 200 {
			require.Equal(t, []string{"frame-ancestors 'none'", "default-src 'none'"}, h.Values("Content-Security-Policy"),
				"the page's own policy adds to the layer's")
		}
	}
}
