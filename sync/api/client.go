package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Base names one of the service's three base addresses.
type Base int

// The service's bases.
const (
	BaseAPI     Base = iota // OAuth endpoints and the v2 read interface
	BaseAds                 // the advertising interface
	BaseSandbox             // the sandbox advertising interface
)

// AuthMode says how a request is authenticated.
type AuthMode int

// Authentication modes.
const (
	AuthUser     AuthMode = iota // OAuth 1.0a with the user access token
	AuthBearer                   // app-only bearer token
	AuthConsumer                 // OAuth 1.0a with consumer credentials only (request-token step)
	AuthBasic                    // HTTP Basic with consumer credentials (bearer token endpoint)
	AuthNone
)

// Config builds a Client.
type Config struct {
	APIURL, AdsURL, SandboxAdsURL string
	Credentials                   Credentials
	// UserToken is the access token AuthUser requests are signed with.
	UserToken *Token
	// Bearer supplies app-only tokens (nil: NewClient builds one with an
	// in-memory cache).
	Bearer *BearerSource
	// Governor paces requests (nil: an in-memory governor).
	Governor *Governor
	// HTTPClient sends requests (nil: a client with sane transport limits).
	HTTPClient *http.Client
	// Timeout bounds each attempt (default 30s).
	Timeout time.Duration
	// MaxAttempts bounds retries of 5xx and connection errors (default 5).
	MaxAttempts int
	// BackoffBase and BackoffMax shape exponential backoff with full jitter
	// (defaults 500ms and 30s).
	BackoffBase, BackoffMax time.Duration
	Logger                  *zap.Logger
	Now                     func() time.Time
	// BaseOrigins say, by base, where its URL was set ("api.ads_url, from
	// env ADSYNC_ADS_URL"); a *BaseError names it.
	BaseOrigins map[Base]string
	// OnResponse is called after every answer (metrics).
	OnResponse func(endpoint string, status int, d time.Duration)
}

// Client talks to the service. It is safe for concurrent use.
type Client struct {
	// bodySizes holds, by endpoint, the size of its last answer's body
	// (see readBody).
	bodySizes sync.Map
	// answered records, by Base, that the base has answered once: until
	// it has, a refused connection says its URL is wrong. Clients made by
	// WithUserToken share it: what a base answered is the base's, and a
	// worker makes its users' clients again every 30 s.
	answered *[3]atomic.Bool
	cfg      Config
	http     *http.Client
	gov      *Governor
	log      *zap.Logger
}

// NewClient validates cfg and returns a client.
func NewClient(cfg Config) (*Client, error) {
	for name, u := range map[string]string{"API URL": cfg.APIURL, "ads URL": cfg.AdsURL} {
		if u == "" {
			return nil, fmt.Errorf("no %s configured", name)
		}
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, fmt.Errorf("invalid %s %q: want http(s)://host[:port][/path]", name, u)
		}
	}
	if cfg.SandboxAdsURL == "" {
		cfg.SandboxAdsURL = cfg.AdsURL
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = 5
	}
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = 500 * time.Millisecond
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	c := &Client{cfg: cfg, http: cfg.HTTPClient, gov: cfg.Governor, log: cfg.Logger, answered: new([3]atomic.Bool)}
	if c.http == nil {
		c.http = &http.Client{Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: cfg.Timeout,
		}}
	}
	if c.gov == nil {
		c.gov = NewGovernor(NewMemoryStore())
	}
	if c.gov.Log == nil {
		c.gov.Log = cfg.Logger
	}
	if ttl := cfg.Timeout + 5*time.Second; c.gov.InflightTTL < ttl {
		// A reservation outlives its request by at most the timeout.
		c.gov.InflightTTL = ttl
	}
	if c.cfg.Bearer == nil {
		c.cfg.Bearer = NewBearerSource(NewMemoryBearerStore())
	}
	return c, nil
}

// Credentials returns the application's credentials.
func (c *Client) Credentials() Credentials { return c.cfg.Credentials }

// WithUserToken returns a client that acts for tok: it signs user requests
// with tok and shares everything else with c (transport, rate-limit
// governor, bearer source, logger, what each base answered). An agency's
// deployment holds one such client per user.
func (c *Client) WithUserToken(tok *Token) *Client {
	cfg := c.cfg
	cfg.UserToken = tok
	return &Client{cfg: cfg, http: c.http, gov: c.gov, log: c.log, answered: c.answered}
}

// UserToken returns the token user requests are signed with (nil: none).
func (c *Client) UserToken() *Token { return c.cfg.UserToken }

// MaxAttempts is how many times the client sends a request whose answer
// is lost (5xx, a dropped connection) when resending it is safe.
func (c *Client) MaxAttempts() int { return c.cfg.MaxAttempts }

// TokenUserID is the id of the user tok acts for: its UserID when known,
// else the digits the service's access tokens carry before their dash
// (publicly known format "<user id>-<random>"; the spec does not show it),
// else "".
func TokenUserID(tok *Token) string {
	if tok == nil {
		return ""
	}
	if tok.UserID != "" {
		return tok.UserID
	}
	if id, _, ok := strings.Cut(tok.Token, "-"); ok && id != "" && strings.Trim(id, "0123456789") == "" {
		return id
	}
	return ""
}

// rateUser is the user whose rate-limit windows req counts against: the
// signing token's user for user-context requests, "" otherwise (the
// service counts app-only and unsigned requests apart from any user's).
func (c *Client) rateUser(req *Request) string {
	if req.Auth != AuthUser {
		return ""
	}
	tok := req.Token
	if tok == nil {
		tok = c.cfg.UserToken
	}
	return TokenUserID(tok)
}

// Request is one call.
type Request struct {
	Method string
	Base   Base
	// Path is the escaped path under the base, e.g. "/12/accounts/abc/campaigns".
	Path string
	// Endpoint is the rate-limit key, e.g. "GET /12/accounts/{account_id}/campaigns".
	// Derived from Method and Path when empty.
	Endpoint string
	Query    url.Values
	Form     url.Values // form-encoded body (signed)
	JSON     any        // JSON body (not signed); []byte is sent as is
	Auth     AuthMode
	// Token overrides the client's user token (three-legged flow steps).
	Token *Token
	// OAuthCallback and OAuthVerifier are the flow's protocol parameters.
	OAuthCallback, OAuthVerifier string
	// Idempotent allows retries after 5xx and connection errors. GET, PUT
	// and DELETE are always idempotent.
	Idempotent bool
	// AccountID selects the account's rate-limit bucket.
	AccountID string
	// ReuseBody reads a successful answer into a buffer kept from earlier
	// answers, which Response.Release hands back: for a caller that keeps
	// nothing of the body once it is read (a sync reads hundreds of
	// megabytes of pages; fresh buffers for each made the runtime map new
	// memory, page by page, once its scavenger had returned the old).
	ReuseBody bool
}

// Response is a successful answer.
type Response struct {
	Status    int
	Header    http.Header
	Body      []byte
	RateLimit *RateLimit // x-rate-limit-*, when present
	Attempts  int
	// buf is Body's buffer when the request set ReuseBody.
	buf *[]byte
}

// Release hands the body's buffer back for the next answer of a request
// with ReuseBody: neither Body nor anything sliced from it may be used
// after. It does nothing for other responses.
func (r *Response) Release() {
	if r.buf == nil {
		return
	}
	*r.buf = r.Body[:0]
	bodyBuffers.Put(r.buf)
	r.buf, r.Body = nil, nil
}

// bodyBuffers are the buffers of answers read for requests with ReuseBody
// (*[]byte).
var bodyBuffers sync.Pool

// TransportError is a request that got no answer (connection refused or
// reset, timeout). It never carries the URL's query.
type TransportError struct {
	Endpoint string
	Err      error
}

func (e *TransportError) Error() string { return e.Endpoint + ": " + e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// BaseURL returns the configured address of base b.
func (c *Client) BaseURL(b Base) string { return c.baseURL(b) }

// Bearer returns the source of the client's app-only bearer tokens.
func (c *Client) Bearer() *BearerSource { return c.cfg.Bearer }

func (c *Client) baseURL(b Base) string {
	switch b {
	case BaseAds:
		return c.cfg.AdsURL
	case BaseSandbox:
		return c.cfg.SandboxAdsURL
	default:
		return c.cfg.APIURL
	}
}

// Do sends req, pacing it through the governor, retrying what is safe to
// retry, and decoding failures into typed errors.
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	cl := newCall(ctx, req)
	for attempt := 1; ; attempt++ {
		buckets, err := c.gov.Acquire(ctx, cl.endpoint, c.rateUser(req), req.AccountID)
		if err != nil {
			return nil, err
		}
		start := c.cfg.Now()
		resp, bearer, err := c.send(ctx, req, cl.endpoint)
		d := c.cfg.Now().Sub(start)
		if err != nil {
			c.gov.release(ctx, buckets)
			if err := c.retryUnanswered(ctx, cl, err, attempt); err != nil {
				return nil, err
			}
			continue
		}
		out, retry, err := c.answer(ctx, cl, attempt, buckets, resp, bearer, d)
		if !retry {
			return out, err
		}
	}
}

// call is one Do across its attempts: the endpoint it is paced and
// reported under, whether it may be resent, and how much of each kind of
// retry it has spent.
type call struct {
	req        *Request
	endpoint   string
	idempotent bool
	tally      *Tally
	// reauthed and resigned are the one new bearer token and the one
	// re-signed attempt a call may have.
	reauthed, resigned bool
	// failures counts the attempts that failed (no answer, an unreadable
	// answer, a 5xx); waits the rate-limit waits.
	failures, waits int
}

// newCall names req's endpoint, says whether it is idempotent and counts
// it in ctx's tally.
func newCall(ctx context.Context, req *Request) *call {
	endpoint := req.Endpoint
	if endpoint == "" {
		endpoint = DeriveEndpoint(req.Method, req.Path)
	}
	if req.Query.Get("with_total_count") == "true" {
		endpoint += TotalCountSuffix
	}
	idempotent := req.Idempotent || req.Method == http.MethodGet || req.Method == http.MethodPut || req.Method == http.MethodDelete
	cl := &call{req: req, endpoint: endpoint, idempotent: idempotent, tally: TallyFrom(ctx)}
	cl.tally.AddRequest()
	return cl
}

// retryUnanswered decides what an attempt that got no answer (send's err)
// does: nil to send again after a backoff, or the error that ends the call.
func (c *Client) retryUnanswered(ctx context.Context, cl *call, err error, attempt int) error {
	// Only a request that got no answer is worth sending again; the
	// other failures are local (no token, a bad path) and would repeat.
	var terr *TransportError
	if !errors.As(err, &terr) || ctx.Err() != nil {
		return err
	}
	if berr := c.unreachable(cl.req, terr); berr != nil {
		return berr
	}
	cl.failures++
	if !cl.idempotent || cl.failures >= c.cfg.MaxAttempts {
		return err
	}
	c.log.Warn("api request failed; retrying", zap.String("endpoint", cl.endpoint), zap.Int("attempt", attempt),
		zap.Int("max_attempts", c.cfg.MaxAttempts), zap.Error(err))
	return c.backoff(ctx, cl.failures)
}

// retryFailed counts a failed attempt (an unreadable answer, a 5xx) whose
// error is err: it reports whether to send again, after a backoff, or the
// error that ends the call.
func (c *Client) retryFailed(ctx context.Context, cl *call, err error) (bool, error) {
	cl.failures++
	if !cl.idempotent || cl.failures >= c.cfg.MaxAttempts {
		return false, err
	}
	if err := c.backoff(ctx, cl.failures); err != nil {
		return false, err
	}
	return true, nil
}

// answer reads an attempt's answer and judges it: the response, a retry
// (after whatever wait or new token it needs), or the error that ends the
// call. bearer is the token the attempt used, d how long it took.
func (c *Client) answer(ctx context.Context, cl *call, attempt int, buckets []string, resp *http.Response, bearer string,
	d time.Duration) (*Response, bool, error) {
	req := cl.req
	c.answered[req.Base].Store(true)
	user, account := c.observe(ctx, buckets, resp.Header, cl.endpoint, resp.StatusCode)
	if c.cfg.OnResponse != nil {
		c.cfg.OnResponse(cl.endpoint, resp.StatusCode, d)
	}
	body, buf, rerr := c.readAnswer(cl, attempt, resp, d)
	if rerr != nil {
		retry, err := c.retryFailed(ctx, cl, &TransportError{Endpoint: cl.endpoint, Err: rerr})
		return nil, retry, err
	}
	status := resp.StatusCode
	switch {
	case status >= 200 && status < 300:
		return &Response{Status: status, Header: resp.Header, Body: body, RateLimit: user, Attempts: attempt, buf: buf}, false, nil
	case status == http.StatusTooManyRequests || (status == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != ""):
		err := c.waitRateLimit(ctx, cl, status, c.retryAt(resp.Header, user, account))
		return nil, err == nil, err
	case status == http.StatusUnauthorized && req.Auth == AuthBearer && !cl.reauthed:
		// The cached bearer token is not accepted (invalidated: 401 code
		// 89; or unknown to the service: a v2 401 problem): drop it and
		// obtain a new one, once.
		c.cfg.Bearer.Invalidate(ctx, c, bearer)
		cl.reauthed = true
		return nil, true, nil
	case status == http.StatusUnauthorized && (req.Auth == AuthUser || req.Auth == AuthConsumer) && cl.idempotent && !cl.resigned &&
		cl.failures > 0 && errors.Is(decodeError(status, cl.endpoint, body), ErrCouldNotAuthenticate):
		// Every attempt is signed anew (see unreplayable), so code 32 right
		// after a transport fault can only be a replay by something
		// between us and the service; treat it like the fault, once. Bad
		// credentials fail at once, and again when re-signed.
		cl.resigned = true
		return nil, true, nil
	case status >= 500:
		retry, err := c.retryFailed(ctx, cl, decodeError(status, cl.endpoint, body))
		return nil, retry, err
	default:
		return nil, false, c.wrongBase(req, decodeError(status, cl.endpoint, body))
	}
}

// readAnswer reads and closes resp's body, into a pooled buffer when the
// request asked for ReuseBody and the answer is a success, and logs the
// answer at debug level.
func (c *Client) readAnswer(cl *call, attempt int, resp *http.Response, d time.Duration) ([]byte, *[]byte, error) {
	var buf *[]byte
	if cl.req.ReuseBody && resp.StatusCode/100 == 2 {
		buf, _ = bodyBuffers.Get().(*[]byte)
		if buf == nil {
			buf = new([]byte)
		}
	}
	body, rerr := c.readBody(cl.endpoint, resp, buf)
	resp.Body.Close()
	c.log.Debug("api response", zap.String("method", cl.req.Method), zap.String("endpoint", cl.endpoint),
		zap.String("query", redactQuery(cl.req.Query)), zap.Int("status", resp.StatusCode), zap.Duration("duration", d),
		zap.Int("attempt", attempt), zap.String("body", redactBody(cl.endpoint, body)))
	return body, buf, rerr
}

// waitRateLimit waits out a 429, or a 503 with Retry-After, until at: nil
// to send again, or a *RetryAtError when the wait is longer than the
// governor's MaxWait or the call has waited too often.
func (c *Client) waitRateLimit(ctx context.Context, cl *call, status int, at time.Time) error {
	reason := "rate limited (429)"
	if status == http.StatusTooManyRequests {
		cl.tally.AddRateLimited()
	}
	if status == http.StatusServiceUnavailable {
		reason = "service unavailable (503)"
		if !cl.idempotent {
			// The request was refused before it was processed, so resending is safe.
			reason += ", not processed"
		}
	}
	if c.gov.OnWait != nil {
		c.gov.OnWait(cl.endpoint, at.Sub(c.cfg.Now()))
	}
	cl.waits++
	if at.Sub(c.cfg.Now()) > c.gov.MaxWait || cl.waits > 10 {
		rae := &RetryAtError{At: at, Reason: reason, Endpoint: cl.endpoint}
		c.noteWait(rae)
		return rae
	}
	logWait(c.log, c.cfg.Now(), cl.endpoint, reason, at, false)
	return c.gov.Sleep(ctx, at.Sub(c.cfg.Now()))
}

// send builds, signs and sends one attempt. It returns the bearer token it
// used, if any.
func (c *Client) send(ctx context.Context, req *Request, endpoint string) (*http.Response, string, error) {
	u, err := url.Parse(strings.TrimRight(c.baseURL(req.Base), "/") + req.Path)
	if err != nil {
		return nil, "", fmt.Errorf("%s: invalid path: %w", endpoint, err)
	}
	u.RawQuery = encodeValues(req.Query)
	var body io.Reader
	contentType := ""
	switch {
	case req.Form != nil:
		body, contentType = strings.NewReader(encodeValues(req.Form)), "application/x-www-form-urlencoded"
	case req.JSON != nil:
		b, ok := req.JSON.([]byte)
		if !ok {
			if b, err = json.Marshal(req.JSON); err != nil {
				return nil, "", fmt.Errorf("%s: encoding the JSON body: %w", endpoint, err)
			}
		}
		body, contentType = bytes.NewReader(b), "application/json"
	}
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	hreq, err := http.NewRequestWithContext(actx, req.Method, u.String(), body)
	if err != nil {
		cancel()
		return nil, "", fmt.Errorf("%s: %w", endpoint, err)
	}
	if contentType != "" {
		hreq.Header.Set("Content-Type", contentType)
	}
	if req.Auth == AuthUser || req.Auth == AuthConsumer {
		unreplayable(hreq)
	}
	hreq.Header.Set("User-Agent", "adsync")
	var bearer string
	now := c.cfg.Now()
	switch req.Auth {
	case AuthUser:
		tok := req.Token
		if tok == nil {
			tok = c.cfg.UserToken
		}
		if tok == nil || tok.Token == "" {
			cancel()
			return nil, "", fmt.Errorf("%s: no user access token configured (set ADSYNC_ACCESS_TOKEN and ADSYNC_ACCESS_SECRET, or run adsync auth login)", endpoint)
		}
		hreq.Header.Set("Authorization", c.signUser(req, u, tok, now))
	case AuthConsumer:
		var extra []func(*oauthParams)
		if req.OAuthCallback != "" {
			extra = append(extra, withCallback(req.OAuthCallback))
		}
		hreq.Header.Set("Authorization", SignRequest(req.Method, u, req.Form, c.cfg.Credentials, req.Token, now, extra...))
	case AuthBearer:
		bearer, err = c.cfg.Bearer.Token(ctx, c)
		if err != nil {
			cancel()
			return nil, "", err
		}
		hreq.Header.Set("Authorization", "Bearer "+bearer)
	case AuthBasic:
		hreq.Header.Set("Authorization", basicAuth(c.cfg.Credentials))
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		cancel()
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL may carry a token in its query
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("timed out after %s", c.cfg.Timeout)
		}
		return nil, "", &TransportError{Endpoint: endpoint, Err: err}
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, bearer, nil
}

// unreplayable keeps net/http from sending a signed request a second time by
// itself. net/http resends an idempotent request (GET, HEAD) with the same
// headers when a reused connection breaks before the answer; if the service
// had already seen it, the replayed nonce is refused (401 code 32), and a
// fault of the connection turns into what looks like bad credentials. A
// request whose body net/http cannot rewind is never resent by it, so every
// resend goes through Do's loop, which signs each attempt anew. An empty
// body is probed and sent as no body at all.
func unreplayable(r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		r.Body = io.NopCloser(emptyReader{})
	}
	r.GetBody = nil
}

// emptyReader is an empty body net/http does not recognize as one in advance.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

func (c *Client) signUser(req *Request, u *url.URL, tok *Token, now time.Time) string {
	var extra []func(*oauthParams)
	if req.OAuthVerifier != "" {
		extra = append(extra, withVerifier(req.OAuthVerifier))
	}
	return SignRequest(req.Method, u, req.Form, c.cfg.Credentials, tok, now, extra...)
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// observe feeds the answer's rate-limit headers to the governor.
func (c *Client) observe(ctx context.Context, buckets []string, h http.Header, endpoint string, status int) (user, account *RateLimit) {
	if rl, ok, err := ParseRateLimit(h, "x-rate-limit"); ok {
		user = &rl
	} else if err != nil {
		c.log.Warn("ignoring malformed rate-limit headers", zap.String("endpoint", endpoint), zap.Error(err))
	}
	if rl, ok, err := ParseRateLimit(h, "x-account-rate-limit"); ok {
		account = &rl
	} else if err != nil {
		c.log.Warn("ignoring malformed account rate-limit headers", zap.String("endpoint", endpoint), zap.Error(err))
	}
	if buckets == nil {
		// A request of an endpoint known unlimited reserved nothing and
		// leaves the store alone. Headers say the endpoint is limited now:
		// its next requests are reserved again (the store still holds the
		// unlimited window it was told of, as it would have without this
		// shortcut).
		if user != nil || account != nil {
			c.gov.forgetUnlimited(endpoint)
		}
		return user, account
	}
	gu, ga := user, account
	if status >= 200 && status < 300 {
		// The service sends rate-limit headers with every answer of a
		// rate-limited endpoint: a success without them says the bucket is
		// not limited. Left as a probe, it would let one request at a time
		// through (the others polling for the probe's answer).
		rl := c.gov.unlimited()
		if gu == nil && ga == nil {
			c.gov.markUnlimited(endpoint, rl.Reset)
		}
		if gu == nil {
			gu = rl
		}
		if ga == nil {
			own := *rl // each bucket its own value
			ga = &own
		}
	}
	c.gov.Observe(ctx, buckets, gu, ga)
	return user, account
}

// retryAt is when a refused request may be sent again: Retry-After, else the
// window's reset (the account window preferred), else a minute.
func (c *Client) retryAt(h http.Header, user, account *RateLimit) time.Time {
	now := c.cfg.Now()
	if t, ok := parseRetryAfter(h.Get("Retry-After"), now); ok {
		return t
	}
	if account != nil && account.Remaining == 0 && account.Reset.After(now) {
		return account.Reset
	}
	if user != nil && user.Reset.After(now) {
		return user.Reset
	}
	return now.Add(time.Minute)
}

// backoff sleeps before retry n (1-based): exponential with full jitter, bounded.
func (c *Client) backoff(ctx context.Context, n int) error {
	d := c.cfg.BackoffBase << min(n-1, 16)
	if d > c.cfg.BackoffMax || d <= 0 {
		d = c.cfg.BackoffMax
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	return c.gov.Sleep(ctx, d)
}

// DeriveEndpoint turns a path into a rate-limit key by replacing id
// segments (those holding a digit, after the version segment) with {id}.
func DeriveEndpoint(method, path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		if i == 0 {
			continue
		}
		if strings.ContainsAny(s, "0123456789") {
			segs[i] = "{id}"
		}
	}
	return method + " /" + strings.Join(segs, "/")
}

// encodeValues encodes v with RFC 3986 escaping (%20, never '+'), sorted.
func encodeValues(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, val := range v[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(Escape(k))
			b.WriteByte('=')
			b.WriteString(Escape(val))
		}
	}
	return b.String()
}

// maxBody bounds what is read of an answer.
const maxBody = 256 << 20

// readBody reads an answer's body (at most maxBody) into a buffer sized
// from its Content-Length, else from the endpoint's last answer: a list's
// pages are alike, and a page of a megabyte read by io.ReadAll (from 512
// bytes, regrowing) allocates about twice that, all garbage but the last.
// reuse, when set, holds a buffer to read into, used when large enough.
func (c *Client) readBody(endpoint string, resp *http.Response, reuse *[]byte) ([]byte, error) {
	size := 0
	if resp.ContentLength >= 0 {
		size = int(min(resp.ContentLength, maxBody))
	} else if v, ok := c.bodySizes.Load(endpoint); ok {
		size = v.(int)
	}
	var buf []byte
	if want := size + size/8 + 512; reuse != nil && cap(*reuse) >= want {
		buf = (*reuse)[:0]
	} else {
		buf = make([]byte, 0, want)
	}
	r := io.LimitReader(resp.Body, maxBody)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			if err == nil && resp.ContentLength < 0 && resp.StatusCode/100 == 2 {
				c.bodySizes.Store(endpoint, len(buf))
			}
			return buf, err
		}
	}
}
