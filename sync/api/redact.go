package api

import (
	"net/url"
	"strings"
)

// sensitiveKey reports whether a parameter name may carry a secret.
func sensitiveKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"token", "secret", "verifier", "password", "key"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// redactQuery renders query parameters for logs with secrets replaced.
func redactQuery(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	r := url.Values{}
	for k, vs := range q {
		for _, v := range vs {
			if sensitiveKey(k) {
				v = "[redacted]"
			}
			r.Add(k, v)
		}
	}
	return r.Encode()
}

// redactBody renders a response body for debug logs: bodies of credential
// endpoints are never logged, others are truncated.
func redactBody(endpoint string, body []byte) string {
	if strings.Contains(endpoint, "/oauth") {
		return "[redacted credential response]"
	}
	const max = 2048
	if len(body) > max {
		return string(body[:max]) + "...(truncated)"
	}
	return string(body)
}
