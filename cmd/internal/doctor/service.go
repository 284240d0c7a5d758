package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
)

// checkService makes one call signed with the user's token and one with
// the app-only bearer token (api.ProbeService), and compares this
// machine's clock with their answers' Date headers: the service, bearer
// and clock checks.
func (d doctor) checkService(ctx context.Context, pool *pgxpool.Pool) []check {
	svc, bearer := check{name: "service"}, check{name: "bearer"}
	cfg, err := d.APIConfig(ctx, pool)
	if undecryptable := (*api.UndecryptableTokenError)(nil); errors.As(err, &undecryptable) {
		svc.status, svc.found, svc.todo = statusFail, undecryptable.Error(), undecryptable.WayOut()
		bearer.status, bearer.found = statusSkip, "needs the stored user token readable"
		return []check{svc, bearer, checkClock(0, 0)}
	}
	if err != nil {
		svc.status, svc.found = statusFail, err.Error()
		bearer.status, bearer.found = statusSkip, "needs the service configured"
		return []check{svc, bearer, checkClock(0, 0)}
	}
	p, err := api.ProbeService(ctx, cfg, timeout)
	if err != nil {
		svc.status, svc.found = statusFail, err.Error()
		svc.todo = "correct " + d.from("api.url") + " and " + d.from("api.ads_url")
		bearer.status, bearer.found = statusSkip, "needs the service configured"
		return []check{svc, bearer, checkClock(0, 0)}
	}
	switch {
	case !p.Signed && pool == nil && d.Config.SecretKey != "":
		// A token stored by adsync auth login is in the database, which
		// failed its check: that, not the token, is what to fix.
		svc.status, svc.found = statusSkip, "needs the database: a token stored by adsync auth login is kept there"
	case !p.Signed:
		svc.status, svc.found = statusFail, "no user access token: signed calls cannot be made"
		svc.todo = "run adsync auth login (stores a token; needs secret_key), or set ADSYNC_ACCESS_TOKEN and ADSYNC_ACCESS_SECRET"
	case p.AccountsErr != nil:
		svc.status, svc.found, svc.todo = statusFail, p.AccountsErr.Error(), d.serviceAdvice(p.AccountsErr, "api.ads_url")
	default:
		reach := fmt.Sprintf("%d accounts", p.Accounts)
		if p.More {
			reach = "at least " + reach + " (one page read)"
		}
		svc.status = statusOK
		svc.found = fmt.Sprintf("%s answered a signed GET /12/accounts: these credentials reach %s", cfg.AdsURL, reach)
	}
	if p.BearerErr != nil {
		bearer.status, bearer.found, bearer.todo = statusFail, p.BearerErr.Error(), d.serviceAdvice(p.BearerErr, "api.url")
	} else {
		bearer.status, bearer.found = statusOK, "app-only bearer token obtained and accepted by GET /2/posts"
	}
	return []check{svc, bearer, checkClock(p.Skew, p.Dates)}
}

// serviceAdvice says what to do about a failed call to the base at key.
func (d doctor) serviceAdvice(err error, key string) string {
	var terr *api.TransportError
	var rerr *api.RetryAtError
	switch {
	case errors.As(err, &terr), errors.Is(err, context.DeadlineExceeded):
		return "the service did not answer: check " + d.from(key) + " and the network"
	case errors.Is(err, api.ErrTimestampOutOfBounds):
		return "this machine's clock is off (see clock): synchronize it (NTP, e.g. timedatectl set-ntp true)"
	case errors.Is(err, api.ErrInvalidToken):
		return "the access token was revoked or expired: run adsync auth login, or set a valid ADSYNC_ACCESS_TOKEN and ADSYNC_ACCESS_SECRET"
	case errors.Is(err, api.ErrCouldNotAuthenticate), errors.Is(err, api.ErrBadAuthData):
		return "the service refused the credentials: check " + d.from("api.consumer_key") + ", " + d.from("api.consumer_secret") +
			", " + d.from("api.access_token") + " and " + d.from("api.access_secret")
	case errors.As(err, &rerr):
		return d.rateAdvice(rerr)
	}
	var oe *api.OAuthError
	if errors.As(err, &oe) && (oe.Status == http.StatusUnauthorized || oe.Status == http.StatusForbidden) {
		return "the service refused the application credentials: check " + d.from("api.consumer_key") + " and " + d.from("api.consumer_secret")
	}
	return "check " + d.from(key)
}

// rateAdvice says what to do about a call held back or refused for its
// rate.
func (d doctor) rateAdvice(rerr *api.RetryAtError) string {
	at := rerr.At.UTC().Format(time.RFC3339)
	switch {
	case rerr.HeldBack:
		// Nothing was sent: these very credentials were answered 403 code
		// 99 earlier (changed credentials are not held back).
		return "no bearer token request was sent: this consumer key and secret were answered 403 code 99 earlier (a wrong key or secret, or tokens requested too often); check " +
			d.from("api.consumer_key") + " and " + d.from("api.consumer_secret") + " (corrected credentials are not held back), else try again after " + at
	case rerr.Endpoint == "POST /oauth2/token":
		// The service answers 403 code 99 "Unable to verify your
		// credentials" both to a wrong key or secret and to requests
		// that come too often.
		return "the service refused the bearer token request (403 code 99): check " + d.from("api.consumer_key") + " and " +
			d.from("api.consumer_secret") + "; if they are right, tokens were requested too often: try again after " + at
	}
	return "rate limited: try again after " + at
}

// checkClock compares this machine's clock with the service's: skew is
// the service's minus this machine's, over n answers' Date headers.
func checkClock(skew time.Duration, n int) check {
	c := check{name: "clock"}
	if n == 0 {
		c.status, c.found = statusSkip, "no answer from the service carried a Date header to compare with"
		return c
	}
	abs, ahead := skew, "ahead of"
	if skew < 0 {
		abs, ahead = -skew, "behind"
	}
	c.found = fmt.Sprintf("the service's clock is %s %s this machine's (Date header, 1s resolution)", abs.Round(time.Second), ahead)
	if abs < time.Second {
		c.found = "the service's clock agrees with this machine's within a second (Date header)"
	}
	switch {
	case abs >= ClockFail:
		c.status = statusFail
		c.todo = fmt.Sprintf("signed calls fail past %s of skew: synchronize this machine's clock (NTP, e.g. timedatectl set-ntp true)", ClockFail)
	case abs >= ClockWarn:
		c.status = statusWarn
		c.todo = fmt.Sprintf("signed calls still pass, and fail past %s: synchronize this machine's clock (NTP)", ClockFail)
	default:
		c.status = statusOK
	}
	return c
}
