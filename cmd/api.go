package adsynccmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/adsync/adsync/sync/api"
	"github.com/spf13/cobra"
)

// rawCall is a parsed `adsync api` command line.
type rawCall struct {
	bearer, sandbox bool
	data            []string
	jsonBody        string
}

func (a *app) apiCommand() *cobra.Command {
	var rc rawCall
	cmd := &cobra.Command{
		Use:   "api [--bearer] [--sandbox] METHOD PATH [-d k=v]... [--json BODY]",
		Short: "Make a signed raw call to the service (like twurl) and print the body",
		Long: `Make one signed call and print the response body (indented when it is JSON).

PATH picks the base: /2/..., /oauth... and /1.1/... go to the API base, anything else
(for example /12/accounts) to the advertising base, or the sandbox base with --sandbox.
-d k=v (repeatable) adds query parameters to GET and DELETE, and signed form
parameters to POST and PUT. --json sends a JSON body (not signed; -d then adds query
parameters). Calls are signed with the user access token (ADSYNC_ACCESS_TOKEN, or the
one stored by adsync auth login), or sent with the app-only bearer token with --bearer.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := rc.request(args[0], args[1])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			c, err := a.clientMaybePooled(ctx)
			if err != nil {
				return err
			}
			resp, err := c.Do(ctx, req)
			if err != nil {
				return err
			}
			body := resp.Body
			if strings.Contains(req.Path, "/oauth") {
				body = maskCredentials(body)
			}
			return writeBody(a.stdout, body)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&rc.bearer, "bearer", false, "authenticate with the app-only bearer token")
	f.BoolVar(&rc.sandbox, "sandbox", false, "send advertising paths to the sandbox base")
	f.StringArrayVarP(&rc.data, "data", "d", nil, "parameter k=v (repeatable)")
	f.StringVar(&rc.jsonBody, "json", "", "JSON request body")
	return cmd
}

// request validates the command line and builds the call.
func (rc rawCall) request(method, path string) (*api.Request, error) {
	method = strings.ToUpper(method)
	switch method {
	case "GET", "POST", "PUT", "DELETE":
	default:
		return nil, usageError("api: method %q: must be GET, POST, PUT or DELETE", method)
	}
	if !strings.HasPrefix(path, "/") {
		return nil, usageError("api: path %q: must start with /", path)
	}
	path, rawQuery, _ := strings.Cut(path, "?")
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, usageError("api: the query of the path: %v", err)
	}
	req := &api.Request{Method: method, Path: path, Query: query, Auth: api.AuthUser}
	if rc.bearer {
		req.Auth = api.AuthBearer
	}
	req.Base = api.BaseAds
	switch {
	case strings.HasPrefix(path, "/2/"), strings.HasPrefix(path, "/oauth"), strings.HasPrefix(path, "/1.1/"):
		if rc.sandbox {
			return nil, usageError("api: --sandbox applies to advertising paths only")
		}
		req.Base = api.BaseAPI
	case rc.sandbox:
		req.Base = api.BaseSandbox
	}
	params := url.Values{}
	for _, d := range rc.data {
		k, v, ok := strings.Cut(d, "=")
		if !ok || k == "" {
			return nil, usageError("api: -d %q: want k=v", d)
		}
		params.Add(k, v)
	}
	if rc.jsonBody != "" {
		if method == "GET" || method == "DELETE" {
			return nil, usageError("api: --json needs POST or PUT")
		}
		if !json.Valid([]byte(rc.jsonBody)) {
			return nil, usageError("api: --json: the body is not valid JSON")
		}
		req.JSON = []byte(rc.jsonBody)
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

// credentialPattern finds token values in JSON and form-encoded bodies.
var credentialPattern = regexp.MustCompile(`("(?:access_token|oauth_token|oauth_token_secret)"\s*:\s*")[^"]*(")|((?:^|&)(?:access_token|oauth_token|oauth_token_secret)=)[^&\s]*`)

// maskCredentials hides token values in the answers of credential endpoints:
// secrets never reach the terminal or a log by way of adsync api.
func maskCredentials(body []byte) []byte {
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
