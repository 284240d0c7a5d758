package logging

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

func TestNonTerminalOutputIsJSONLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l, err := New(&buf, "info")
	require.NoError(t, err)
	l.Info("hello", zap.String("k", "v"))
	l.Debug("hidden below the level")
	var rec map[string]any
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &rec), buf.String())
	require.Equal(t, "hello", rec["msg"])
	require.Equal(t, "info", rec["level"])
	require.Equal(t, "v", rec["k"])
}

func TestSlogBridgeWritesThroughZap(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l, err := New(&buf, "debug")
	require.NoError(t, err)
	Slog(l).Warn("from river", "job_id", 42)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &rec), buf.String())
	require.Equal(t, "from river", rec["msg"])
	require.Equal(t, "warn", rec["level"])
	require.EqualValues(t, 42, rec["job_id"])
}

func TestUnknownLevelIsRejected(t *testing.T) {
	t.Parallel()
	_, err := New(&bytes.Buffer{}, "loud")
	require.ErrorContains(t, err, `"loud"`)
}

func TestSlogBridgeDropsRiverInfoUnlessDebugging(t *testing.T) {
	t.Parallel()
	var info, debug bytes.Buffer
	li, err := New(&info, "info")
	require.NoError(t, err)
	Slog(li).Info("River client started")
	Slog(li).Warn("River warning")
	require.NotContains(t, info.String(), "client started")
	require.Contains(t, info.String(), "River warning")
	ld, err := New(&debug, "debug")
	require.NoError(t, err)
	Slog(ld).Info("River client started")
	require.Contains(t, debug.String(), "client started")
}
