package adsynccmd

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seedCampaignStats stores an account in New York with two campaigns and
// their DAY rows of 1 to 10 March 2026 on both placements.
func seedCampaignStats(t *testing.T, b *serviceBundle) {
	t.Helper()
	_, err := b.pool(t).Exec(context.Background(), `
INSERT INTO accounts (id, name, timezone, raw, doc_hash) VALUES ('ny', 'New York Account', 'America/New_York', '{}', 'h');
INSERT INTO funding_instruments (account_id, id, name, currency, raw, doc_hash) VALUES ('ny', 'f1', 'Card', 'USD', '{}', 'h');
INSERT INTO campaigns (account_id, id, name, funding_instrument_id, currency, raw, doc_hash) VALUES
    ('ny', 'c1', 'Spring sale', 'f1', 'USD', '{}', 'h'), ('ny', 'c2', 'Brand', 'f1', 'USD', '{}', 'h');
INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, bucket_date, impressions, engagements,
    clicks, url_clicks, billed_charge_local_micro, fetched_at)
SELECT 'ny', 'CAMPAIGN', c, pl, 'DAY', date '2026-03-01' + d, 1000 + d * 37 + length(c || pl), 40 + d, 3 + d % 4, 2,
    1234567 + d * 1000001 + length(pl), now()
FROM unnest(ARRAY['c1', 'c2']) c, generate_series(0, 9) d, unnest(ARRAY['ALL_ON_SVC', 'PUBLISHER_NETWORK']) pl`)
	require.NoError(t, err)
}

// adsync report prints the report view summed over the span: CSV when its
// output is not a terminal, JSON with exact numbers, a table with a total;
// without a span, the account's last seven complete days on the app's
// clock.
func TestReportPrintsTheCampaignReportAsCSVJSONAndTable(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true, now: time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC)})
	seedCampaignStats(t, b)
	var want [][]string
	rows, err := b.pool(t).Query(context.Background(), `SELECT campaign_id, sum(impressions)::text, sum(spend)::text
        FROM report_campaign_daily WHERE date BETWEEN '2026-03-02' AND '2026-03-04' GROUP BY 1 ORDER BY sum(spend) DESC`)
	require.NoError(t, err)
	for rows.Next() {
		var id, imp, spend string
		require.NoError(t, rows.Scan(&id, &imp, &spend))
		want = append(want, []string{id, imp, spend})
	}
	require.NoError(t, rows.Err())
	require.Len(t, want, 2)

	r := b.run(t, "report", "campaign", "--since", "2026-03-02", "--until", "2026-03-04")
	require.Equal(t, 0, r.code, r.stderr)
	records, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"account_id", "account_name", "currency", "campaign_id", "campaign_name", "impressions"}, records[0][:6])
	var got [][]string
	for _, rec := range records[1:] {
		got = append(got, []string{rec[3], rec[5], rec[9]})
	}
	require.Equal(t, want, got, "CSV is the default off a terminal")

	r = b.run(t, "report", "campaign", "--since", "2026-03-02", "--until", "2026-03-04", "--format", "json")
	require.Equal(t, 0, r.code, r.stderr)
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.UseNumber()
	var objs []map[string]any
	require.NoError(t, dec.Decode(&objs))
	got = nil
	for _, o := range objs {
		got = append(got, []string{o["campaign_id"].(string), o["impressions"].(json.Number).String(), o["spend"].(json.Number).String()})
	}
	require.Equal(t, want, got)

	r = b.run(t, "report", "campaign", "--format", "table", "--by", "day")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "campaign report, 2026-03-03 to 2026-03-09 (account-local days)\n",
		"at 03:00 UTC on 11 March it is still 10 March in New York")
	require.Regexp(t, `\n2026-03-09\s+ny\s+c\d\s+`, r.stdout)
	require.NotContains(t, r.stdout, "2026-03-10")
	require.Regexp(t, `\nTOTAL\s+[\d,]+\s+[\d,]+\s+\d+\s+\d+\s+USD\s+[\d,]+\.\d\d\s+`, r.stdout)
}

// A request adsync report can never answer exits 2 naming what it takes.
func TestReportBadInputExitsTwoNamingWhatIsAllowed(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	seedCampaignStats(t, b)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ad_group"}, `adsync: report: level "ad_group": want one of account, funding_instrument, campaign, line_item, promoted_post` + "\n"},
		{[]string{"campaign", "--since", "yesterday"}, `adsync: report: --since "yesterday": want a date as YYYY-MM-DD (an account-local day)` + "\n"},
		{[]string{"campaign", "--since", "2026-03-05", "--until", "2026-03-01"}, "adsync: report: --until 2026-03-01 is before --since 2026-03-05: the span ends before it starts\n"},
		{[]string{"campaign", "--format", "xml"}, `adsync: report: --format "xml": want table, csv or json` + "\n"},
		{[]string{"campaign", "--account", "elsewhere"}, `adsync: report: account "elsewhere" is not among the synced accounts (adsync sync stores them)` + "\n"},
		{nil, "accepts 1 arg(s), received 0"},
	} {
		r := b.run(t, append([]string{"report"}, tc.args...)...)
		require.Equal(t, 2, r.code, fmt.Sprint(tc.args, r.stdout, r.stderr))
		require.Contains(t, r.stderr, tc.want)
		require.Empty(t, r.stdout)
	}
}
