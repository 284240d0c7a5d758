package api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "abc", "a b+c", "☃", "%", "\x00\xff", "Ladies + Gentlemen"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		for i := 0; i < len(e); i++ {
			c := e[i]
			if !unreserved(c) && c != '%' {
				t.Fatalf("Escape(%q) = %q holds %q", s, e, c)
			}
			if c == '%' && (i+2 >= len(e) || strings.ToUpper(e[i+1:i+3]) != e[i+1:i+3]) {
				t.Fatalf("Escape(%q) = %q: lowercase or short escape", s, e)
			}
		}
		back, err := url.PathUnescape(e)
		if err != nil || back != s {
			t.Fatalf("Escape(%q) = %q does not round-trip (%q, %v)", s, e, back, err)
		}
	})
}

func FuzzParseRateLimit(f *testing.F) {
	f.Add("900", "899", "1700000000")
	f.Add("", "", "")
	f.Add("x", "1", "2")
	f.Add("-1", "0", "0")
	f.Add("99999999999999999999", "1", "1")
	f.Fuzz(func(t *testing.T, limit, remaining, reset string) {
		h := http.Header{}
		if limit != "" {
			h.Set("x-rate-limit-limit", limit)
		}
		if remaining != "" {
			h.Set("x-rate-limit-remaining", remaining)
		}
		if reset != "" {
			h.Set("x-rate-limit-reset", reset)
		}
		rl, ok, err := ParseRateLimit(h, "x-rate-limit")
		if ok && err != nil {
			t.Fatal("ok with an error")
		}
		if ok && (rl.Limit < 0 || rl.Remaining < 0 || rl.Reset.Before(time.Unix(0, 0))) {
			t.Fatalf("negative values accepted: %+v", rl)
		}
		if !ok && err == nil && (limit != "" || remaining != "" || reset != "") {
			t.Fatal("present headers neither parsed nor refused")
		}
	})
}
