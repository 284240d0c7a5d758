package api_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
)

func TestRawCallRequestRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		rc           api.RawCall
		method, path string
		base         api.Base
		query, form  url.Values
		json         string
		auth         api.AuthMode
	}{
		{name: "v2 path goes to the API base with query data", rc: api.RawCall{Bearer: true, Data: []string{"ids=1,2"}},
			method: "get", path: "/2/posts", base: api.BaseAPI, query: url.Values{"ids": {"1,2"}}, auth: api.AuthBearer},
		{name: "oauth path goes to the API base", method: "POST", path: "/oauth2/invalidate_token?access_token=x",
			base: api.BaseAPI, query: url.Values{"access_token": {"x"}}, auth: api.AuthUser},
		{name: "1.1 path goes to the API base with form data", rc: api.RawCall{Data: []string{"a=b", "a=c"}}, method: "POST",
			path: "/1.1/oauth/invalidate_token", base: api.BaseAPI, query: url.Values{}, form: url.Values{"a": {"b", "c"}}, auth: api.AuthUser},
		{name: "ads path goes to the ads base", rc: api.RawCall{Data: []string{"count=5", "empty="}}, method: "DELETE", path: "/12/accounts",
			base: api.BaseAds, query: url.Values{"count": {"5"}, "empty": {""}}, auth: api.AuthUser},
		{name: "sandbox flag picks the sandbox base", rc: api.RawCall{Sandbox: true, Data: []string{"name=x"}}, method: "PUT", path: "/12/accounts/a1",
			base: api.BaseSandbox, query: url.Values{}, form: url.Values{"name": {"x"}}, auth: api.AuthUser},
		{name: "JSON body moves data to the query", rc: api.RawCall{JSON: `{"a":1}`, Data: []string{"k=v"}}, method: "POST", path: "/12/batch",
			base: api.BaseAds, query: url.Values{"k": {"v"}}, json: `{"a":1}`, auth: api.AuthUser},
	} {
		tc.rc.Method, tc.rc.Path = tc.method, tc.path
		req, err := tc.rc.Request()
		require.NoError(t, err, tc.name)
		require.Equal(t, strings.ToUpper(tc.method), req.Method, tc.name)
		require.Equal(t, tc.base, req.Base, tc.name)
		require.Equal(t, tc.query, req.Query, tc.name)
		require.Equal(t, tc.form, req.Form, tc.name)
		require.Equal(t, tc.auth, req.Auth, tc.name)
		if tc.json == "" {
			require.Nil(t, req.JSON, tc.name)
		} else {
			require.Equal(t, []byte(tc.json), req.JSON, tc.name)
		}
	}
}

func TestMaskCredentialsHidesTokensInCredentialAnswers(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"access_token":"AAAA%2Bsecret"}`:                   `{"access_token":"********"}`,
		`oauth_token=abc&oauth_token_secret=def&user_id=1`:   `oauth_token=********&oauth_token_secret=********&user_id=1`,
		`{"token_type":"bearer","access_token" : "x"}`:       `{"token_type":"bearer","access_token" : "********"}`,
		`{"data":[{"id":"1","text":"no credentials here"}]}`: `{"data":[{"id":"1","text":"no credentials here"}]}`,
	} {
		require.Equal(t, want, string(api.MaskCredentials([]byte(in))))
	}
}
