package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAllowedHostsAreNamesWithAnOptionalPortLowercased(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"":                          nil,
		"adsync.example.com":        {"adsync.example.com"},
		" Adsync.Example.COM. , ":   {"adsync.example.com"},
		"a.test,b.test:8443,worker": {"a.test", "b.test:8443", "worker"},
		"build_01.internal:80":      {"build_01.internal:80"},
		"10.0.0.5,[::1]:9090":       {"10.0.0.5", "[::1]:9090"},
	} {
		got, err := Config{HTTPAllowedHosts: in}.AllowedHosts()
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestAllowedHostsRefuseAURLAPathOrABadPortNamingTheEntry(t *testing.T) {
	t.Parallel()
	for in, msg := range map[string]string{
		"https://adsync.example.com": `"https://adsync.example.com": not a host name`,
		"adsync.example.com/riverui": `"adsync.example.com/riverui": not a host name`,
		"*.example.com":              `"*.example.com": not a host name`,
		"a.test,-bad.test":           `"-bad.test": not a host name`,
		"adsync.test:0":              `"adsync.test:0": port "0" is not a number from 1 to 65535`,
		"adsync.test:http":           `"adsync.test:http": port "http" is not a number`,
	} {
		_, err := Config{HTTPAllowedHosts: in}.AllowedHosts()
		require.ErrorContains(t, err, "http_allowed_hosts: "+msg, in)
	}
	_, err := Load(Source{Getenv: func(k string) string {
		return map[string]string{"ADSYNC_HTTP_ALLOWED_HOSTS": "https://adsync.example.com"}[k]
	}})
	require.ErrorContains(t, err, `http_allowed_hosts: "https://adsync.example.com": not a host name`)
	require.ErrorContains(t, err, "(env ADSYNC_HTTP_ALLOWED_HOSTS)", "the error says where the value came from")
}
