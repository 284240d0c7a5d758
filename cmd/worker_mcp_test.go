package adsynccmd

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// noSchedules keeps a test worker from starting pipelines of its own.
const noSchedules = "schedules:\n  sync: \"\"\n  insights: \"\"\n  posts: \"\"\n  export: \"\"\n"

// toolsList is an MCP tools/list request (the worker's server is
// stateless: no initialize needed), as a client POSTs it.
func toolsList(header map[string]string, host string) pageRequest {
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	for k, v := range header {
		h[k] = v
	}
	return pageRequest{method: http.MethodPost, path: "/mcp", host: host, header: h,
		body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`}
}

// On loopback /mcp is open to a client (the SDK's, over streamable HTTP)
// and, like the pages, refuses a foreign Host and a request from a page of
// another origin.
func TestWorkerServesMCPOnLoopbackAndRefusesAForeignOriginOrHost(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	addr, _, stop := startWorker(t, b, noSchedules)
	defer stop()

	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "adsync-test", Version: "1"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_accounts"})
	require.NoError(t, err)
	require.False(t, res.IsError)

	resp, body := send(t, addr, toolsList(map[string]string{"Origin": "http://evil.example"}, ""))
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.Contains(t, body, "cross-site")
	requireUnframable(t, resp, "the refusal")
	// A GET (the protocol's stream) from another origin is refused too.
	resp, body = send(t, addr, pageRequest{path: "/mcp", header: map[string]string{"Origin": "http://evil.example",
		"Accept": "text/event-stream"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.Contains(t, body, "another origin")
	resp, body = send(t, addr, toolsList(nil, "evil.example:9090"))
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	resp, body = send(t, addr, toolsList(nil, ""))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Contains(t, body, `"performance"`)
}

// Off loopback /mcp is refused while no token is configured, even with a
// password for the pages.
func TestWorkerOffLoopbackRefusesMCPWithoutAToken(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	addr, _, stop := startWorker(t, b, "ui_password: ui-pw-not-a-token\n"+noSchedules, "--http-addr", "0.0.0.0:0")
	defer stop()
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	resp, body := send(t, "127.0.0.1:"+port, toolsList(map[string]string{"Authorization": "Bearer ui-pw-not-a-token"}, ""))
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.Contains(t, body, "ADSYNC_MCP_TOKEN")
}

// Off loopback with mcp_token set, /mcp answers only a request bearing
// that token; the token never reaches the worker's output.
func TestWorkerOffLoopbackServesMCPOnlyWithTheToken(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	const token = "mcp-token-visible-nowhere"
	addr, _, stop := startWorker(t, b, "mcp_token: "+token+"\n"+noSchedules, "--http-addr", "0.0.0.0:0")
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	own := "127.0.0.1:" + port
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer wrong"}, {"Authorization": token},
		{"Authorization": "Bearer " + token + "x"}, {"Authorization": "Basic " + token}} {
		resp, body := send(t, own, toolsList(h, ""))
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%v: %s", h, body)
		require.Equal(t, `Bearer realm="adsync"`, resp.Header.Get("WWW-Authenticate"))
		require.NotContains(t, body, token)
	}
	resp, body := send(t, own, toolsList(map[string]string{"Authorization": "Bearer " + token}, ""))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Contains(t, body, `"list_accounts"`)
	r := stop()
	require.False(t, strings.Contains(r.stdout+r.stderr, token), "the token is never logged")
}
