package export

import (
	"context"
	"testing"

	"github.com/adsync/adsync/sync/report"
	"github.com/stretchr/testify/require"
)

// A report relation exports like ad_stats: typed (spend an exact decimal,
// the ratios doubles, a date), incremental by the pulls' fetched_at, and
// read back once per key with the newest run's values.
func TestReportsExportTypedAndReadBackOncePerKeyWithTheNewestPull(t *testing.T) {
	t.Parallel()
	pool, out := setup(t, 0)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `
INSERT INTO accounts (id, name, timezone, raw, doc_hash) VALUES ('a1', 'Account', 'Europe/Berlin', '{}', 'h');
INSERT INTO funding_instruments (account_id, id, name, currency, raw, doc_hash) VALUES ('a1', 'f1', 'Card', 'EUR', '{}', 'h');
INSERT INTO campaigns (account_id, id, name, funding_instrument_id, currency, raw, doc_hash)
    VALUES ('a1', 'c1', 'Sale', 'f1', 'EUR', '{}', 'h');
INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, segment_type, segment_value, segment_name,
    bucket_date, impressions, clicks, billed_charge_local_micro, fetched_at)
VALUES ('a1', 'CAMPAIGN', 'c1', 'ALL_ON_SVC', 'DAY', '', '', '', '2026-03-02', 1000, 0, 123456789, now()),
       ('a1', 'CAMPAIGN', 'c1', 'ALL_ON_SVC', 'DAY', '', '', '', '2026-03-03', 2000, 7, 1, now()),
       ('a1', 'CAMPAIGN', 'c1', 'ALL_ON_SVC', 'DAY', 'REGIONS:DE', 'DE-1', 'Berlin', '2026-03-02', 400, 0, 23456789, now()),
       ('a1', 'CAMPAIGN', 'c1', 'ALL_ON_SVC', 'DAY', 'REGIONS:DE', 'DE-2', 'Bavaria', '2026-03-02', 600, 0, 100000000, now())`)
	require.NoError(t, err)
	names := []string{"report_account_daily", "report_campaign_daily", "report_campaign_by_regions_daily", "report_line_item_daily"}
	res, err := Run(ctx, pool, Options{Out: out, Tables: names})
	require.NoError(t, err)
	rows := map[string]int64{}
	for _, tr := range res.Tables {
		rows[tr.Name] = tr.Rows
	}
	require.Equal(t, map[string]int64{"report_account_daily": 2, "report_campaign_daily": 2, "report_campaign_by_regions_daily": 2,
		"report_line_item_daily": 0}, rows)

	// A re-pull of 3 March replaces its row; only that day is exported again.
	_, err = pool.Exec(ctx, `UPDATE ad_stats SET clicks = 8, billed_charge_local_micro = 2, fetched_at = now() WHERE bucket_date = '2026-03-03'`)
	require.NoError(t, err)
	res, err = Run(ctx, pool, Options{Out: out, Tables: names})
	require.NoError(t, err)
	for _, tr := range res.Tables {
		want := int64(0)
		if tr.Name == "report_account_daily" || tr.Name == "report_campaign_daily" {
			want = 1
		}
		require.Equal(t, want, tr.Rows, "%s: the re-pulled day only", tr.Name)
	}

	byName := map[string]Table{}
	for _, tb := range Tables() {
		byName[tb.Name] = tb
	}
	d := duck(t, files(res, out), map[string]string{
		"campaign": "SELECT date::VARCHAR AS date, campaign_name, currency, spend::VARCHAR AS spend, typeof(spend) AS t, ctr, cpc " +
			"FROM (" + byName["report_campaign_daily"].LatestQuery(out) + ") ORDER BY date",
		"regions": "SELECT country, segment_value, segment_name, sum(spend)::VARCHAR AS spend " +
			"FROM (" + byName["report_campaign_by_regions_daily"].LatestQuery(out) + ") GROUP BY ALL ORDER BY segment_value",
	})
	c := d.Queries["campaign"]
	require.Len(t, c, 2, "each day once")
	require.Equal(t, map[string]any{"date": "2026-03-02", "campaign_name": "Sale", "currency": "EUR", "spend": "123.456789",
		"t": "DECIMAL(18,6)", "ctr": 0.0, "cpc": nil}, c[0])
	require.Equal(t, "0.000002", c[1]["spend"], "the newest pull's value, to the micro")
	require.InDelta(t, 0.004, c[1]["ctr"], 1e-9)
	require.Equal(t, []map[string]any{
		{"country": "DE", "segment_value": "DE-1", "segment_name": "Berlin", "spend": "23.456789"},
		{"country": "DE", "segment_value": "DE-2", "segment_name": "Bavaria", "spend": "100.000000"},
	}, d.Queries["regions"])
	for _, r := range report.Relations() {
		require.Equal(t, r.KeyColumns(), byName[r.Name()].Key, r.Name())
	}
}
