package webui

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// User is the basic-auth user name the pages ask for with a password.
const User = "admin"

// Access is the worker's access layer, in front of every page its HTTP
// server serves (the runs page, River's UI) but the probes and the
// scrape. In order, it refuses a request whose Host names neither this
// machine nor an allowed name (DNS rebinding, see hosts.go), a browser's
// write from another site (cross-site request forgery, see crosssite.go),
// and, off loopback, a request without the password: there the pages are
// refused unless Password is set, and then behind HTTP basic auth as User.
// Every response it gives, refusals included, forbids framing and sniffing.
type Access struct {
	// Loopback says the server listens on a loopback address only.
	Loopback bool
	// Password is ui_password (ADSYNC_UI_PASSWORD); never logged.
	Password string
	// MCPToken is mcp_token (ADSYNC_MCP_TOKEN): off loopback, /mcp takes
	// requests bearing it and none without; never logged.
	MCPToken string
	// AllowedHosts are the names besides localhost and IP addresses that a
	// request's Host may give (http_allowed_hosts): "NAME" for any port,
	// "NAME:PORT" for that one.
	AllowedHosts []string
}

// IsLoopback says whether addr, a listener's address, is a loopback one.
func IsLoopback(addr net.Addr) bool {
	host := addr.String()
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Wrap returns next behind the access rules.
func (a Access) Wrap(next http.Handler) http.Handler {
	return a.guard(a.authenticate(next))
}

// WrapMCP returns next, the MCP server, behind the same Host, cross-site
// and framing rules as the pages, a refusal of any request a page of
// another origin sends (the protocol asks servers to check Origin on
// every request), and the token rule: open on loopback; elsewhere refused
// unless MCPToken is set, and then only with Authorization: Bearer
// MCPToken.
func (a Access) WrapMCP(next http.Handler) http.Handler {
	authed := a.bearer(next)
	return a.guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" {
			if u, err := url.Parse(o); err != nil || u.Host != r.Host {
				http.Error(w, fmt.Sprintf("forbidden: a request from the page of another origin (Origin %q, Host %q)", o, r.Host),
					http.StatusForbidden)
				return
			}
		}
		authed.ServeHTTP(w, r)
	}))
}

// guard returns next behind the Host and cross-site rules, every response
// marked unframeable.
func (a Access) guard(next http.Handler) http.Handler {
	hosts := newHostRule(a.AllowedHosts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w.Header())
		if why := hosts.refusal(r.Host); why != "" {
			http.Error(w, why, http.StatusForbidden)
			return
		}
		if why := crossSiteWrite(r); why != "" {
			http.Error(w, why, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// setPageHeaders marks a response as one no other page may frame (the
// old header and the CSP one: clickjacking of River's UI's buttons), whose
// type a browser must not guess, and whose links send no Referer off site.
// The policy is added, not set: a page's own policy adds to it.
func setPageHeaders(h http.Header) {
	h.Set("X-Frame-Options", "DENY")
	h.Add("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
}

// authenticate returns next behind the password rule: open on loopback;
// elsewhere refused without a password, else behind basic auth.
func (a Access) authenticate(next http.Handler) http.Handler {
	if a.Loopback {
		return next
	}
	if a.Password == "" {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "forbidden: this worker listens beyond loopback; set ADSYNC_UI_PASSWORD (ui_password) "+
				"to open the runs page and River's UI with basic auth as user "+User+" (/healthz, /readyz and /metrics stay open)",
				http.StatusForbidden)
		})
	}
	want := sha256.Sum256([]byte(a.Password))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		// Hashing first keeps the comparison's time independent of the
		// password's length too.
		got := sha256.Sum256([]byte(pass))
		userOK := subtle.ConstantTimeCompare([]byte(user), []byte(User))
		passOK := subtle.ConstantTimeCompare(got[:], want[:])
		if !ok || userOK&passOK != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="adsync", charset="UTF-8"`)
			http.Error(w, fmt.Sprintf("unauthorized: log in as user %s with ADSYNC_UI_PASSWORD", User), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer returns next behind the token rule: open on loopback; elsewhere
// refused without a token, else only with Authorization: Bearer MCPToken.
func (a Access) bearer(next http.Handler) http.Handler {
	if a.Loopback {
		return next
	}
	if a.MCPToken == "" {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "forbidden: this worker listens beyond loopback; set ADSYNC_MCP_TOKEN (mcp_token) to open /mcp "+
				"to clients sending Authorization: Bearer <token>", http.StatusForbidden)
		})
	}
	want := sha256.Sum256([]byte(a.MCPToken))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		// Hashing first keeps the comparison's time independent of the
		// token's length too.
		got := sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="adsync"`)
			http.Error(w, "unauthorized: send Authorization: Bearer with ADSYNC_MCP_TOKEN", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
