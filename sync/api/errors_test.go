package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodeErrorTurnsEveryBodyShapeIntoItsType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   string
		check  func(t *testing.T, err error)
	}{
		{"oauth numeric code 89", 401, `{"errors":[{"code":89,"message":"Invalid or expired token."}]}`, func(t *testing.T, err error) {
			var oe *OAuthError
			require.ErrorAs(t, err, &oe)
			require.Equal(t, 89, oe.Code)
			require.ErrorIs(t, err, ErrInvalidToken)
			require.NotErrorIs(t, err, ErrRateLimited)
		}},
		{"oauth numeric code 99", 403, `{"errors":[{"code":99,"message":"Unable to verify your credentials"}]}`, func(t *testing.T, err error) {
			require.ErrorIs(t, err, ErrBearerTooFrequent)
		}},
		{"each documented oauth code has its sentinel", 401, `{"errors":[{"code":135,"message":"Timestamp out of bounds."}]}`, func(t *testing.T, err error) {
			require.ErrorIs(t, err, ErrTimestampOutOfBounds)
		}},
		{"ads string code with parameter", 400, `{"errors":[{"code":"INVALID_PARAMETER","message":"count must be at most 1000","parameter":"count"}],"request":{"params":{}}}`, func(t *testing.T, err error) {
			var ae *AdsError
			require.ErrorAs(t, err, &ae)
			require.True(t, ae.HasCode("INVALID_PARAMETER"))
			require.Equal(t, "count", ae.Errors[0].Parameter)
			require.Contains(t, err.Error(), "(parameter count)")
		}},
		{"ads 404 is ErrNotFound", 404, `{"errors":[{"code":"NOT_FOUND","message":"Campaign not found"}]}`, func(t *testing.T, err error) {
			require.ErrorIs(t, err, ErrNotFound)
		}},
		{"v2 problem", 400, `{"errors":[{"parameters":{"ids":["x"]},"message":"The ids query parameter value [x] is not valid"}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.example.com/2/problems/invalid-request"}`, func(t *testing.T, err error) {
			var pe *ProblemError
			require.ErrorAs(t, err, &pe)
			require.Equal(t, "Invalid Request", pe.Problem.Title)
			require.Len(t, pe.Errors, 1)
			require.Contains(t, err.Error(), "is not valid")
		}},
		{"v2 unauthorized problem", 401, `{"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}`, func(t *testing.T, err error) {
			var pe *ProblemError
			require.ErrorAs(t, err, &pe)
			require.Equal(t, 401, pe.Problem.Status)
		}},
		{"anything else", 502, `<html>bad gateway</html>`, func(t *testing.T, err error) {
			var he *HTTPError
			require.ErrorAs(t, err, &he)
			require.Equal(t, "<html>bad gateway</html>", he.Body)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, decodeError(tt.status, "GET /x", []byte(tt.body)))
		})
	}
}

func TestBatchEnvelopeMapsOperationErrorsToItems(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"flat with index":   `{"request":[{"params":{},"operation_type":"Create"},{"params":{},"operation_type":"Create"}],"data":[{"id":"a"},null],"operation_errors":[{"index":1,"code":"INVALID_PARAMETER","message":"name too long","parameter":"name"}]}`,
		"list per position": `{"request":[{"params":{},"operation_type":"Create"},{"params":{},"operation_type":"Create"}],"data":[{"id":"a"},null],"operation_errors":[[],[{"code":"INVALID_PARAMETER","message":"name too long","parameter":"name"}]]}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := Decode[Batch[map[string]any]]("POST /batch", []byte(body))
			require.NoError(t, err)
			require.Len(t, b.Request, 2)
			require.Len(t, b.OperationErrors, 1)
			be := &BatchError{Endpoint: "POST /batch", Errors: b.OperationErrors}
			require.Empty(t, be.ByIndex(0))
			require.Equal(t, "name", be.ByIndex(1)[0].Parameter)
			require.Contains(t, be.Error(), "item 1: INVALID_PARAMETER")
		})
	}
}

func TestDecodeErrorReturnsOperationErrorsAsBatchError(t *testing.T) {
	t.Parallel()
	body := `{"request":{"params":{"account_id":"a1"}},"errors":[],"operation_errors":[{"index":0,"code":"INVALID_PARAMETER","message":"email values must be lowercase hex SHA-256 hashes","parameter":"email"}]}`
	err := decodeError(400, "POST /users", []byte(body))
	var be *BatchError
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Errors, 1)
	require.Equal(t, "email", be.ByIndex(0)[0].Parameter)
	require.Equal(t, "INVALID_PARAMETER", be.Errors[0].Code)
}

func TestListEnvelopeDecodesCursorAndTotal(t *testing.T) {
	t.Parallel()
	l, err := Decode[List[map[string]any]]("GET /x", []byte(`{"request":{"params":{"count":2}},"next_cursor":"c2","data":[{"id":"1"},{"id":"2"}],"total_count":7}`))
	require.NoError(t, err)
	require.Equal(t, "c2", *l.NextCursor)
	require.EqualValues(t, 7, *l.TotalCount)
	require.Len(t, l.Data, 2)
	last, err := Decode[List[map[string]any]]("GET /x", []byte(`{"request":{"params":{}},"next_cursor":null,"data":[]}`))
	require.NoError(t, err)
	require.Nil(t, last.NextCursor)
	require.Nil(t, last.TotalCount)
	_, err = Decode[Single[map[string]any]]("GET /x", []byte(`{"data":`))
	require.ErrorContains(t, err, "GET /x: decoding the response")
}

func TestRetryAtErrorIsARateLimitWait(t *testing.T) {
	t.Parallel()
	err := error(&RetryAtError{Reason: "window exhausted", Endpoint: "GET /x"})
	require.True(t, errors.Is(err, ErrRateLimited))
}

func TestChunkIDsSplitsFiltersAt200(t *testing.T) {
	t.Parallel()
	ids := make([]string, 450)
	for i := range ids {
		ids[i] = string(rune('a' + i%26))
	}
	chunks := ChunkIDs(ids, MaxIDsPerFilter)
	require.Len(t, chunks, 3)
	require.Len(t, chunks[0], 200)
	require.Len(t, chunks[1], 200)
	require.Len(t, chunks[2], 50)
	require.Empty(t, ChunkIDs(nil, 200))
}

func TestCountLimitsPerEndpoint(t *testing.T) {
	t.Parallel()
	def, maxC := CountLimits("GET /12/accounts/{account_id}/cards")
	require.Equal(t, []int{100, 200}, []int{def, maxC})
	def, maxC = CountLimits("GET /12/accounts/{account_id}/cards/poll")
	require.Equal(t, []int{200, 1000}, []int{def, maxC})
	def, maxC = CountLimits("GET /12/accounts/{account_id}/campaigns")
	require.Equal(t, []int{200, 1000}, []int{def, maxC})
}

func TestDeriveEndpointReplacesIDs(t *testing.T) {
	t.Parallel()
	require.Equal(t, "GET /12/accounts/{id}/campaigns/{id}", DeriveEndpoint("GET", "/12/accounts/18ce54d4x5t/campaigns/8wku2"))
	require.Equal(t, "GET /12/accounts/{id}/cards/poll", DeriveEndpoint("GET", "/12/accounts/18ce54d4x5t/cards/poll"))
	require.Equal(t, "GET /2/posts", DeriveEndpoint("GET", "/2/posts"))
}

func TestRedactionHidesSecretsInLogs(t *testing.T) {
	t.Parallel()
	q := redactQuery(map[string][]string{"access_token": {"sekrit"}, "count": {"5"}, "oauth_verifier": {"123"}})
	require.NotContains(t, q, "sekrit")
	require.NotContains(t, q, "123")
	require.Contains(t, q, "count=5")
	require.Equal(t, "[redacted credential response]", redactBody("POST /oauth2/token", []byte(`{"access_token":"x"}`)))
}
