package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// Verdict is what an error means to whoever may try the work again.
type Verdict int

// The verdicts. Every pipeline acts on these; none looks at statuses or
// codes itself.
const (
	// Retry: a later attempt may succeed (no answer came, a 5xx, a failure
	// of our own such as a lost database connection).
	Retry Verdict = iota
	// WaitUntil: the service said when to come back (a rate-limit window,
	// a 429, a 503 with Retry-After); waiting for it is not a failure.
	WaitUntil
	// Final: the same request would get the same answer (a 4xx other than
	// 429, credentials the service refuses, a refused batch, bad input).
	Final
)

func (v Verdict) String() string {
	switch v {
	case WaitUntil:
		return "wait"
	case Final:
		return "final"
	}
	return "retry"
}

// Meaning is what Explain says of an error.
type Meaning struct {
	Verdict Verdict
	// At is when to try again, with WaitUntil.
	At time.Time
	// Status is the service's HTTP status (0 when no answer came).
	Status int
	// Code is the service's error code, if it gave one ("32", "NOT_FOUND").
	Code string
	// Fix says what the code means and what to do about it, when a user can
	// act on it (wrong credentials, a revoked token, a skewed clock).
	Fix string
}

// Permanent is implemented by errors, of this package or of a pipeline,
// that no retry can change (a batch the service refused, a missing input).
type Permanent interface {
	Permanent() bool
}

// Explain says what err means: the one place that reads statuses and codes
// to decide whether to retry, wait or give up.
func Explain(err error) Meaning {
	var (
		rae  *RetryAtError
		te   *TransportError
		oe   *OAuthError
		ae   *AdsError
		pe   *ProblemError
		he   *HTTPError
		be   *BatchError
		perm Permanent
	)
	switch {
	case err == nil:
		return Meaning{Verdict: Retry}
	case errors.As(err, &rae):
		return Meaning{Verdict: WaitUntil, At: rae.At, Status: http.StatusTooManyRequests}
	case errors.As(err, new(*SwitchUserError)):
		// Another user's token takes the work over at once.
		return Meaning{Verdict: WaitUntil, At: time.Now()}
	case errors.As(err, &perm) && perm.Permanent():
		return Meaning{Verdict: Final}
	case errors.As(err, &be):
		return Meaning{Verdict: Final, Status: http.StatusBadRequest, Code: firstOperationCode(be)}
	case errors.As(err, &te):
		return Meaning{Verdict: Retry}
	case errors.As(err, &oe):
		m := byStatus(oe.Status, strconv.Itoa(oe.Code))
		m.Fix = oe.Fix()
		return m
	case errors.As(err, &ae):
		code := ""
		if len(ae.Errors) > 0 {
			code = ae.Errors[0].Code
		}
		return byStatus(ae.Status, code)
	case errors.As(err, &pe):
		return byStatus(pe.Status, pe.Problem.Type)
	case errors.As(err, &he):
		return byStatus(he.Status, "")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Meaning{Verdict: Retry}
	}
	return Meaning{Verdict: Retry}
}

// byStatus is the verdict of an answer the client did not turn into a
// wait: a 429 without a known reset is retried later, as is a 5xx; any
// other 4xx is final.
func byStatus(status int, code string) Meaning {
	m := Meaning{Verdict: Retry, Status: status, Code: code}
	if status >= 400 && status < 500 && status != http.StatusTooManyRequests && status != http.StatusRequestTimeout {
		m.Verdict = Final
	}
	return m
}

func firstOperationCode(be *BatchError) string {
	if len(be.Errors) > 0 {
		return be.Errors[0].Code
	}
	return ""
}
