package api

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// This file holds the OAuth 1.0a three-legged flow (spec document 1,
// Endpoints, OAuth 1.0a): request token, the browser authorization URL,
// the access-token exchange, and invalidation of user access tokens.

// ErrMissingVerifier means the access-token step was attempted without a
// verifier. OAuth 1.0a is strictly enforced: the service fails such a flow,
// so it is refused before anything is sent.
var ErrMissingVerifier = errors.New("oauth_verifier is required (the PIN, or the verifier of the callback)")

// Access types of svc_auth_access_type.
const (
	AccessRead  = "read"
	AccessWrite = "write"
)

// RequestToken obtains a request token: POST oauth/request_token, signed
// with the consumer credentials, oauth_callback in the OAuth header (a URL,
// or "oob" for PIN mode). accessType ("", "read" or "write") lowers the
// requested access level through svc_auth_access_type.
func RequestToken(ctx context.Context, c *Client, callback, accessType string) (Token, error) {
	const endpoint = "POST /oauth/request_token"
	if callback == "" {
		return Token{}, errors.New(endpoint + ": oauth_callback is required (a URL, or oob)")
	}
	var form url.Values
	switch accessType {
	case "":
	case AccessRead, AccessWrite:
		form = url.Values{"svc_auth_access_type": {accessType}}
	default:
		return Token{}, fmt.Errorf("%s: access type %q: must be read or write", endpoint, accessType)
	}
	resp, err := c.Do(ctx, &Request{Method: "POST", Base: BaseAPI, Path: "/oauth/request_token", Endpoint: endpoint,
		Form: form, Auth: AuthConsumer, OAuthCallback: callback})
	var oe *OAuthError
	if errors.As(err, &oe) && oe.Code == codeCallbackNotApproved {
		return Token{}, &CallbackNotApprovedError{Callback: callback, Err: err}
	}
	if err != nil {
		return Token{}, err
	}
	v, err := parseFormResponse(endpoint, resp.Body, "oauth_token", "oauth_token_secret")
	if err != nil {
		return Token{}, err
	}
	if v.Get("oauth_callback_confirmed") != "true" {
		return Token{}, errors.New(endpoint + ": the service did not confirm the callback (oauth_callback_confirmed is not true)")
	}
	return Token{Token: v.Get("oauth_token"), Secret: v.Get("oauth_token_secret")}, nil
}

// codeCallbackNotApproved is the service's answer to an oauth_callback that
// is not among the application's configured callback URLs (403 code 415;
// the spec says the callback must be one of them, the code is the real
// service's).
const codeCallbackNotApproved = 415

// CallbackNotApprovedError is a request-token refusal of the callback URL:
// it names the URL sent (never a secret) so it can be compared with the
// application's settings.
type CallbackNotApprovedError struct {
	Callback string
	Err      error
}

func (e *CallbackNotApprovedError) Error() string {
	return fmt.Sprintf("%v (callback URL sent: %s; it must be one of the callback URLs configured in the application's settings)", e.Err, e.Callback)
}

func (e *CallbackNotApprovedError) Unwrap() error { return e.Err }

// AuthorizeOptions shape the authorization URL.
type AuthorizeOptions struct {
	// Authenticate uses oauth/authenticate, which redirects without asking
	// again when the user already granted access (the application's sign-in
	// setting must be on); otherwise oauth/authorize, which always asks.
	Authenticate bool
	// ForceLogin makes the user enter credentials even when logged in.
	ForceLogin bool
	// ScreenName prefills the login name box.
	ScreenName string
}

// AuthorizeURL is the page the user opens in a browser to approve the
// request token. oauth_callback is never sent here: the service knows it
// from the request-token step.
func AuthorizeURL(c *Client, requestToken string, opts AuthorizeOptions) string {
	path := "/oauth/authorize"
	if opts.Authenticate {
		path = "/oauth/authenticate"
	}
	q := url.Values{"oauth_token": {requestToken}}
	if opts.ForceLogin {
		q.Set("force_login", "true")
	}
	if opts.ScreenName != "" {
		q.Set("screen_name", strings.TrimPrefix(opts.ScreenName, "@"))
	}
	return strings.TrimRight(c.BaseURL(BaseAPI), "/") + path + "?" + encodeValues(q)
}

// AccessToken exchanges an approved request token and its verifier for the
// user's access token: POST oauth/access_token, signed with the consumer
// credentials and the request token, oauth_verifier in the OAuth header.
// AccessType of the result is left empty: the response does not say it.
func AccessToken(ctx context.Context, c *Client, requestToken Token, verifier string) (UserToken, error) {
	const endpoint = "POST /oauth/access_token"
	verifier = strings.TrimSpace(verifier)
	if verifier == "" {
		return UserToken{}, fmt.Errorf("%s: %w", endpoint, ErrMissingVerifier)
	}
	if requestToken.Token == "" {
		return UserToken{}, errors.New(endpoint + ": no request token")
	}
	resp, err := c.Do(ctx, &Request{Method: "POST", Base: BaseAPI, Path: "/oauth/access_token", Endpoint: endpoint,
		Auth: AuthUser, Token: &requestToken, OAuthVerifier: verifier})
	if err != nil {
		return UserToken{}, err
	}
	v, err := parseFormResponse(endpoint, resp.Body, "oauth_token", "oauth_token_secret", "user_id")
	if err != nil {
		return UserToken{}, err
	}
	return UserToken{Token: v.Get("oauth_token"), Secret: v.Get("oauth_token_secret"),
		UserID: v.Get("user_id"), ScreenName: v.Get("screen_name")}, nil
}

// InvalidateUserToken revokes a user access token: POST
// 1.1/oauth/invalidate_token, signed with that token. Later use of the token
// answers 401 code 89 (ErrInvalidToken), and so does invalidating it again.
func InvalidateUserToken(ctx context.Context, c *Client, tok Token) error {
	if tok.Token == "" {
		return errors.New("POST /1.1/oauth/invalidate_token: no token to invalidate")
	}
	_, err := c.Do(ctx, &Request{Method: "POST", Base: BaseAPI, Path: "/1.1/oauth/invalidate_token",
		Endpoint: "POST /1.1/oauth/invalidate_token", Auth: AuthUser, Token: &tok})
	return err
}

// parseFormResponse decodes a form-encoded token response and checks that
// the required fields are present. Its errors never quote the body, which
// holds secrets.
func parseFormResponse(endpoint string, body []byte, required ...string) (url.Values, error) {
	v, err := url.ParseQuery(strings.TrimSpace(string(body)))
	if err != nil {
		return nil, errors.New(endpoint + ": the response is not form-encoded")
	}
	for _, k := range required {
		if v.Get(k) == "" {
			return nil, fmt.Errorf("%s: the response lacks %s", endpoint, k)
		}
	}
	return v, nil
}
