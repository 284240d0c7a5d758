package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
)

// This file is adsync doctor's look at the service: one call signed with
// the user's token, one with the app-only bearer token, and how far this
// machine's clock is from the service's, read from the answers' Date
// headers.

// Probe is what ProbeService found.
type Probe struct {
	// AccountsErr is the signed GET /12/accounts's error; Accounts is how
	// many accounts its first page listed, More whether there are more.
	// Without a user token the call is not made (Signed is false).
	Signed      bool
	Accounts    int
	More        bool
	AccountsErr error
	// BearerErr is the error of GET /2/posts sent with the bearer token.
	BearerErr error
	// Skew is the service's clock minus this machine's (the median over the
	// answers), measured over Dates answers (0: none carried a Date).
	Skew  time.Duration
	Dates int
}

// ProbeService makes doctor's calls with a client of cfg that tries each
// call once (doctor reports a fault, it does not ride it out) within
// timeout, recording the Date header of every answer. Its error is the
// client's construction's (cfg's URLs); the calls' errors are in Probe.
func ProbeService(ctx context.Context, cfg Config, timeout time.Duration) (Probe, error) {
	dates := &dateRecorder{}
	cfg.MaxAttempts = 1
	cfg.Timeout = min(cfg.Timeout, timeout)
	cfg.HTTPClient = &http.Client{Transport: &dateTransport{base: http.DefaultTransport, rec: dates}}
	c, err := NewClient(cfg)
	if err != nil {
		return Probe{}, err
	}
	var p Probe
	if cfg.UserToken != nil {
		p.Signed = true
		p.Accounts, p.More, p.AccountsErr = probeAccounts(ctx, c, timeout)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Post 20 is the service's first: found or not, a 200 proves the token.
	_, p.BearerErr = c.Do(cctx, &Request{Method: http.MethodGet, Base: BaseAPI, Path: "/2/posts",
		Query: url.Values{"ids": {"20"}}, Auth: AuthBearer})
	p.Skew, p.Dates = dates.offset()
	return p, nil
}

// probeAccounts reads the first page of the accounts c's user token
// reaches.
func probeAccounts(ctx context.Context, c *Client, timeout time.Duration) (n int, more bool, err error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := c.Do(cctx, &Request{Method: http.MethodGet, Base: BaseAds, Path: "/12/accounts",
		Query: url.Values{"count": {"200"}}, Auth: AuthUser})
	if err != nil {
		return 0, false, err
	}
	var page struct {
		Data       []json.RawMessage `json:"data"`
		NextCursor *string           `json:"next_cursor"`
	}
	_ = json.Unmarshal(resp.Body, &page) // a page it cannot read counts no account
	return len(page.Data), page.NextCursor != nil, nil
}

// dateRecorder keeps the service's Date headers with the local time of
// each exchange.
type dateRecorder struct {
	mu      sync.Mutex
	offsets []time.Duration
}

// offset is the median of the recorded offsets (service minus local) and
// how many there are.
func (d *dateRecorder) offset() (time.Duration, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.offsets) == 0 {
		return 0, 0
	}
	s := slices.Clone(d.offsets)
	slices.Sort(s)
	return s[len(s)/2], len(s)
}

// dateTransport records each answer's Date header against the midpoint of
// the exchange, the best local estimate of when the service wrote it.
type dateTransport struct {
	base http.RoundTripper
	rec  *dateRecorder
}

func (t *dateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if date, perr := http.ParseTime(resp.Header.Get("Date")); perr == nil {
		mid := start.Add(time.Since(start) / 2)
		// Date truncates to the second: its true instant is on average
		// half a second later.
		off := date.Add(500 * time.Millisecond).Sub(mid)
		t.rec.mu.Lock()
		t.rec.offsets = append(t.rec.offsets, off)
		t.rec.mu.Unlock()
	}
	return resp, nil
}
