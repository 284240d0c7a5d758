package api

import (
	"context"
	"errors"
	"fmt"
)

// RevokeBearerToken invalidates the application's bearer token (the cached
// one, else the outstanding one: the service answers a repeated token
// request with the same value) and drops it from the cache. The call is
// signed with the client's user token, which must be the application
// owner's. It returns the token, for a masked mention, and whether the
// service already held it invalid.
func RevokeBearerToken(ctx context.Context, c *Client) (token string, already bool, err error) {
	tok, err := c.Bearer().Token(ctx, c)
	if err != nil {
		return "", false, err
	}
	err = InvalidateBearerToken(ctx, c, tok)
	if errors.Is(err, ErrNoAccess) {
		return "", false, fmt.Errorf("%w: the call was signed with the access token of %s, and only a token of the application's owner may invalidate the bearer token: sign in as the owner (adsync auth login) or configure the owner's ADSYNC_ACCESS_TOKEN and ADSYNC_ACCESS_SECRET", err, c.UserTokenHolder())
	}
	already = errors.Is(err, ErrInvalidToken)
	if err != nil && !already {
		return "", false, err
	}
	c.Bearer().Invalidate(ctx, c, tok)
	return tok, already, nil
}

// MaskToken shows only a token's last four characters (none of a token of
// eight or fewer), for messages that must say which token they mean.
func MaskToken(tok string) string {
	if len(tok) <= 8 {
		return "…"
	}
	return "…" + tok[len(tok)-4:]
}
