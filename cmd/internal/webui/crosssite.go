package webui

import (
	"fmt"
	"net/http"
	"net/url"
)

// crossOrigin is the standard library's check of a browser's cross-origin
// writes: a write (any method but GET, HEAD and OPTIONS) passes when
// Sec-Fetch-Site says same-origin or none (typed by the user), else, with
// no Sec-Fetch-Site, when Origin's host is the request's Host, or when it
// has neither header (a script, not a browser). It compares hosts, not
// schemes: a page behind an HTTPS proxy writes as it should.
var crossOrigin = http.NewCrossOriginProtection()

// crossSiteWrite says why r is refused as a write another site's page
// made a browser send (with the password it has cached, off loopback), or
// "" when it passes. Beside crossOrigin's check, a write with neither
// Sec-Fetch-Site nor Origin (a browser older than both) is refused when
// its Referer names another host.
func crossSiteWrite(r *http.Request) string {
	if err := crossOrigin.Check(r); err != nil {
		return refuseCrossSite(r)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return ""
	}
	if r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Origin") != "" {
		return ""
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		if u, err := url.Parse(ref); err != nil || u.Host != r.Host {
			return refuseCrossSite(r)
		}
	}
	return ""
}

// refuseCrossSite is the refusal of r as a cross-site write, naming the
// header that gave it away.
func refuseCrossSite(r *http.Request) string {
	from := fmt.Sprintf("Referer %q", r.Header.Get("Referer"))
	switch site := r.Header.Get("Sec-Fetch-Site"); {
	case site != "":
		from = fmt.Sprintf("Sec-Fetch-Site %q", site)
	case r.Header.Get("Origin") != "":
		from = fmt.Sprintf("Origin %q", r.Header.Get("Origin"))
	}
	return fmt.Sprintf("forbidden: a cross-site %s (%s, Host %q): the worker's pages take writes only from themselves",
		r.Method, from, r.Host)
}
