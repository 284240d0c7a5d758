package webui

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
)

// User is the basic-auth user name the pages ask for with a password.
const User = "admin"

// Access guards the runs page and River's UI: open on a loopback address;
// elsewhere refused unless Password is set, and then behind HTTP basic
// auth as User.
type Access struct {
	// Loopback says the server listens on a loopback address only.
	Loopback bool
	// Password is ui_password (ADSYNC_UI_PASSWORD); never logged.
	Password string
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
