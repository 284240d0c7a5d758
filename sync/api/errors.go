package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinels for the service's numeric OAuth and platform codes (spec
// document 1, Errors, and the codes the service publicly uses). An
// *OAuthError matches the sentinel of its code with errors.Is.
var (
	ErrCouldNotAuthenticate = errors.New("could not authenticate (code 32)")
	ErrRateLimited          = errors.New("rate limit exceeded (code 88)")
	ErrInvalidToken         = errors.New("invalid or expired token (code 89)")
	ErrBearerTooFrequent    = errors.New("bearer token requested too frequently (code 99)")
	ErrTimestampOutOfBounds = errors.New("oauth timestamp out of bounds (code 135)")
	ErrBadAuthData          = errors.New("bad authentication data (code 215)")
	ErrNoAccess             = errors.New("credentials do not allow access to this resource (code 220)")
)

var codeSentinels = map[int]error{
	32: ErrCouldNotAuthenticate, 88: ErrRateLimited, 89: ErrInvalidToken, 99: ErrBearerTooFrequent,
	135: ErrTimestampOutOfBounds, 215: ErrBadAuthData, 220: ErrNoAccess,
}

// ErrNotFound matches any 404 answer.
var ErrNotFound = errors.New("not found")

// OAuthError is the spec's numeric error object: {"errors":[{"code":N,"message":...}]}.
type OAuthError struct {
	Status   int
	Code     int
	Message  string
	Endpoint string
}

func (e *OAuthError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %d: code %d: %s", e.Endpoint, e.Status, e.Code, e.Message)
	if fix := e.Fix(); fix != "" {
		msg += " (" + fix + ")"
	}
	return msg
}

// codeFixes says, for the codes a user can act on, what the code means and
// what to do about it.
var codeFixes = map[int]string{
	32: "the service refused the request's signature: check the application's consumer key and consumer secret " +
		"(they must be the pair of one application) and, for calls signed with a user token, the access token and secret",
	89: "the access token was revoked or has expired: run adsync auth login to get a new one",
	135: "the request's timestamp is too far from the service's clock: this machine's clock is off; " +
		"run adsync doctor to measure the offset, and sync the clock (NTP)",
}

// Fix says what the error's code means and how to fix it, or "" when the
// code is not one a user can act on.
func (e *OAuthError) Fix() string { return codeFixes[e.Code] }

// Is matches the sentinel of the error's code, and ErrNotFound for 404s.
func (e *OAuthError) Is(target error) bool {
	if target == ErrNotFound {
		return e.Status == 404
	}
	return codeSentinels[e.Code] == target && target != nil
}

// AdsErrorDetail is one entry of an advertising error answer.
type AdsErrorDetail struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Parameter string `json:"parameter,omitempty"`
}

// AdsError is an advertising interface error: string codes, optionally the
// parameter at fault.
type AdsError struct {
	Status   int
	Errors   []AdsErrorDetail
	Endpoint string
}

func (e *AdsError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, d := range e.Errors {
		parts[i] = d.Code + ": " + d.Message
		if d.Parameter != "" {
			parts[i] += " (parameter " + d.Parameter + ")"
		}
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Endpoint, e.Status, strings.Join(parts, "; "))
}

// Is matches ErrNotFound for 404s.
func (e *AdsError) Is(target error) bool { return target == ErrNotFound && e.Status == 404 }

// HasCode reports whether any entry carries code.
func (e *AdsError) HasCode(code string) bool {
	for _, d := range e.Errors {
		if d.Code == code {
			return true
		}
	}
	return false
}

// OperationError is an item-level failure of a batch call; Index points to
// the input item.
type OperationError struct {
	Index     int    `json:"index"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Parameter string `json:"parameter,omitempty"`
}

// BatchError reports the item-level failures of a batch call. Batches
// succeed or fail as a group.
type BatchError struct {
	Endpoint string
	Errors   []OperationError
}

func (e *BatchError) Error() string {
	parts := make([]string, 0, len(e.Errors))
	for i, oe := range e.Errors {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Errors)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("item %d: %s: %s", oe.Index, oe.Code, oe.Message))
	}
	return fmt.Sprintf("%s: batch refused: %s", e.Endpoint, strings.Join(parts, "; "))
}

// ByIndex returns the failures of one input item.
func (e *BatchError) ByIndex(i int) []OperationError {
	var out []OperationError
	for _, oe := range e.Errors {
		if oe.Index == i {
			out = append(out, oe)
		}
	}
	return out
}

// Problem is a v2 problem (the v2 error format).
type Problem struct {
	Title        string         `json:"title,omitempty"`
	Detail       string         `json:"detail,omitempty"`
	Type         string         `json:"type,omitempty"`
	Status       int            `json:"status,omitempty"`
	Message      string         `json:"message,omitempty"`
	Value        string         `json:"value,omitempty"`
	Parameter    string         `json:"parameter,omitempty"`
	ResourceType string         `json:"resource_type,omitempty"`
	ResourceID   string         `json:"resource_id,omitempty"`
	Parameters   map[string]any `json:"parameters,omitempty"`
}

// ProblemError is a failed v2 request.
type ProblemError struct {
	Status   int
	Problem  Problem
	Errors   []Problem
	Endpoint string
}

func (e *ProblemError) Error() string {
	msg := e.Problem.Detail
	if msg == "" {
		msg = e.Problem.Title
	}
	for _, p := range e.Errors {
		if p.Message != "" {
			msg += "; " + p.Message
		}
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Endpoint, e.Status, msg)
}

// Is matches ErrNotFound for 404s.
func (e *ProblemError) Is(target error) bool { return target == ErrNotFound && e.Status == 404 }

// HTTPError is any other unsuccessful answer.
type HTTPError struct {
	Status   int
	Endpoint string
	Body     string // at most 200 bytes, for diagnosis
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Endpoint, e.Status, e.Body)
}

// Is matches ErrNotFound for 404s.
func (e *HTTPError) Is(target error) bool { return target == ErrNotFound && e.Status == 404 }

// RetryAtError says a request must not be sent before At (rate limit window
// exhausted, 429, 503 Retry-After, or bearer requests throttled). The job
// layer turns it into a River snooze instead of a failed attempt.
type RetryAtError struct {
	At       time.Time
	Reason   string
	Endpoint string
	// HeldBack says no request was sent: an earlier answer to the same
	// credentials (403 code 99) holds them back until At.
	HeldBack bool
}

func (e *RetryAtError) Error() string {
	return fmt.Sprintf("%s: %s: retry at %s", e.Endpoint, e.Reason, e.At.UTC().Format(time.RFC3339))
}

// Is lets errors.Is(err, ErrRateLimited) find rate-limit waits.
func (e *RetryAtError) Is(target error) bool { return target == ErrRateLimited }

// Wait is how long from now until At.
func (e *RetryAtError) Wait(now time.Time) time.Duration { return max(e.At.Sub(now), 0) }

// decodeError turns an unsuccessful answer into the typed error its body
// describes. It never includes request headers or secrets.
func decodeError(status int, endpoint string, body []byte) error {
	var probe struct {
		Errors json.RawMessage `json:"errors"`
		Title  string          `json:"title"`
		Type   string          `json:"type"`
		Detail string          `json:"detail"`
		// Batch calls put item failures here (spec document 2, Errors).
		OperationErrors json.RawMessage `json:"operation_errors"`
	}
	_ = json.Unmarshal(body, &probe)
	if len(probe.OperationErrors) > 0 && string(probe.OperationErrors) != "null" {
		// Only the item failures are decoded: request echoes differ by call.
		var b Batch[json.RawMessage]
		wrapped := append(append([]byte(`{"operation_errors":`), probe.OperationErrors...), '}')
		if json.Unmarshal(wrapped, &b) == nil && len(b.OperationErrors) > 0 {
			return &BatchError{Endpoint: endpoint, Errors: b.OperationErrors}
		}
	}
	if len(probe.Errors) > 0 {
		var numeric []struct {
			Code    json.Number `json:"code"`
			Message string      `json:"message"`
		}
		if json.Unmarshal(probe.Errors, &numeric) == nil && len(numeric) > 0 {
			if n, err := numeric[0].Code.Int64(); err == nil && numeric[0].Code != "" {
				return &OAuthError{Status: status, Code: int(n), Message: numeric[0].Message, Endpoint: endpoint}
			}
		}
		var ads []AdsErrorDetail
		if json.Unmarshal(probe.Errors, &ads) == nil && len(ads) > 0 && ads[0].Code != "" {
			return &AdsError{Status: status, Errors: ads, Endpoint: endpoint}
		}
	}
	if probe.Title != "" || probe.Type != "" {
		pe := &ProblemError{Status: status, Endpoint: endpoint}
		_ = json.Unmarshal(body, &pe.Problem)
		var list []Problem
		if json.Unmarshal(probe.Errors, &list) == nil {
			pe.Errors = list
		}
		return pe
	}
	snippet := string(body)
	if len(snippet) > 200 {
		snippet = snippet[:200]
	}
	return &HTTPError{Status: status, Endpoint: endpoint, Body: strings.TrimSpace(snippet)}
}
