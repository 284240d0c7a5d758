package report_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/report"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// seedStats fills ad_stats with DAY rows of 20 accounts (CAMPAIGN,
// LINE_ITEM and PROMOTED_POST, unsegmented and by AGE and REGIONS:US), each day's rows
// fetched an hour apart, and analyzes it, so plans are those of a table
// many accounts share.
func seedStats(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, segment_type,
        segment_value, segment_name, bucket_date, impressions, clicks, billed_charge_local_micro, fetched_at)
    SELECT 'a' || a, e, 'e' || i, 'ALL_ON_SVC', 'DAY', seg, CASE WHEN seg = '' THEN '' ELSE 'v' || i % 3 END, '',
        date '2026-01-01' + d, 100 + i, i % 7, 1000000 + i, timestamptz '2026-05-01' - make_interval(hours => d)
    FROM generate_series(1, 20) a, unnest(ARRAY['CAMPAIGN', 'LINE_ITEM', 'PROMOTED_POST']) e, generate_series(1, 10) i,
        generate_series(0, 59) d, unnest(ARRAY['', 'AGE', 'REGIONS:US']) seg;
    ANALYZE ad_stats`)
	require.NoError(t, err)
	return pool
}

// plan is the plan Postgres picks for query.
func plan(t *testing.T, pool *pgxpool.Pool, query string, args ...any) string {
	t.Helper()
	rows, err := pool.Query(context.Background(), "EXPLAIN "+query, args...)
	require.NoError(t, err)
	var lines []string
	for rows.Next() {
		var l string
		require.NoError(t, rows.Scan(&l))
		lines = append(lines, l)
	}
	require.NoError(t, rows.Err())
	return strings.Join(lines, "\n")
}

// What analysts ask (a span of days for some accounts) reads ad_stats by
// its (account, entity type, granularity, date) index at every level and
// segment, directly or through Read's sums; an export's look for what
// changed since its last run reads the index on (entity type, segment
// type, granularity, fetched_at) rather than the whole table.
func TestASpanOfDaysForSomeAccountsReadsAdStatsByItsDateIndex(t *testing.T) {
	t.Parallel()
	pool := seedStats(t)
	for _, r := range report.Relations() {
		if r.Segment != nil && r.Segment.Type != "AGE" && r.Segment.Type != "REGIONS" {
			continue
		}
		p := plan(t, pool, fmt.Sprintf(`SELECT * FROM %s WHERE account_id = ANY('{a3,a5}') AND date BETWEEN '2026-02-01' AND '2026-02-07'`, r.Name()))
		require.Contains(t, p, "ad_stats_date_idx", "%s:\n%s", r.Name(), p)
		require.NotContains(t, p, "Seq Scan on ad_stats", "%s:\n%s", r.Name(), p)
	}
	for _, l := range report.Levels {
		for _, by := range []string{report.ByTotal, report.ByDay} {
			sql, args := report.ReadSQLForTest(report.Request{Level: l, By: by, Totals: true}, []report.Span{
				{AccountID: "a3", Since: day("2026-02-01"), Until: day("2026-02-07")},
				{AccountID: "a5", Since: day("2026-02-02"), Until: day("2026-02-08")}})
			p := plan(t, pool, sql, args...)
			require.Contains(t, p, "ad_stats_date_idx", "read of %s by %s:\n%s", l.Name, by, p)
		}
	}
	for _, name := range []string{"report_campaign_daily", "report_line_item_by_age_daily", "report_campaign_by_regions_daily"} {
		p := plan(t, pool, `SELECT * FROM `+name+` WHERE fetched_at < timestamptz '2026-05-01' AND fetched_at >= timestamptz '2026-04-30 22:00Z'`)
		require.Contains(t, p, "ad_stats_report_idx", "%s:\n%s", name, p)
	}
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}
