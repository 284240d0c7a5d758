package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
)

// RawCall is one call described by hand, as adsync api takes it (like
// twurl): a method, a path whose prefix picks the base, k=v parameters and
// an optional JSON body.
type RawCall struct {
	Method, Path string
	// Bearer sends the call with the app-only bearer token instead of
	// signing it with the user access token.
	Bearer bool
	// Sandbox sends an advertising path to the sandbox base.
	Sandbox bool
	// Data are k=v parameters: query parameters of GET and DELETE (and of
	// a call with a JSON body), signed form parameters of POST and PUT.
	Data []string
	// JSON is the request body (not signed), "" for none.
	JSON string
}

// Request validates the call and builds it. Its errors are all about the
// call as described (the method, the path, a parameter, the body).
func (rc RawCall) Request() (*Request, error) {
	method := strings.ToUpper(rc.Method)
	switch method {
	case "GET", "POST", "PUT", "DELETE":
	default:
		return nil, fmt.Errorf("method %q: must be GET, POST, PUT or DELETE", method)
	}
	if !strings.HasPrefix(rc.Path, "/") {
		return nil, fmt.Errorf("path %q: must start with /", rc.Path)
	}
	path, rawQuery, _ := strings.Cut(rc.Path, "?")
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("the query of the path: %w", err)
	}
	req := &Request{Method: method, Path: path, Query: query, Auth: AuthUser}
	if rc.Bearer {
		req.Auth = AuthBearer
	}
	if req.Base, err = rc.base(path); err != nil {
		return nil, err
	}
	params, err := rc.params()
	if err != nil {
		return nil, err
	}
	if rc.JSON != "" {
		if method == "GET" || method == "DELETE" {
			return nil, fmt.Errorf("--json needs POST or PUT")
		}
		if !json.Valid([]byte(rc.JSON)) {
			return nil, fmt.Errorf("--json: the body is not valid JSON")
		}
		req.JSON = []byte(rc.JSON)
	}
	if len(params) > 0 {
		if (method == "POST" || method == "PUT") && req.JSON == nil {
			req.Form = params
		} else {
			for k, vs := range params {
				req.Query[k] = append(req.Query[k], vs...)
			}
		}
	}
	return req, nil
}

// base is the base path goes to: /2/..., /oauth... and /1.1/... the API
// base, anything else the advertising base (the sandbox with Sandbox).
func (rc RawCall) base(path string) (Base, error) {
	switch {
	case strings.HasPrefix(path, "/2/"), strings.HasPrefix(path, "/oauth"), strings.HasPrefix(path, "/1.1/"):
		if rc.Sandbox {
			return 0, fmt.Errorf("--sandbox applies to advertising paths only")
		}
		return BaseAPI, nil
	case rc.Sandbox:
		return BaseSandbox, nil
	}
	return BaseAds, nil
}

// params parses Data.
func (rc RawCall) params() (url.Values, error) {
	params := url.Values{}
	for _, d := range rc.Data {
		k, v, ok := strings.Cut(d, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-d %q: want k=v", d)
		}
		params.Add(k, v)
	}
	return params, nil
}

// DoRaw makes req and writes the answer's body to w, indented when it is
// JSON. The token values in the answers of credential endpoints (/oauth
// paths) are masked: secrets never reach the terminal or a log this way.
func DoRaw(ctx context.Context, c *Client, req *Request, w io.Writer) error {
	resp, err := c.Do(ctx, req)
	if err != nil {
		return err
	}
	body := resp.Body
	if strings.Contains(req.Path, "/oauth") {
		body = MaskCredentials(body)
	}
	return writeBody(w, body)
}

// credentialPattern finds token values in JSON and form-encoded bodies.
var credentialPattern = regexp.MustCompile(`("(?:access_token|oauth_token|oauth_token_secret)"\s*:\s*")[^"]*(")|((?:^|&)(?:access_token|oauth_token|oauth_token_secret)=)[^&\s]*`)

// MaskCredentials hides the token values in a body of a credential
// endpoint, JSON or form-encoded.
func MaskCredentials(body []byte) []byte {
	return credentialPattern.ReplaceAllFunc(body, func(m []byte) []byte {
		sub := credentialPattern.FindSubmatch(m)
		if sub[1] != nil {
			return append(append(append([]byte{}, sub[1]...), "********"...), sub[2]...)
		}
		return append(append([]byte{}, sub[3]...), "********"...)
	})
}

// writeBody prints a response body, indented when it is JSON.
func writeBody(w io.Writer, body []byte) error {
	var out bytes.Buffer
	if json.Indent(&out, body, "", "  ") != nil {
		out.Reset()
		out.Write(body)
	}
	if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteByte('\n')
	}
	_, err := w.Write(out.Bytes())
	if err != nil {
		return fmt.Errorf("writing the body: %w", err)
	}
	return nil
}
