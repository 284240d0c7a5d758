package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimit is one rate-limit window as the service reports it.
type RateLimit struct {
	Limit     int
	Remaining int
	Reset     time.Time
}

// ParseRateLimit reads x-rate-limit-* (prefix "x-rate-limit") or
// x-account-rate-limit-* (prefix "x-account-rate-limit") headers. ok is false
// when the headers are absent; an error means present but malformed.
func ParseRateLimit(h http.Header, prefix string) (rl RateLimit, ok bool, err error) {
	ls, rs, ts := h.Get(prefix+"-limit"), h.Get(prefix+"-remaining"), h.Get(prefix+"-reset")
	if ls == "" && rs == "" && ts == "" {
		return RateLimit{}, false, nil
	}
	parse := func(name, v string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("malformed %s-%s header %q", prefix, name, v)
		}
		return n, nil
	}
	l, err := parse("limit", ls)
	if err != nil {
		return RateLimit{}, false, err
	}
	r, err := parse("remaining", rs)
	if err != nil {
		return RateLimit{}, false, err
	}
	t, err := parse("reset", ts)
	if err != nil {
		return RateLimit{}, false, err
	}
	if l > 1<<31-1 || r > 1<<31-1 || t > 1<<40 {
		return RateLimit{}, false, fmt.Errorf("out-of-range %s headers", prefix)
	}
	return RateLimit{Limit: int(l), Remaining: int(r), Reset: time.Unix(t, 0)}, true, nil
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && n < 1<<31 {
		return now.Add(time.Duration(n) * time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t, true
	}
	return time.Time{}, false
}
