package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	adsyncmcp "github.com/adsync/adsync/sync/mcp"
	"github.com/adsync/adsync/sync/report"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// answer is the structured output most tools give.
type answer struct {
	Rows      []map[string]any `json:"rows"`
	Truncated bool             `json:"truncated"`
	Note      string           `json:"note"`
}

// Every tool is listed read-only, with an input schema and an output
// schema, and described.
func TestEveryToolIsListedReadOnlyWithInputAndOutputSchemas(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	res, err := b.session.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		require.NotNil(t, tool.Annotations, tool.Name)
		require.True(t, tool.Annotations.ReadOnlyHint, tool.Name)
		require.NotNil(t, tool.InputSchema, tool.Name)
		require.NotNil(t, tool.OutputSchema, tool.Name)
		require.Greater(t, len(tool.Description), 80, tool.Name)
	}
	slices.Sort(names)
	require.Equal(t, []string{"audiences", "describe_metrics", "entity_history", "find_entities", "list_accounts", "performance", "sync_status"}, names)
}

func TestListAccountsGivesNamesZonesCurrenciesAccessAndFreshness(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	var a answer
	res := b.call(t, "list_accounts", nil, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 2)
	ny := a.Rows[0]
	require.Equal(t, "ny", ny["account_id"])
	require.Equal(t, "New York Account", ny["name"])
	require.Equal(t, "America/New_York", ny["timezone"])
	require.Equal(t, "USD", ny["currency"])
	require.Equal(t, []any{map[string]any{"user_id": "u1", "permissions": []any{"ACCOUNT_ADMIN"}}}, ny["user_access"])
	require.Equal(t, "2026-03-10T05:00:00Z", ny["entities_synced_oldest"])
	require.Equal(t, "2026-03-10T05:30:00Z", ny["entities_synced_newest"])
	require.Equal(t, "2026-03-10T06:00:00Z", ny["analytics_fetched_at"])
	require.Contains(t, ny["analytics_last_day"], "2026-03-11")
	require.Equal(t, "JPY", a.Rows[1]["currency"])
	require.Contains(t, text(res), "account_id=tk")
}

// relationTotals sums a level's relation per entity over [since, until]
// with the test's own query: the truth performance must equal.
func relationTotals(t *testing.T, b *testBundle, relation, id, since, until string) map[string]map[string]string {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), fmt.Sprintf(`SELECT %s::text, sum(impressions)::text, sum(clicks)::text,
        sum(spend)::text, sum(engagements)::text
    FROM %s WHERE date BETWEEN $1 AND $2 GROUP BY 1`, id, relation), since, until)
	require.NoError(t, err)
	out := map[string]map[string]string{}
	for rows.Next() {
		var k, imps, clicks, spend, eng string
		require.NoError(t, rows.Scan(&k, &imps, &clicks, &spend, &eng))
		out[k] = map[string]string{"impressions": imps, "clicks": clicks, "spend": spend, "engagements": eng}
	}
	require.NoError(t, rows.Err())
	return out
}

// performance's numbers are the report relations' sums, exactly, at every
// level; spend is in currency units; only the metrics asked are answered.
func TestPerformanceEqualsTheReportRelations(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	for _, l := range report.Levels {
		id := l.IDColumn()
		if id == "" {
			id = "account_id"
		}
		var a answer
		res := b.call(t, "performance", map[string]any{"level": l.Name, "since": "2026-03-02", "until": "2026-03-08"}, &a)
		require.False(t, res.IsError, text(res))
		want := relationTotals(t, b, l.Relation(), id, "2026-03-02", "2026-03-08")
		require.Len(t, a.Rows, len(want), l.Name)
		for _, r := range a.Rows {
			w := want[r[id].(string)]
			for _, m := range []string{"impressions", "clicks", "spend", "engagements"} {
				requireSameNumber(t, w[m], r[m], "%s %s %s", l.Name, r[id], m)
			}
			for _, m := range []string{"ctr", "cpc", "cpm"} {
				require.Contains(t, r, m, "a default metric")
			}
			require.NotContains(t, r, "url_clicks", "not asked")
		}
	}
	var a answer
	res := b.call(t, "performance", map[string]any{"level": "campaign", "since": "2026-03-02", "until": "2026-03-03",
		"by": "day", "entity_ids": []string{"c1"}, "metrics": []string{"spend", "video_total_views"}}, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 2)
	require.Equal(t, "2026-03-02", a.Rows[0]["date"])
	// c1 on 2 March: 1234567 + 1000001 micros on each of two placements.
	requireSameNumber(t, "4.469136", a.Rows[0]["spend"])
	require.Equal(t, "2", string(a.Rows[0]["video_total_views"].(json.Number)))
	require.NotContains(t, a.Rows[0], "impressions")

	res = b.call(t, "performance", map[string]any{"level": "campaign", "since": "2026-03-01", "until": "2026-03-11",
		"segment": "age", "order_by": "impressions"}, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 2, "one row per age")
	for _, r := range a.Rows {
		// 100 * (0+...+10) + 11 * len(value).
		require.Equal(t, "5555", string(r["impressions"].(json.Number)), r["segment_value"])
		require.Equal(t, "Age "+r["segment_value"].(string), r["segment_name"])
	}
}

// An answer cut at the row cap says so, in its structured output and its
// text; a limit asked for is not a cut.
func TestAnAnswerCutAtTheRowCapSaysSo(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{MaxRows: 2})
	var a answer
	res := b.call(t, "performance", map[string]any{"level": "campaign", "by": "day", "order_by": "clicks"}, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 2)
	require.True(t, a.Truncated)
	require.Contains(t, text(res), "cut at 2 rows")
	res = b.call(t, "performance", map[string]any{"level": "campaign", "limit": 1}, &a)
	require.Len(t, a.Rows, 1)
	require.False(t, a.Truncated)
	res = b.call(t, "find_entities", map[string]any{"type": "campaigns", "include_deleted": true}, &a)
	require.Len(t, a.Rows, 2)
	require.True(t, a.Truncated)
	require.Contains(t, text(res), "cut at 2 rows")
}

// Bad arguments are tool errors (isError) naming what is allowed, never
// protocol failures.
func TestBadArgumentsAreToolErrorsNamingWhatIsAllowed(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"performance", map[string]any{"level": "ad_group"}, "account, funding_instrument, campaign, line_item, promoted_post"},
		{"performance", map[string]any{"level": "campaign", "by": "week"}, "want total or day"},
		{"performance", map[string]any{"level": "campaign", "metrics": []string{"reach"}}, "impressions, engagements"},
		{"performance", map[string]any{"level": "campaign", "order_by": "reach"}, "impressions, engagements"},
		{"performance", map[string]any{"level": "campaign", "segment": "weekday"}, "regions"},
		{"performance", map[string]any{"level": "campaign", "since": "last week"}, "YYYY-MM-DD"},
		{"performance", map[string]any{"level": "campaign", "since": "2026-03-05", "until": "2026-03-01"}, "before it starts"},
		{"performance", map[string]any{"level": "campaign", "account_ids": []string{"zz"}}, "not among the synced accounts"},
		{"performance", map[string]any{"level": "campaign", "limit": -1}, "positive number"},
		{"performance", map[string]any{}, "level"},
		{"performance", map[string]any{"level": "campaign", "sql": "DROP TABLE accounts"}, "sql"},
		{"find_entities", map[string]any{"type": "ads"}, "campaigns"},
		{"find_entities", map[string]any{"type": "iab_categories", "account_ids": []string{"ny"}}, "leave account_ids out"},
		{"find_entities", map[string]any{"type": "account_user_access", "name": "x"}, "have no name"},
		{"sync_status", map[string]any{"runs": 99}, "want 1 to 50"},
		{"audiences", map[string]any{"uploads": 50}, "want 1 to 20"},
		{"describe_metrics", map[string]any{"metric": "reach"}, "impressions"},
		{"entity_history", map[string]any{"type": "ads", "id": "c1"}, "campaigns, cards"},
		{"entity_history", map[string]any{"type": "campaigns"}, "id"},
		{"entity_history", map[string]any{"type": "iab_categories", "id": "1", "account_id": "ny"}, "leave account_id out"},
	} {
		res := b.call(t, c.tool, c.args, nil)
		require.True(t, res.IsError, "%s %v: %s", c.tool, c.args, text(res))
		require.Contains(t, text(res), c.want, "%s %v", c.tool, c.args)
	}
}

func TestFindEntitiesByNamePartStatusAndAccount(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	var a answer
	res := b.call(t, "find_entities", map[string]any{"type": "campaigns", "name": "SALE"}, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 1, "the deleted campaign is left out")
	c1 := a.Rows[0]
	require.Equal(t, "c1", c1["id"])
	require.Equal(t, "Spring sale", c1["name"])
	require.Equal(t, "ACTIVE", c1["entity_status"])
	require.Equal(t, json.Number("50000000"), c1["daily_budget_amount_local_micro"])
	require.Equal(t, "USD", c1["currency"])

	// The name part is literal: its % and _ match only themselves; names
	// that start with it come first.
	b.call(t, "find_entities", map[string]any{"type": "campaigns", "name": "spring_50%", "include_deleted": true}, &a)
	require.Len(t, a.Rows, 1)
	require.Equal(t, "c4", a.Rows[0]["id"])
	b.call(t, "find_entities", map[string]any{"type": "campaigns", "name": "s", "include_deleted": true}, &a)
	require.Equal(t, []any{"c1", "c4"}, ids(a), "Spring sale starts with s: before Old spring_50% sale")

	b.call(t, "find_entities", map[string]any{"type": "campaigns", "status": "paused"}, &a)
	require.Equal(t, []any{"c2"}, ids(a))
	b.call(t, "find_entities", map[string]any{"type": "line_items", "account_ids": []string{"tk"}}, &a)
	require.Equal(t, []any{"l3"}, ids(a))
	require.Equal(t, "c3", a.Rows[0]["campaign_id"])
}

// requireSameNumber checks that got, a JSON number (the client decodes it
// as the SDK's client does, into a float), is the decimal want.
func requireSameNumber(t *testing.T, want string, got any, msg ...any) {
	t.Helper()
	w, err := strconv.ParseFloat(want, 64)
	require.NoError(t, err)
	g, err := strconv.ParseFloat(string(got.(json.Number)), 64)
	require.NoError(t, err)
	require.Equal(t, w, g, msg...)
}

func ids(a answer) []any {
	var out []any
	for _, r := range a.Rows {
		out = append(out, r["id"])
	}
	return out
}

// sync_status shows every pipeline's recent runs, the failures with their
// errors redacted, and each account's newest data.
func TestSyncStatusShowsRunsFailuresRedactedAndNewestData(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	var st struct {
		Runs       []map[string]any `json:"runs"`
		Failures   []map[string]any `json:"failures"`
		NewestData []map[string]any `json:"newest_data"`
	}
	res := b.call(t, "sync_status", nil, &st)
	require.False(t, res.IsError, text(res))
	require.Len(t, st.Runs, 3)
	require.Equal(t, "export", st.Runs[0]["pipeline"])
	require.Len(t, st.Failures, 1)
	require.Equal(t, "stats", st.Failures[0]["pipeline"])
	require.Contains(t, st.Failures[0]["error"], "access_token=[redacted]")
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	require.NotContains(t, string(raw), secretInError)
	require.Len(t, st.NewestData, 2)
	require.Equal(t, "2026-03-10T05:30:00Z", st.NewestData[0]["entities_synced_at"])
}

func TestAudiencesShowSizesAndTheirLatestUploads(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	var a answer
	res := b.call(t, "audiences", map[string]any{"uploads": 1}, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 2)
	crm := a.Rows[0]
	require.Equal(t, "CRM buyers", crm["name"])
	require.Equal(t, json.Number("125000"), crm["audience_size"])
	uploads := crm["uploads"].([]any)
	require.Len(t, uploads, 1, "the latest upload only")
	last := uploads[0].(map[string]any)
	require.Equal(t, "failed", last["state"])
	require.Equal(t, "success_count 0 of total_count 500", last["last_error"])
	require.Equal(t, json.Number("1"), last["batches_failed"])
	require.Nil(t, a.Rows[1]["audience_size"], "the service reports no size")
}

// describe_metrics describes every metric performance can answer, from the
// report's columns and the stats catalogue.
func TestDescribeMetricsCoversEveryReportMetric(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	var a answer
	res := b.call(t, "describe_metrics", nil, &a)
	require.False(t, res.IsError, text(res))
	var names []string
	byName := map[string]map[string]any{}
	for _, r := range a.Rows {
		names = append(names, r["metric"].(string))
		byName[r["metric"].(string)] = r
		require.NotEmpty(t, r["meaning"], r["metric"])
		require.NotEmpty(t, r["unit"], r["metric"])
		require.NotEmpty(t, r["levels"], r["metric"])
	}
	require.Equal(t, report.MetricColumns(), names)
	require.Equal(t, "currency units", byName["spend"]["unit"])
	require.Equal(t, "micros of the currency", byName["conversion_purchases_sale_amount"]["unit"])
	require.Equal(t, "BILLING", byName["billed_engagements"]["group"])
}

// A tool's reads can change nothing and are bounded in time.
func TestToolsReadInAReadOnlyTransactionWithAStatementTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	ctx := context.Background()
	err := adsyncmcp.ReadForTest(ctx, b.pool, time.Second, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM accounts`)
		return err
	})
	require.ErrorContains(t, err, "read-only transaction")
	err = adsyncmcp.ReadForTest(ctx, b.pool, 50*time.Millisecond, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `SELECT pg_sleep(2)`)
		return err
	})
	require.ErrorContains(t, err, "statement timeout")
	var n int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM accounts`).Scan(&n))
	require.Equal(t, 2, n)
}

// entity_history lists an entity's versions oldest first, the current one
// with no valid_to, and names what changed between them.
func TestEntityHistoryListsVersionsAndWhatChanged(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `UPDATE campaigns SET name = 'Spring sale 2', raw = '{"name": "Spring sale 2"}', doc_hash = 'h2',
        api_updated_at = '2026-03-05 10:00Z', last_synced_at = '2026-03-05 11:00Z' WHERE id = 'c1'`)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `UPDATE campaigns SET deleted = true, api_updated_at = '2026-03-07 10:00Z',
        last_synced_at = '2026-03-07 11:00Z' WHERE id = 'c1'`)
	require.NoError(t, err)
	var a answer
	res := b.call(t, "entity_history", map[string]any{"type": "campaigns", "id": "c1"}, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 3, text(res))
	require.Equal(t, "Spring sale", a.Rows[0]["name"])
	require.NotContains(t, a.Rows[0], "changed", "the first version changed nothing")
	require.NotContains(t, a.Rows[0], "raw", "the record is named by its changed fields, not copied")
	require.NotNil(t, a.Rows[0]["valid_to"])
	require.Equal(t, a.Rows[0]["valid_to"], a.Rows[1]["valid_from"], "versions are contiguous")
	require.Equal(t, []any{"api_updated_at", "name"}, a.Rows[1]["changed"])
	require.Equal(t, []any{"name"}, a.Rows[1]["raw_changed"])
	require.Equal(t, []any{"api_updated_at", "deleted"}, a.Rows[2]["changed"])
	require.Equal(t, true, a.Rows[2]["deleted"])
	require.Nil(t, a.Rows[2]["valid_to"], "the current version")
	require.Contains(t, text(res), "changed=")
}

// entity_history answers for the v2 posts pipeline's histories too: a
// post's versions (its moved counts are one), named by what changed and
// not by the pipeline's fetch and write times; a media by its media_key.
// An unknown type's error lists the advertising and the v2 types.
func TestEntityHistoryListsAPostsVersionsAndTheV2Types(t *testing.T) {
	t.Parallel()
	b := setup(t, adsyncmcp.Options{})
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `
INSERT INTO v2_posts (id, text, like_count, raw, doc_hash, first_seen_at, fetched_at, updated_at) VALUES
    ('1001', 'Spring is here', 3, '{"id": "1001", "text": "Spring is here", "public_metrics": {"like_count": 3}}', 'p1',
     '2026-03-01 10:00Z', '2026-03-01 10:00Z', '2026-03-01 10:00Z');
UPDATE v2_posts SET like_count = 9, raw = '{"id": "1001", "text": "Spring is here", "public_metrics": {"like_count": 9}}',
    doc_hash = 'p2', fetched_at = '2026-03-02 10:00Z', updated_at = '2026-03-02 10:00Z';
UPDATE v2_posts SET fetched_at = '2026-03-02 12:00Z';
UPDATE v2_posts SET text = 'Spring is here!', raw = '{"id": "1001", "text": "Spring is here!", "public_metrics": {"like_count": 9}}',
    doc_hash = 'p3', fetched_at = '2026-03-03 10:00Z', updated_at = '2026-03-03 10:00Z';
INSERT INTO v2_media (media_key, type, view_count, raw, doc_hash, first_seen_at, fetched_at, updated_at) VALUES
    ('3_77', 'video', 10, '{"media_key": "3_77", "public_metrics": {"view_count": 10}}', 'm1',
     '2026-03-01 10:00Z', '2026-03-01 10:00Z', '2026-03-01 10:00Z');
UPDATE v2_media SET view_count = 25, raw = '{"media_key": "3_77", "public_metrics": {"view_count": 25}}', doc_hash = 'm2',
    fetched_at = '2026-03-04 10:00Z', updated_at = '2026-03-04 10:00Z';`)
	require.NoError(t, err)

	var a answer
	res := b.call(t, "entity_history", map[string]any{"type": "v2_posts", "id": "1001"}, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 3, "a fetch that changed nothing is no version: %s", text(res))
	require.Equal(t, "Spring is here", a.Rows[0]["text"])
	require.Equal(t, json.Number("3"), a.Rows[0]["like_count"])
	require.Equal(t, "2026-03-01T10:00:00Z", a.Rows[0]["valid_from"], "the first version begins when adsync first saw the post")
	require.NotContains(t, a.Rows[0], "changed")
	require.Equal(t, "2026-03-02T10:00:00Z", a.Rows[0]["valid_to"])
	require.Equal(t, a.Rows[0]["valid_to"], a.Rows[1]["valid_from"])
	require.Equal(t, []any{"like_count"}, a.Rows[1]["changed"], "the fetch and write times are no change of the post")
	require.Equal(t, []any{"public_metrics"}, a.Rows[1]["raw_changed"])
	require.Equal(t, []any{"text"}, a.Rows[2]["changed"])
	require.Equal(t, []any{"text"}, a.Rows[2]["raw_changed"])
	require.Nil(t, a.Rows[2]["valid_to"], "the current version")
	for _, r := range a.Rows {
		for _, hidden := range []string{"raw", "doc_hash", "first_seen_at", "fetched_at", "updated_at"} {
			require.NotContains(t, r, hidden)
		}
	}
	require.Contains(t, text(res), "v2_posts_history: 3 row(s)")

	b.call(t, "entity_history", map[string]any{"type": "V2_Media", "id": "3_77"}, &a)
	require.Len(t, a.Rows, 2)
	require.Equal(t, "3_77", a.Rows[1]["media_key"])
	require.Equal(t, []any{"view_count"}, a.Rows[1]["changed"])

	res = b.call(t, "entity_history", map[string]any{"type": "v2_posts", "id": "1001", "account_id": "ny"}, nil)
	require.True(t, res.IsError)
	require.Contains(t, text(res), "v2_posts are not an account's: leave account_id out")
	res = b.call(t, "entity_history", map[string]any{"type": "tweets", "id": "1001"}, nil)
	require.True(t, res.IsError)
	for _, want := range []string{`type "tweets": want one of `, "campaigns, cards", "line_items", "promoted_posts", "v2_media, v2_posts, v2_users"} {
		require.Contains(t, text(res), want)
	}
}
