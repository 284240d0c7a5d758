package adsynccmd

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/synctest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// adsync mcp speaks the protocol on standard input and output: a client
// lists its tools and calls one against the migrated database; nothing
// but the protocol reaches standard output, and the command ends when the
// client closes its input.
func TestMCPServesTheToolsOnStandardInputAndOutput(t *testing.T) {
	t.Parallel()
	db := synctest.MigratedDatabase(t)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"mcp", "--database-url", db}, inR, outW, &stderr)
		_ = outW.Close()
	}()
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "adsync-test", Version: "1"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err, stderr.String())
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 7)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "sync_status"})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.NoError(t, cs.Close())
	select {
	case code := <-done:
		require.Equal(t, 0, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("adsync mcp did not end when its input closed")
	}
}
