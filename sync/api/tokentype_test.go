package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// newTokenTypeServer answers POST /oauth2/token with the given token_type.
func newTokenTypeServer(t *testing.T, tokenType string) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"token_type":%q,"access_token":"x"}`, tokenType)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}
