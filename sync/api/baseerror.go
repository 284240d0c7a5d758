package api

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// String is the base's name in messages ("API", "ads", "sandbox ads").
func (b Base) String() string {
	switch b {
	case BaseAds:
		return "ads"
	case BaseSandbox:
		return "sandbox ads"
	}
	return "API"
}

// BaseError says a base URL is wrong: nothing listens at it (the
// connection was refused or the host is unknown before the base ever
// answered) or its path is wrong (a 404 that is not the service's error
// envelope). It names the request's full URL, without its query; the
// command layer adds the setting the base came from.
type BaseError struct {
	Base    Base
	BaseURL string
	URL     string
	Err     error // the *TransportError or *HTTPError
	// Origin says where the base URL was set (Config.BaseOrigins).
	Origin string
}

func (e *BaseError) Error() string {
	origin := ""
	if e.Origin != "" {
		origin = " (" + e.Origin + ")"
	}
	var he *HTTPError
	if errors.As(e.Err, &he) {
		return fmt.Sprintf("%s: HTTP 404 at %s, without the service's error body: check the path of the %s base URL %s%s",
			he.Endpoint, e.URL, e.Base, e.BaseURL, origin)
	}
	var te *TransportError
	cause, endpoint := e.Err.Error(), ""
	if errors.As(e.Err, &te) {
		endpoint = te.Endpoint + ": "
		cause = te.Err.Error()
	}
	var dns *net.DNSError
	switch {
	case errors.Is(e.Err, syscall.ECONNREFUSED):
		cause = "connection refused"
	case errors.As(e.Err, &dns):
		cause = "no such host " + dns.Name
	}
	return fmt.Sprintf("%s%s at %s: check the %s base URL%s", endpoint, cause, e.URL, e.Base, origin)
}

// Permanent: the base has never answered this client, so it is taken for
// a wrong setting rather than an outage (a call that worked before is
// retried instead, see Client.Do).
func (e *BaseError) Permanent() bool { return true }

func (e *BaseError) Unwrap() error { return e.Err }

// unreachable is a *BaseError when terr says nothing listens at req's
// base and the base has never answered this client (a call that worked
// before is retried instead); else nil.
func (c *Client) unreachable(req *Request, terr *TransportError) error {
	if c.answered[req.Base].Load() {
		return nil
	}
	var dns *net.DNSError
	if !errors.Is(terr, syscall.ECONNREFUSED) && !(errors.As(terr, &dns) && dns.IsNotFound) {
		return nil
	}
	return c.baseError(req, terr)
}

// wrongBase turns a 404 that is not the service's error envelope into a
// *BaseError: the service answers every path under a right base with its
// envelope, so such a 404 comes from a wrong path before it.
func (c *Client) wrongBase(req *Request, err error) error {
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 404 {
		return err
	}
	return c.baseError(req, err)
}

func (c *Client) baseError(req *Request, err error) error {
	base := c.baseURL(req.Base)
	full := strings.TrimRight(base, "/") + req.Path
	if u, perr := url.Parse(full); perr == nil {
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		full = u.String()
	}
	if u, perr := url.Parse(base); perr == nil {
		u.User = nil
		base = u.String()
	}
	return &BaseError{Base: req.Base, BaseURL: base, URL: full, Err: err, Origin: c.cfg.BaseOrigins[req.Base]}
}
