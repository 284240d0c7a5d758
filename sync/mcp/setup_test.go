package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	adsyncmcp "github.com/adsync/adsync/sync/mcp"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// testNow is the clock of these tests: 2026-03-10 20:00 UTC is already 11
// March in Tokyo and still 10 March in New York.
var testNow = time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)

// secretInError is a credential a recorded error carries; no answer may
// show it.
const secretInError = "tok-visible-nowhere"

// testBundle is a seeded database and a client session with the server.
type testBundle struct {
	pool    *pgxpool.Pool
	session *sdk.ClientSession
}

// setup seeds a database like the reports' tests (two accounts, New York
// in USD and Tokyo in JPY, their funding instruments, campaigns, line items
// and promoted posts, DAY rows for 1 to 11 March on both placements and an
// AGE split) plus the users' access, the sync's bookmarks, runs (one failed
// with a credential in its error) and a custom audience with an upload, and
// connects a client to the server over the SDK's in-memory transport.
func setup(t *testing.T, opts adsyncmcp.Options) *testBundle {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	_, err := pool.Exec(context.Background(), seedSQL)
	require.NoError(t, err)
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	return &testBundle{pool: pool, session: connect(t, adsyncmcp.New(pool, opts))}
}

// connect is a client session with srv over the in-memory transport.
func connect(t *testing.T, srv *sdk.Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "adsync-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

const seedSQL = `
INSERT INTO accounts (id, name, timezone, raw, doc_hash) VALUES
    ('ny', 'New York Account', 'America/New_York', '{}', 'h'), ('tk', 'Tokyo Account', 'Asia/Tokyo', '{}', 'h');
INSERT INTO account_user_access (account_id, id, user_id, permissions, raw, doc_hash) VALUES
    ('ny', 'u1', 'u1', '{ACCOUNT_ADMIN}', '{}', 'h'), ('tk', 'u1', 'u1', '{AD_MANAGER,CREATIVE_MANAGER}', '{}', 'h');
INSERT INTO funding_instruments (account_id, id, name, currency, entity_status, raw, doc_hash) VALUES
    ('ny', 'f1', 'Card', 'USD', 'ACTIVE', '{}', 'h'), ('tk', 'f2', 'Credit line', 'JPY', 'ACTIVE', '{}', 'h');
INSERT INTO campaigns (account_id, id, name, funding_instrument_id, currency, entity_status, daily_budget_amount_local_micro,
    deleted, raw, doc_hash) VALUES
    ('ny', 'c1', 'Spring sale', 'f1', 'USD', 'ACTIVE', 50000000, false, '{}', 'h'),
    ('ny', 'c2', 'Brand', 'f1', 'USD', 'PAUSED', NULL, false, '{}', 'h'),
    ('tk', 'c3', 'Launch', 'f2', 'JPY', 'ACTIVE', 900000000, false, '{}', 'h'),
    ('tk', 'c4', 'Old spring_50% sale', 'f2', 'JPY', 'ACTIVE', NULL, true, '{}', 'h');
INSERT INTO line_items (account_id, id, name, campaign_id, currency, raw, doc_hash) VALUES
    ('ny', 'l1', 'Sale line', 'c1', 'USD', '{}', 'h'), ('ny', 'l2', 'Brand line', 'c2', 'USD', '{}', 'h'),
    ('tk', 'l3', 'Launch line', 'c3', 'JPY', '{}', 'h');
INSERT INTO promoted_posts (account_id, id, line_item_id, post_id, raw, doc_hash) VALUES
    ('ny', 'p1', 'l1', '1001', '{}', 'h'), ('tk', 'p3', 'l3', '1003', '{}', 'h');
INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, bucket_date, impressions, engagements,
    clicks, url_clicks, billed_charge_local_micro, video_total_views, conversion_purchases_metric, fetched_at)
SELECT e.account_id, e.type, e.id, pl, 'DAY', date '2026-03-01' + d, 1000 * e.n + d * 37 + length(pl), 50 + d,
    CASE WHEN e.id = 'c2' THEN 0 ELSE 3 + d % 4 END, 2 + d % 3, 1234567 * e.n + d * 1000001, d, NULLIF(d % 2, 0),
    timestamptz '2026-03-10 06:00Z'
FROM (VALUES ('ny', 'CAMPAIGN', 'c1', 1), ('ny', 'CAMPAIGN', 'c2', 2), ('tk', 'CAMPAIGN', 'c3', 3),
             ('ny', 'LINE_ITEM', 'l1', 1), ('ny', 'LINE_ITEM', 'l2', 2), ('tk', 'LINE_ITEM', 'l3', 3),
             ('ny', 'PROMOTED_POST', 'p1', 1), ('tk', 'PROMOTED_POST', 'p3', 3)) e(account_id, type, id, n),
    generate_series(0, 10) d, unnest(ARRAY['ALL_ON_SVC', 'PUBLISHER_NETWORK']) pl;
INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, segment_type, segment_name, segment_value,
    bucket_date, impressions, clicks, billed_charge_local_micro, fetched_at)
SELECT 'ny', 'CAMPAIGN', 'c1', 'ALL_ON_SVC', 'DAY', 'AGE', 'Age ' || v, v, date '2026-03-01' + d, 100 * d + length(v), 1,
    1000000, timestamptz '2026-03-10 06:00Z'
FROM unnest(ARRAY['18-24', '25-34']) v, generate_series(0, 10) d;
INSERT INTO sync_bookmarks (account_id, entity, last_success_at) VALUES
    ('ny', 'campaigns', '2026-03-10 05:00Z'), ('ny', 'line_items', '2026-03-10 05:30Z'), ('tk', 'campaigns', '2026-03-09 05:00Z');
INSERT INTO sync_runs (pipeline, started_at, finished_at, outcome, counts, error) VALUES
    ('sync', '2026-03-10 05:00Z', '2026-03-10 05:31Z', 'succeeded', '{"fetched": 12}', NULL),
    ('stats', '2026-03-10 06:00Z', '2026-03-10 06:02Z', 'failed', '{}',
     'stats job: 401 from GET /12/stats_jobs?access_token=` + secretInError + `: Unauthorized'),
    ('export', '2026-03-10 07:00Z', NULL, 'running', '{}', NULL);
INSERT INTO custom_audiences (account_id, id, name, audience_type, audience_size, targetable, raw, doc_hash) VALUES
    ('ny', 'aud1', 'CRM buyers', 'CRM', 125000, true, '{}', 'h'),
    ('ny', 'aud2', 'Newsletter', 'CRM', NULL, false, '{}', 'h');
INSERT INTO audience_uploads (id, account_id, audience_id, file_path, checksum, operation, mode, rows_read, rows_invalid,
    users, state, created_at, finished_at) VALUES
    (1, 'ny', 'aud1', '/data/a.csv', 'c1', 'update', 'add', 1000, 3, 997, 'done', '2026-03-01 10:00Z', '2026-03-01 10:05Z'),
    (2, 'ny', 'aud1', '/data/b.csv', 'c2', 'update', 'add', 500, 0, 500, 'failed', '2026-03-08 10:00Z', '2026-03-08 10:01Z');
INSERT INTO audience_batches (upload_id, seq, operation, body, user_count, body_bytes, state, last_error) VALUES
    (1, 0, 'Update', '', 997, 10, 'done', NULL),
    (2, 0, 'Update', '', 500, 10, 'failed', 'success_count 0 of total_count 500');
`

// call calls tool with args and decodes its structured output into out;
// it fails the test on a protocol error.
func (b *testBundle) call(t *testing.T, tool string, args map[string]any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := b.session.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "a tool's answer is never a protocol failure")
	if out != nil && !res.IsError {
		raw, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		require.NoError(t, d.Decode(out))
	}
	return res
}

// text is a result's text content.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
