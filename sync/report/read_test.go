package report_test

import (
	"context"
	"testing"

	"github.com/adsync/adsync/sync/report"
	"github.com/stretchr/testify/require"
)

// readRows reads req and returns its rows as column maps (NULL as "").
func readRows(t *testing.T, res *report.Result) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, r := range res.Rows {
		m := map[string]string{}
		for i, c := range res.Columns {
			if r[i] != nil {
				m[c] = *r[i]
			}
		}
		out = append(out, m)
	}
	return out
}

// A read limited to some entities, ordered by a metric and capped returns
// those entities' sums, largest first, at most the cap; a read by a segment
// reads the level's segment relation, a row per segment value.
func TestReadNarrowsToEntitiesOrdersByAMetricCapsAndSplitsBySegment(t *testing.T) {
	t.Parallel()
	pool := seedReports(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, segment_type,
        segment_name, segment_value, bucket_date, impressions, clicks, billed_charge_local_micro, fetched_at)
    SELECT 'ny', 'CAMPAIGN', 'c1', 'ALL_ON_SVC', 'DAY', 'AGE', v, v, date '2026-03-02' + d, 100 * d + length(v), 1, 1000000, now()
    FROM unnest(ARRAY['18-24', '25-34']) v, generate_series(0, 1) d`)
	require.NoError(t, err)
	campaign, err := report.LookupLevel("campaign")
	require.NoError(t, err)
	since, until := day("2026-03-02"), day("2026-03-05")

	res, err := report.Read(ctx, pool, report.Request{Level: campaign, Since: since, Until: until,
		EntityIDs: []string{"c1", "c3"}, OrderBy: "impressions"})
	require.NoError(t, err)
	rows := readRows(t, res)
	require.Len(t, rows, 2)
	require.Equal(t, "c3", rows[0]["campaign_id"], "largest impressions first across accounts")
	require.Equal(t, "c1", rows[1]["campaign_id"])
	want := relationSums(t, pool, "report_campaign_daily", "campaign_id", false, "2026-03-02", "2026-03-05")
	for _, w := range want {
		if w["campaign_id"] == "c1" {
			require.Equal(t, w["impressions"], rows[1]["impressions"])
			require.Equal(t, w["spend"], rows[1]["spend"])
		}
	}

	res, err = report.Read(ctx, pool, report.Request{Level: campaign, Since: since, Until: until, OrderBy: "clicks", Limit: 1})
	require.NoError(t, err)
	require.Len(t, res.Rows, 1, "the limit caps the rows")

	age, err := report.LookupSegment("age")
	require.NoError(t, err)
	res, err = report.Read(ctx, pool, report.Request{Level: campaign, Since: since, Until: until, Segment: age})
	require.NoError(t, err)
	rows = readRows(t, res)
	require.Len(t, rows, 2, "one row per segment value")
	got := map[string]string{}
	for _, r := range rows {
		got[r["segment_value"]] = r["impressions"]
	}
	require.Equal(t, map[string]string{"18-24": "110", "25-34": "110"}, got)

	_, err = report.Read(ctx, pool, report.Request{Level: campaign, OrderBy: "nope"})
	require.ErrorIs(t, err, report.ErrInput)
	require.ErrorContains(t, err, "impressions, engagements")
	_, err = report.LookupSegment("weekday")
	require.ErrorIs(t, err, report.ErrInput)
	require.ErrorContains(t, err, "age")
}
