package api

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file signs requests with OAuth 1.0a HMAC-SHA1 (RFC 5849). It is written
// here rather than taken from dghubble/oauth1 because that library hides the
// clock and the base string, which the published test vectors need pinned.

// Credentials are an application's consumer key and secret.
type Credentials struct {
	ConsumerKey    string
	ConsumerSecret string
}

// Token is an OAuth 1.0a token (a user access token or a request token).
type Token struct {
	Token  string
	Secret string
	// UserID and ScreenName name the user an access token acts for, when
	// known (a token stored by auth login); never sent, only for messages.
	UserID, ScreenName string
}

// oauthParams are the protocol parameters of one signature.
type oauthParams struct {
	consumerKey string
	token       string // empty when no token is involved
	nonce       string
	timestamp   int64
	callback    string // request-token step only
	verifier    string // access-token step only
	version     string // "1.0"; empty omits oauth_version (RFC 5849's own examples do)
}

// signatureBase builds the RFC 5849 section 3.4.1 base string: method, base
// string URI and the normalized parameters (query, form body and oauth_*).
func signatureBase(method string, u *url.URL, form url.Values, p oauthParams) string {
	var pairs [][2]string
	add := func(k, v string) { pairs = append(pairs, [2]string{Escape(k), Escape(v)}) }
	for k, vs := range u.Query() {
		for _, v := range vs {
			add(k, v)
		}
	}
	for k, vs := range form {
		for _, v := range vs {
			add(k, v)
		}
	}
	for k, v := range p.headerParams() {
		add(k, v)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	var norm strings.Builder
	for i, p := range pairs {
		if i > 0 {
			norm.WriteByte('&')
		}
		norm.WriteString(p[0])
		norm.WriteByte('=')
		norm.WriteString(p[1])
	}
	return strings.ToUpper(method) + "&" + Escape(baseStringURI(u)) + "&" + Escape(norm.String())
}

// baseStringURI is scheme://host[:port]/path with scheme and host lowercased
// and default ports dropped (RFC 5849 section 3.4.1.2).
func baseStringURI(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if port := u.Port(); port != "" && !(scheme == "http" && port == "80") && !(scheme == "https" && port == "443") {
		host += ":" + port
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path
}

// headerParams are the oauth_* parameters other than the signature.
func (p oauthParams) headerParams() map[string]string {
	m := map[string]string{
		"oauth_consumer_key":     p.consumerKey,
		"oauth_nonce":            p.nonce,
		"oauth_signature_method": "HMAC-SHA1",
		"oauth_timestamp":        strconv.FormatInt(p.timestamp, 10),
	}
	if p.version != "" {
		m["oauth_version"] = p.version
	}
	if p.token != "" {
		m["oauth_token"] = p.token
	}
	if p.callback != "" {
		m["oauth_callback"] = p.callback
	}
	if p.verifier != "" {
		m["oauth_verifier"] = p.verifier
	}
	return m
}

// sign returns the HMAC-SHA1 signature of base.
func sign(base, consumerSecret, tokenSecret string) string {
	mac := hmac.New(sha1.New, []byte(Escape(consumerSecret)+"&"+Escape(tokenSecret)))
	mac.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// authorizationHeader renders the OAuth header with its values percent-encoded.
func authorizationHeader(p oauthParams, signature string) string {
	m := p.headerParams()
	m["oauth_signature"] = signature
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("OAuth ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Escape(k))
		b.WriteString(`="`)
		b.WriteString(Escape(m[k]))
		b.WriteByte('"')
	}
	return b.String()
}

// newNonce returns 32 random alphanumeric characters (ASCII only, as the
// service requires).
func newNonce() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// SignRequest computes the Authorization header for a request. form holds
// the form-encoded body parameters (nil for none or for JSON bodies, which
// are not signed). tok may be nil.
func SignRequest(method string, u *url.URL, form url.Values, creds Credentials, tok *Token, now time.Time, extra ...func(*oauthParams)) string {
	p := oauthParams{consumerKey: creds.ConsumerKey, nonce: newNonce(), timestamp: now.Unix(), version: "1.0"}
	tokenSecret := ""
	if tok != nil {
		p.token, tokenSecret = tok.Token, tok.Secret
	}
	for _, f := range extra {
		f(&p)
	}
	return authorizationHeader(p, sign(signatureBase(method, u, form, p), creds.ConsumerSecret, tokenSecret))
}

// withCallback adds oauth_callback (request-token step).
func withCallback(cb string) func(*oauthParams) { return func(p *oauthParams) { p.callback = cb } }

// withVerifier adds oauth_verifier (access-token step).
func withVerifier(v string) func(*oauthParams) { return func(p *oauthParams) { p.verifier = v } }
