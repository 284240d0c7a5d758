package config

import (
	"net"
	"regexp"
	"strconv"
	"strings"
)

// hostName is a DNS name: dot-separated labels of letters, digits, hyphens
// (not at a label's ends) and underscores, which some internal names use.
var hostName = regexp.MustCompile(`^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$`)

// AllowedHosts returns http_allowed_hosts as a list, each entry lowercased
// with no trailing dot: "NAME" or "NAME:PORT". An entry that is not a host
// name, such as a URL, is an error naming it.
func (c Config) AllowedHosts() ([]string, error) {
	var out []string
	for _, entry := range strings.Split(c.HTTPAllowedHosts, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		host, port := strings.ToLower(entry), ""
		if h, p, err := net.SplitHostPort(host); err == nil {
			host, port = h, p
		}
		host = strings.TrimSuffix(host, ".")
		if strings.Contains(entry, "/") || !hostName.MatchString(host) && net.ParseIP(host) == nil {
			return nil, keyErrorf("http_allowed_hosts", "%q: not a host name; write NAME or NAME:PORT, comma-separated (no scheme, path or wildcard)", entry)
		}
		if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 1 || n > 65535) {
			return nil, keyErrorf("http_allowed_hosts", "%q: port %q is not a number from 1 to 65535", entry, port)
		}
		if port != "" {
			host = net.JoinHostPort(host, port)
		}
		out = append(out, host)
	}
	return out, nil
}
