package webui

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// hostRule says which Host headers reach the pages. A DNS-rebinding page
// is served under a name of the attacker's that, once loaded, resolves to
// this machine: to the browser it is then same-origin with the pages, so
// neither the cross-site check nor CORS stops it; only its Host, that name,
// gives it away. So a Host passes when it names no domain (an IP address:
// nothing to rebind), is localhost or under .localhost (browsers resolve
// those to loopback themselves, RFC 6761), or is an allowed name.
type hostRule struct {
	// allowed holds "name" (any port) and "name:port" entries.
	allowed map[string]bool
}

// newHostRule returns the rule allowing the names in allowed besides
// addresses and localhost.
func newHostRule(allowed []string) hostRule {
	h := hostRule{allowed: map[string]bool{}}
	for _, a := range allowed {
		name, port := splitHost(a)
		if port != "" {
			name = net.JoinHostPort(name, port)
		}
		h.allowed[name] = true
	}
	return h
}

// refusal says why a request with Host host is refused, or "" when it
// passes.
func (h hostRule) refusal(host string) string {
	name, port := splitHost(host)
	if name == "" {
		return "forbidden: the request names no Host; the worker's pages answer only a Host naming this machine"
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return ""
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return ""
	}
	if h.allowed[name] || (port != "" && h.allowed[net.JoinHostPort(name, port)]) {
		return ""
	}
	return fmt.Sprintf("forbidden: Host %q is not this worker's: its pages answer an IP address, localhost "+
		"or a name in http_allowed_hosts (ADSYNC_HTTP_ALLOWED_HOSTS), so a page of another site cannot reach them "+
		"by pointing its own name here (DNS rebinding)", host)
}

// splitHost splits a Host header into its lowercased name, without
// brackets or a trailing dot, and its port ("" when it has none).
func splitHost(host string) (name, port string) {
	name = host
	if h, p, err := net.SplitHostPort(host); err == nil {
		name, port = h, p
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	return strings.TrimSuffix(strings.ToLower(name), "."), port
}
