package api

import (
	"encoding/json"
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

func FuzzDecodeError(f *testing.F) {
	f.Add(401, `{"errors":[{"code":89,"message":"Invalid or expired token."}]}`)
	f.Add(400, `{"errors":[{"code":"INVALID_PARAMETER","message":"m","parameter":"count"}],"request":{"params":{}}}`)
	f.Add(400, `{"title":"Invalid Request","type":"about:blank","errors":[{"message":"x"}]}`)
	f.Add(502, `<html>`)
	f.Add(500, `{"errors":[{"code":1e400}]}`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		err := decodeError(status, "GET /x", []byte(body))
		if err == nil {
			t.Fatal("an error answer decoded to no error")
		}
		_ = err.Error()
		if strings.Contains(err.Error(), "\x00") && !strings.Contains(body, "\x00") {
			t.Fatal("invented bytes")
		}
	})
}

func FuzzDecodeEnvelopes(f *testing.F) {
	f.Add(`{"request":{"params":{}},"next_cursor":"c","data":[{"id":"1"}],"total_count":3}`)
	f.Add(`{"request":[{"params":{},"operation_type":"Create"}],"data":[null],"operation_errors":[[{"code":"X","message":"m"}]]}`)
	f.Add(`{"request":[],"data":[],"operation_errors":[{"index":0,"code":"X","message":"m"}]}`)
	f.Add(`{"data":{"id":"1"}}`)
	f.Fuzz(func(t *testing.T, body string) {
		// A decoded list page survives a round trip unchanged.
		if l, err := Decode[List[json.RawMessage]]("GET /x", []byte(body)); err == nil {
			again, err := json.Marshal(l)
			if err != nil {
				t.Fatalf("re-encoding a decoded page: %v", err)
			}
			l2, err := Decode[List[json.RawMessage]]("GET /x", again)
			if err != nil || len(l2.Data) != len(l.Data) || (l.NextCursor == nil) != (l2.NextCursor == nil) ||
				(l.NextCursor != nil && *l.NextCursor != *l2.NextCursor) {
				t.Fatalf("page does not round-trip: %+v vs %+v (%v)", l, l2, err)
			}
		}
		if b, err := Decode[Batch[map[string]any]]("POST /x", []byte(body)); err == nil {
			for _, oe := range b.OperationErrors {
				if got := (&BatchError{Errors: b.OperationErrors}).ByIndex(oe.Index); len(got) == 0 {
					t.Fatalf("operation error for item %d not found by its index", oe.Index)
				}
			}
		}
		_, _ = Decode[Single[map[string]any]]("GET /x", []byte(body))
	})
}
