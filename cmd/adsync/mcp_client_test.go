package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/stretchr/testify/require"
)

// mcpTestdata holds the MCP TypeScript SDK (installed by .ci/test-deps).
var mcpTestdata = filepath.Join("..", "..", "sync", "mcp", "testdata")

// A client we did not write, the MCP TypeScript SDK, spawns adsync mcp over
// standard input and output, lists its tools and calls performance: the
// spend it reads is what Postgres's report relation holds.
func TestTheTypeScriptSDKClientReadsPerformanceFromAdsyncMCP(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(mcpTestdata, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the MCP TypeScript SDK is missing: run make test-deps (bash .ci/test-deps): %v", err)
	}
	db := localpg.NewDatabase(t)
	ctx := context.Background()
	pool, err := store.Connect(ctx, db, store.ConnectOptions{MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `
INSERT INTO accounts (id, name, timezone, raw, doc_hash) VALUES ('ny', 'New York Account', 'America/New_York', '{}', 'h');
INSERT INTO campaigns (account_id, id, name, currency, raw, doc_hash) VALUES
    ('ny', 'c1', 'Spring sale', 'USD', '{}', 'h'), ('ny', 'c2', 'Brand', 'USD', '{}', 'h');
INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, bucket_date, impressions, clicks,
    billed_charge_local_micro, fetched_at)
SELECT 'ny', 'CAMPAIGN', c, 'ALL_ON_SVC', 'DAY', date '2026-03-01' + d, 1000 + d, 3 + d, 1234567 * (d + 1) + length(c), now()
FROM unnest(ARRAY['c1', 'c2']) c, generate_series(0, 6) d`)
	require.NoError(t, err)

	req, err := json.Marshal(map[string]any{"command": adsyncExe(), "args": []string{"mcp", "--database-url", db},
		"tool": "performance", "arguments": map[string]any{"level": "campaign", "since": "2026-03-01", "until": "2026-03-07",
			"metrics": []string{"spend", "clicks"}}})
	require.NoError(t, err)
	cmd := exec.Command("node", filepath.Join(mcpTestdata, "mcp_check.mjs"), string(req))
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	out, err := cmd.Output()
	var stderr []byte
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "%s", stderr)
	var got struct {
		Tools  []string `json:"tools"`
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Rows []map[string]any `json:"rows"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Contains(t, got.Tools, "performance")
	require.Contains(t, got.Tools, "entity_history")
	require.False(t, got.Result.IsError, "%s", out)
	require.Len(t, got.Result.StructuredContent.Rows, 2)
	for _, r := range got.Result.StructuredContent.Rows {
		var spend string
		var clicks int64
		require.NoError(t, pool.QueryRow(ctx, `SELECT sum(spend)::text, sum(clicks) FROM report_campaign_daily
            WHERE campaign_id = $1 AND date BETWEEN '2026-03-01' AND '2026-03-07'`, r["campaign_id"]).Scan(&spend, &clicks))
		want, err := strconv.ParseFloat(spend, 64)
		require.NoError(t, err)
		require.Equal(t, want, r["spend"], r["campaign_id"])
		require.Equal(t, float64(clicks), r["clicks"], r["campaign_id"])
	}
}
