package api

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
)

// BearerStore caches the application's one bearer token. The Postgres store
// shares it between processes so it is never requested again while valid.
type BearerStore interface {
	// Load returns the cached token ("" when none) and the time before which
	// creds may not request a new one (see Hold).
	Load(ctx context.Context, app string, creds Credentials) (token string, notBefore time.Time, err error)
	Save(ctx context.Context, app string, creds Credentials, token string, now time.Time) error
	// Drop forgets token if it is still the cached one.
	Drop(ctx context.Context, app, token string) error
	// Hold refuses new token requests with creds until t. The hold belongs
	// to the key and secret that earned it (see HoldKey): the service answers
	// a wrong secret with the same 403 code 99 as too frequent requests, so
	// corrected credentials must not inherit it.
	Hold(ctx context.Context, app string, creds Credentials, t time.Time) error
}

// BearerSource supplies app-only bearer tokens: from the cache when one is
// there, else from POST oauth2/token (Basic credentials,
// grant_type=client_credentials).
type BearerSource struct {
	store BearerStore
	mu    sync.Mutex
	// HoldOn403 is how long to stop asking after 403 code 99 (default 5m).
	HoldOn403 time.Duration
}

// NewBearerSource returns a source over store.
func NewBearerSource(store BearerStore) *BearerSource {
	return &BearerSource{store: store, HoldOn403: 5 * time.Minute}
}

// appKey identifies the application in the cache without storing its key.
func appKey(creds Credentials) string {
	sum := sha256.Sum256([]byte(creds.ConsumerKey))
	return hex.EncodeToString(sum[:16])
}

// HoldKey identifies a consumer key and secret pair in the hold-back state
// without revealing either: a prefix of SHA-256 over both (with a domain
// label), never reversible to the secret.
func HoldKey(creds Credentials) string {
	h := sha256.New()
	h.Write([]byte("adsync bearer hold\x00"))
	h.Write([]byte(creds.ConsumerKey))
	h.Write([]byte{0})
	h.Write([]byte(creds.ConsumerSecret))
	return "hold:" + hex.EncodeToString(h.Sum(nil)[:16])
}

// Token returns a valid bearer token, requesting one only when none is cached.
func (b *BearerSource) Token(ctx context.Context, c *Client) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	creds := c.Credentials()
	app := appKey(creds)
	tok, notBefore, err := b.store.Load(ctx, app, creds)
	if err != nil {
		return "", fmt.Errorf("reading the cached bearer token: %w", err)
	}
	if tok != "" {
		return tok, nil
	}
	now := c.cfg.Now()
	if now.Before(notBefore) {
		rae := &RetryAtError{At: notBefore, Endpoint: "POST /oauth2/token", HeldBack: true,
			Reason: "not sent: these consumer credentials were answered 403 code 99 (wrong key or secret, or tokens requested too often); held back"}
		c.noteWait(rae)
		return "", rae
	}
	tok, err = RequestBearerToken(ctx, c)
	if errors.Is(err, ErrBearerTooFrequent) {
		until := now.Add(b.HoldOn403)
		_ = b.store.Hold(context.WithoutCancel(ctx), app, creds, until)
		rae := &RetryAtError{At: until, Endpoint: "POST /oauth2/token",
			Reason: "403 code 99 (the service's answer to a wrong key or secret and to tokens requested too often)"}
		c.noteWait(rae)
		return "", rae
	}
	if err != nil {
		return "", err
	}
	if err := b.store.Save(ctx, app, creds, tok, now); err != nil {
		return "", fmt.Errorf("caching the bearer token: %w", err)
	}
	return tok, nil
}

// Invalidate drops token from the cache (after the service answered 401
// code 89 to it).
func (b *BearerSource) Invalidate(ctx context.Context, c *Client, token string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.store.Drop(context.WithoutCancel(ctx), appKey(c.Credentials()), token)
}

// RequestBearerToken calls POST oauth2/token. Prefer BearerSource.Token,
// which caches: the service refuses frequent requests.
func RequestBearerToken(ctx context.Context, c *Client) (string, error) {
	resp, err := c.Do(ctx, &Request{Method: "POST", Base: BaseAPI, Path: "/oauth2/token", Endpoint: "POST /oauth2/token",
		Form: url.Values{"grant_type": {"client_credentials"}}, Auth: AuthBasic})
	if err != nil {
		return "", err
	}
	out, err := Decode[bearerResponse]("POST /oauth2/token", resp.Body)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(out.TokenType, "bearer") {
		return "", fmt.Errorf("POST /oauth2/token: unexpected token_type %q (want bearer)", out.TokenType)
	}
	if out.AccessToken == "" {
		return "", errors.New("POST /oauth2/token: empty access_token")
	}
	return out.AccessToken, nil
}

// bearerResponse is the spec's bearer token response.
type bearerResponse struct {
	TokenType   string `json:"token_type"`
	AccessToken string `json:"access_token"`
}

// InvalidateBearerToken calls POST oauth2/invalidate_token, signed with the
// consumer credentials and the application owner's token (the client's
// user token), with the token in the query.
func InvalidateBearerToken(ctx context.Context, c *Client, token string) error {
	_, err := c.Do(ctx, &Request{Method: "POST", Base: BaseAPI, Path: "/oauth2/invalidate_token", Endpoint: "POST /oauth2/invalidate_token",
		Query: url.Values{"access_token": {token}}, Auth: AuthUser})
	return err
}

// basicAuth is the Basic header of the bearer endpoint: key and secret are
// URL-encoded (RFC 1738) before base64, as the service requires.
func basicAuth(creds Credentials) string {
	raw := url.QueryEscape(creds.ConsumerKey) + ":" + url.QueryEscape(creds.ConsumerSecret)
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(raw))
}

// MemoryBearerStore caches the token in this process only.
type MemoryBearerStore struct {
	mu        sync.Mutex
	tokens    map[string]string
	notBefore map[string]time.Time // by HoldKey
}

// NewMemoryBearerStore returns an empty cache.
func NewMemoryBearerStore() *MemoryBearerStore {
	return &MemoryBearerStore{tokens: map[string]string{}, notBefore: map[string]time.Time{}}
}

// Load implements BearerStore.
func (m *MemoryBearerStore) Load(_ context.Context, app string, creds Credentials) (string, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tokens[app], m.notBefore[HoldKey(creds)], nil
}

// Save implements BearerStore.
func (m *MemoryBearerStore) Save(_ context.Context, app string, _ Credentials, token string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tokens[app] = token
	return nil
}

// Drop implements BearerStore.
func (m *MemoryBearerStore) Drop(_ context.Context, app, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens[app] == token {
		delete(m.tokens, app)
	}
	return nil
}

// Hold implements BearerStore.
func (m *MemoryBearerStore) Hold(_ context.Context, _ string, creds Credentials, t time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notBefore[HoldKey(creds)] = t
	return nil
}

// CheckBearerToken returns a bearer token the service accepts now: the
// cached one (or a new one), checked with one v2 call (GET /2/posts for
// post 20, the service's first: found or not, a 200 proves the token). A
// token the service refuses is dropped from the cache and replaced, once,
// by Do. replaced says the token first found was refused.
func CheckBearerToken(ctx context.Context, c *Client) (token string, replaced bool, err error) {
	first, err := c.Bearer().Token(ctx, c)
	if err != nil {
		return "", false, err
	}
	_, err = c.Do(ctx, &Request{Method: "GET", Base: BaseAPI, Path: "/2/posts", Endpoint: "GET /2/posts",
		Query: url.Values{"ids": {"20"}}, Auth: AuthBearer})
	if err != nil {
		return "", false, fmt.Errorf("checking the bearer token with GET /2/posts: %w", err)
	}
	token, err = c.Bearer().Token(ctx, c)
	if err != nil {
		return "", false, err
	}
	return token, token != first, nil
}
