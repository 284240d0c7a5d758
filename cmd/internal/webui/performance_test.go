package webui

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seedPerformance stores a New York account (USD) with six campaigns and a
// line item each, delivering every day of February and March 2026 (campaign
// n spends n units and 100n impressions a day, on both placements), and a
// Tokyo account (JPY) that delivered only in January.
func (b *testBundle) seedPerformance(t *testing.T) {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), `
INSERT INTO accounts (id, name, timezone, raw, doc_hash) VALUES
    ('ny', 'New York Account', 'America/New_York', '{}', 'h'), ('tk', 'Tokyo Account', 'Asia/Tokyo', '{}', 'h');
INSERT INTO funding_instruments (account_id, id, name, currency, raw, doc_hash) VALUES
    ('ny', 'f1', 'Card', 'USD', '{}', 'h'), ('tk', 'f2', 'Line', 'JPY', '{}', 'h');
INSERT INTO campaigns (account_id, id, name, funding_instrument_id, currency, raw, doc_hash)
    SELECT 'ny', 'c' || n, 'Campaign ' || n, 'f1', 'USD', '{}'::jsonb, 'h' FROM generate_series(1, 6) n
    UNION ALL SELECT 'tk', 'c9', 'Old', 'f2', 'JPY', '{}', 'h';
INSERT INTO line_items (account_id, id, name, campaign_id, currency, raw, doc_hash)
    SELECT 'ny', 'l' || n, 'Line ' || n, 'c' || n, 'USD', '{}'::jsonb, 'h' FROM generate_series(1, 6) n;
INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, bucket_date, impressions, clicks,
    billed_charge_local_micro, fetched_at)
SELECT 'ny', e, left(lower(e), 1) || n, pl, 'DAY', d, 50 * n, n % 2, 500000 * n, now()
FROM unnest(ARRAY['CAMPAIGN', 'LINE_ITEM']) e, generate_series(1, 6) n,
    generate_series(date '2026-02-01', date '2026-03-31', interval '1 day') d, unnest(ARRAY['ALL_ON_SVC', 'PUBLISHER_NETWORK']) pl
UNION ALL SELECT 'tk', 'CAMPAIGN', 'c9', 'ALL_ON_SVC', 'DAY', date '2026-01-10', 7, 1, 7000000, now()`)
	require.NoError(t, err)
}

// section is the page's part about one account.
func section(t *testing.T, body, account string) string {
	t.Helper()
	start := strings.Index(body, `<section class="account" data-account="`+account+`">`)
	require.GreaterOrEqual(t, start, 0, "a section for %s", account)
	end := strings.Index(body[start:], "</section>")
	require.Positive(t, end)
	return body[start : start+end]
}

// The performance page shows, per account that delivered, its last 30
// complete days of spend, impressions and clicks (one bar a day, in its
// own time zone) with its currency, and its top five campaigns and line
// items of the last seven days by spend, largest first.
func TestPerformancePageChartsEachAccountsDaysAndListsItsTopSpenders(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seedPerformance(t)
	code, body := b.get(t, "/performance")
	require.Equal(t, http.StatusOK, code, body)
	require.NotContains(t, body, `data-account="tk"`, "no delivery in its last 30 days")
	ny := section(t, body, "ny")
	require.Contains(t, ny, "New York Account")
	require.Contains(t, ny, "USD · 2026-02-13 to 2026-03-14", "at 08:00 in New York on 15 March, the 30 days to the 14th")
	require.Contains(t, ny, "Spend (USD)")

	// Each day: the six campaigns' 0.5n units on both placements, 21
	// units; 2100 impressions; clicks from the odd campaigns, 6.
	for class, want := range map[string]string{"spend": "21000000", "impressions": "2100", "clicks": "6"} {
		got := bars(t, ny, class)
		require.Len(t, got, PerformanceDays, class)
		for i, g := range got {
			require.Equal(t, time.Date(2026, 2, 13+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), g[0], class)
			require.Equal(t, want, g[1], "%s on %s", class, g[0])
		}
	}
	require.Contains(t, ny, "2026-03-14: 21.00 USD", "a bar's description says the money in units")
	require.Contains(t, ny, "(max 21.00 a day)")

	require.Contains(t, ny, "Top campaigns, 2026-03-08 to 2026-03-14")
	for class, prefix := range map[string]string{"campaigns": "Campaign", "line-items": "Line"} {
		table := regexp.MustCompile(`(?s)<table class="top ` + class + `">.*?</table>`).FindString(ny)
		rows := regexp.MustCompile(`<tr><td>([^<]+)</td><td>[a-z0-9]+</td><td class="num" data-spend="([0-9.]+)">([0-9,.]+)</td>`).
			FindAllStringSubmatch(table, -1)
		require.Len(t, rows, TopN, class)
		for i, r := range rows {
			n := 6 - i // 7 days of n units on both placements: 7n
			require.Equal(t, fmt.Sprintf("%s %d", prefix, n), r[1], "%s: largest spend first", class)
			require.Equal(t, fmt.Sprintf("%d.000000", 7*n), r[2], class)
			require.Equal(t, fmt.Sprintf("%d.00", 7*n), r[3], class)
		}
	}
	require.NotContains(t, body, "<script", "the page needs no JavaScript")
	require.NotRegexp(t, `(src|href)="https?://`, body)
}

func TestPerformancePageWithoutAnalyticsSaysHowToPullThem(t *testing.T) {
	t.Parallel()
	b := setup(t)
	code, body := b.get(t, "/performance")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `id="no-reports"`)
	require.Contains(t, body, "adsync stats sync")
}
