package api_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

type notFoundFile struct{}

func (notFoundFile) Error() string   { return "no such batch" }
func (notFoundFile) Permanent() bool { return true }

func TestExplainSaysWhatEveryErrorMeans(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(time.Minute)
	for _, tc := range []struct {
		err     error
		verdict api.Verdict
		status  int
		code    string
	}{
		{&api.AdsError{Status: 404, Errors: []api.AdsErrorDetail{{Code: "NOT_FOUND"}}}, api.Final, 404, "NOT_FOUND"},
		{fmt.Errorf("campaigns account x: %w", &api.AdsError{Status: 403}), api.Final, 403, ""},
		{&api.OAuthError{Status: 401, Code: 89}, api.Final, 401, "89"},
		{&api.OAuthError{Status: 401, Code: 32}, api.Final, 401, "32"},
		{&api.ProblemError{Status: 400, Problem: api.Problem{Type: "about:blank"}}, api.Final, 400, "about:blank"},
		{&api.BatchError{Errors: []api.OperationError{{Code: "INVALID_USERS"}}}, api.Final, 400, "INVALID_USERS"},
		{notFoundFile{}, api.Final, 0, ""},
		{&api.AdsError{Status: 429}, api.Retry, 429, ""},
		{&api.AdsError{Status: 500}, api.Retry, 500, ""},
		{&api.OAuthError{Status: 503, Code: 130}, api.Retry, 503, "130"},
		{&api.HTTPError{Status: 502}, api.Retry, 502, ""},
		{&api.HTTPError{Status: 408}, api.Retry, 408, ""},
		{&api.TransportError{Endpoint: "GET /x", Err: errors.New("connection reset")}, api.Retry, 0, ""},
		{errors.New("conn closed"), api.Retry, 0, ""},
		{context.DeadlineExceeded, api.Retry, 0, ""},
		{fmt.Errorf("page 3: %w", &api.RetryAtError{At: at}), api.WaitUntil, 429, ""},
	} {
		m := api.Explain(tc.err)
		require.Equal(t, tc.verdict, m.Verdict, "%v", tc.err)
		require.Equal(t, tc.status, m.Status, "%v", tc.err)
		require.Equal(t, tc.code, m.Code, "%v", tc.err)
		if tc.verdict == api.WaitUntil {
			require.Equal(t, at, m.At)
		}
	}
}
