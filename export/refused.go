package export

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// EndpointRefusedError is an object store whose endpoint refused the
// connection: nothing listens at that host and port. It names the endpoint
// only by host and port (an endpoint URL's user info or query are never
// shown).
type EndpointRefusedError struct {
	// Endpoint is the host:port that refused.
	Endpoint string
	// NoCredentials: the AWS SDK found no credentials either (it stopped
	// there, and the endpoint was dialled to say why it would fail anyway).
	NoCredentials bool
	err           error
}

func (e *EndpointRefusedError) Error() string {
	msg := fmt.Sprintf("the S3 endpoint %s refused the connection: start the S3 server there, or correct endpoint= in the output URL", e.Endpoint)
	if e.NoCredentials {
		msg += "; no AWS credentials were found either: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or add them to ~/.aws"
	}
	return msg
}

func (e *EndpointRefusedError) Unwrap() error { return e.err }

// refusedDialTimeout bounds the dial that tells a refused endpoint from
// missing credentials.
const refusedDialTimeout = 2 * time.Second

// refused returns an *EndpointRefusedError when err is a refused
// connection, or when the SDK found no credentials (so never dialled) and
// the URL's endpoint refuses a connection now; else nil.
func (p *prefix) refused(err error) error {
	var op *net.OpError
	if errors.Is(err, syscall.ECONNREFUSED) {
		addr := p.endpoint
		if errors.As(err, &op) && op.Addr != nil {
			addr = op.Addr.String()
		}
		return &EndpointRefusedError{Endpoint: addr, err: err}
	}
	if p.endpoint == "" || !strings.Contains(err.Error(), "get credentials") {
		return nil
	}
	c, derr := net.DialTimeout("tcp", p.endpoint, refusedDialTimeout)
	if derr == nil {
		_ = c.Close()
		return nil
	}
	if errors.Is(derr, syscall.ECONNREFUSED) {
		return &EndpointRefusedError{Endpoint: p.endpoint, NoCredentials: true, err: err}
	}
	return nil
}

// endpointAddr is the host:port of an endpoint URL (its scheme's port when
// it names none), or "" when there is none or it does not parse.
func endpointAddr(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	if port := u.Port(); port != "" {
		return net.JoinHostPort(u.Hostname(), port)
	}
	if u.Scheme == "http" {
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return net.JoinHostPort(u.Hostname(), "443")
}
