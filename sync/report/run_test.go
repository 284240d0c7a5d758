package report_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/report"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// runNow is the clock of these tests: 2026-03-10 20:00 UTC is already 11
// March in Tokyo and still 10 March in New York.
var runNow = time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)

// seedReports stores two accounts (New York, USD; Tokyo, JPY) with a
// funding instrument, two campaigns, a line item each and a promoted post,
// and DAY rows for 1 to 11 March on both placements.
func seedReports(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	_, err := pool.Exec(context.Background(), `
INSERT INTO accounts (id, name, timezone, raw, doc_hash) VALUES
    ('ny', 'New York Account', 'America/New_York', '{}', 'h'), ('tk', 'Tokyo Account', 'Asia/Tokyo', '{}', 'h');
INSERT INTO funding_instruments (account_id, id, name, currency, raw, doc_hash) VALUES
    ('ny', 'f1', 'Card', 'USD', '{}', 'h'), ('tk', 'f2', 'Credit line', 'JPY', '{}', 'h');
INSERT INTO campaigns (account_id, id, name, funding_instrument_id, currency, raw, doc_hash) VALUES
    ('ny', 'c1', 'Spring sale', 'f1', 'USD', '{}', 'h'), ('ny', 'c2', 'Brand', 'f1', 'USD', '{}', 'h'),
    ('tk', 'c3', 'Launch', 'f2', 'JPY', '{}', 'h');
INSERT INTO line_items (account_id, id, name, campaign_id, currency, raw, doc_hash) VALUES
    ('ny', 'l1', 'Sale line', 'c1', 'USD', '{}', 'h'), ('ny', 'l2', 'Brand line', 'c2', 'USD', '{}', 'h'),
    ('tk', 'l3', 'Launch line', 'c3', 'JPY', '{}', 'h');
INSERT INTO promoted_posts (account_id, id, line_item_id, post_id, raw, doc_hash) VALUES
    ('ny', 'p1', 'l1', '1001', '{}', 'h'), ('tk', 'p3', 'l3', '1003', '{}', 'h');
INSERT INTO ad_stats (account_id, entity_type, entity_id, placement, granularity, bucket_date, impressions, engagements,
    clicks, url_clicks, billed_charge_local_micro, video_total_views, conversion_purchases_metric, fetched_at)
SELECT e.account_id, e.type, e.id, pl, 'DAY', date '2026-03-01' + d, 1000 * e.n + d * 37 + length(pl), 50 + d,
    CASE WHEN e.id = 'c2' THEN 0 ELSE 3 + d % 4 END, 2 + d % 3, 1234567 * e.n + d * 1000001, d, NULLIF(d % 2, 0), now()
FROM (VALUES ('ny', 'CAMPAIGN', 'c1', 1), ('ny', 'CAMPAIGN', 'c2', 2), ('tk', 'CAMPAIGN', 'c3', 3),
             ('ny', 'LINE_ITEM', 'l1', 1), ('ny', 'LINE_ITEM', 'l2', 2), ('tk', 'LINE_ITEM', 'l3', 3),
             ('ny', 'PROMOTED_POST', 'p1', 1), ('tk', 'PROMOTED_POST', 'p3', 3)) e(account_id, type, id, n),
    generate_series(0, 10) d, unnest(ARRAY['ALL_ON_SVC', 'PUBLISHER_NETWORK']) pl;`)
	require.NoError(t, err)
	return pool
}

func runReport(t *testing.T, pool *pgxpool.Pool, o report.Options) string {
	t.Helper()
	if o.Now.IsZero() {
		o.Now = runNow
	}
	var out bytes.Buffer
	require.NoError(t, report.Run(context.Background(), pool, o, &out))
	return out.String()
}

// relationSums is what a read of level over [since, until] must say, summed
// by the test's own query: per entity (and day), placements added up.
func relationSums(t *testing.T, pool *pgxpool.Pool, relation, id string, byDay bool, since, until string) []map[string]string {
	t.Helper()
	keys := "account_id, " + id
	if byDay {
		keys = "date, " + keys
	}
	rows, err := pool.Query(context.Background(), fmt.Sprintf(`SELECT %s, sum(impressions)::text AS impressions,
        sum(spend)::text AS spend, sum(spend_micro)::text AS spend_micro, sum(clicks)::text AS clicks,
        (sum(video_total_views))::text AS video_total_views
    FROM %s WHERE date BETWEEN $1 AND $2 GROUP BY %s ORDER BY %s`, keys, relation, keys, keys), since, until)
	require.NoError(t, err)
	defer rows.Close()
	var out []map[string]string
	for rows.Next() {
		vals, err := rows.Values()
		require.NoError(t, err)
		m := map[string]string{}
		for i, f := range rows.FieldDescriptions() {
			switch v := vals[i].(type) {
			case time.Time:
				m[f.Name] = v.Format(time.DateOnly)
			case nil:
				m[f.Name] = ""
			default:
				m[f.Name] = fmt.Sprint(v)
			}
		}
		out = append(out, m)
	}
	require.NoError(t, rows.Err())
	return out
}

// project keeps of records (a header line first) the named columns, in
// the order of keys.
func project(records [][]string, keys []string, order string) []map[string]string {
	var out []map[string]string
	for _, r := range records[1:] {
		m := map[string]string{}
		for i, h := range records[0] {
			if strings.Contains(","+strings.Join(keys, ",")+",", ","+h+",") {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	sortBy(out, order)
	return out
}

func sortBy(rows []map[string]string, keys string) {
	ks := strings.Split(keys, ", ")
	less := func(a, b map[string]string) bool {
		for _, k := range ks {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	}
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			if less(rows[j], rows[i]) {
				rows[i], rows[j] = rows[j], rows[i]
			}
		}
	}
}

// adsync report's CSV and JSON are the relation summed over the span, per
// entity or per entity and day, exactly (spend to the micro unit), at every
// level.
func TestReportCSVAndJSONEqualTheRelationSummed(t *testing.T) {
	t.Parallel()
	pool := seedReports(t)
	for _, l := range report.Levels {
		id := l.IDColumn()
		if id == "" {
			id = "account_id"
		}
		for _, by := range []string{report.ByTotal, report.ByDay} {
			o := report.Options{Level: l.Name, Since: "2026-03-02", Until: "2026-03-08", By: by}
			cols := []string{"account_id", id, "impressions", "spend", "spend_micro", "clicks", "video_total_views"}
			order := "account_id, " + id
			if by == report.ByDay {
				cols, order = append(cols, "date"), "date, "+order
			}
			want := relationSums(t, pool, l.Relation(), id, by == report.ByDay, o.Since, o.Until)
			require.NotEmpty(t, want)

			o.Format = report.FormatCSV
			records, err := csv.NewReader(strings.NewReader(runReport(t, pool, o))).ReadAll()
			require.NoError(t, err)
			require.Equal(t, want, project(records, cols, order), "%s by %s as CSV", l.Name, by)

			o.Format = report.FormatJSON
			var objs []map[string]any
			dec := json.NewDecoder(strings.NewReader(runReport(t, pool, o)))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&objs))
			asRecords := [][]string{cols}
			for _, obj := range objs {
				var rec []string
				for _, c := range cols {
					switch v := obj[c].(type) {
					case json.Number:
						rec = append(rec, v.String())
					case string:
						rec = append(rec, v)
					default:
						t.Fatalf("%s: %s is %T (%v)", l.Name, c, v, v)
					}
				}
				asRecords = append(asRecords, rec)
			}
			require.Equal(t, want, project(asRecords, cols, order), "%s by %s as JSON", l.Name, by)
		}
	}
}

// The ratios of a total are those of its sums, NULL (empty, null) where the
// denominator is zero; a JSON number keeps every decimal.
func TestReportRatiosAreOfTheSumsAndNullOnAZeroDenominator(t *testing.T) {
	t.Parallel()
	pool := seedReports(t)
	o := report.Options{Level: "campaign", Since: "2026-03-01", Until: "2026-03-02", Format: report.FormatCSV}
	records, err := csv.NewReader(strings.NewReader(runReport(t, pool, o))).ReadAll()
	require.NoError(t, err)
	got := map[string]map[string]string{}
	for _, r := range records[1:] {
		m := map[string]string{}
		for i, h := range records[0] {
			m[h] = r[i]
		}
		got[m["campaign_id"]] = m
	}
	// The seed's c1 (n = 1) on day d and placement pl: impressions
	// 1000 + 37d + len(pl), clicks 3 + d%4, micros 1234567 + 1000001d.
	imp := int64(0)
	for d := int64(0); d < 2; d++ {
		imp += 2*(1000+37*d) + int64(len("ALL_ON_SVC")+len("PUBLISHER_NETWORK"))
	}
	clicks := int64(2*3 + 2*4)
	micro := int64(4*1234567 + 2*1000001)
	require.Equal(t, fmt.Sprint(imp), got["c1"]["impressions"])
	require.Equal(t, fmt.Sprintf("%d.%06d", micro/1e6, micro%1e6), got["c1"]["spend"])
	require.Equal(t, fmt.Sprintf("%.6f", float64(clicks)/float64(imp)), got["c1"]["ctr"])
	require.Equal(t, fmt.Sprintf("%.6f", float64(micro)/1e6/float64(clicks)), got["c1"]["cpc"])
	require.Equal(t, fmt.Sprintf("%.6f", float64(micro)/1e3/float64(imp)), got["c1"]["cpm"])
	require.Equal(t, "0.000000", got["c2"]["ctr"], "no clicks: a ctr of zero")
	require.Empty(t, got["c2"]["cpc"], "no clicks: no cost per click")
	require.NotEmpty(t, got["c2"]["cpm"])
}

// The table is for a person: the span, the level's names, money to the
// cent, a total line per currency (never adding yen to dollars).
func TestReportTableShowsTheSpanNamesAndATotalPerCurrency(t *testing.T) {
	t.Parallel()
	pool := seedReports(t)
	out := runReport(t, pool, report.Options{Level: "line_item", Since: "2026-03-02", Until: "2026-03-08", Format: report.FormatTable})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, "line item report, 2026-03-02 to 2026-03-08 (account-local days)", lines[0])
	require.Regexp(t, `^ACCOUNT ID\s+LINE ITEM ID\s+LINE ITEM NAME\s+CAMPAIGN NAME\s+IMPRESSIONS\s+ENGAGEMENTS\s+CLICKS\s+URL CLICKS\s+CURRENCY\s+SPEND\s+CTR\s+CPC\s+CPM$`, lines[1])
	require.Regexp(t, `^ny\s+l2\s+Brand line\s+Brand\s+[\d,]+\s+`, lines[2], "the largest spend first")
	require.Regexp(t, `^ny\s+l1\s+Sale line\s+Spring sale\s+`, lines[3])
	require.Regexp(t, `^tk\s+l3\s+Launch line\s+Launch\s+`, lines[4])
	totals := map[string]string{}
	for _, l := range lines {
		if f := strings.Fields(l); f[0] == "TOTAL" {
			totals[f[5]] = l
		}
	}
	require.Len(t, totals, 2, "one total per currency: %q", lines)
	for cur, accts := range map[string]string{"USD": "ny", "JPY": "tk"} {
		var imp int64
		var spend string
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT sum(impressions), round(sum(spend), 2)::text
            FROM report_line_item_daily WHERE account_id = $1 AND date BETWEEN '2026-03-02' AND '2026-03-08'`, accts).Scan(&imp, &spend))
		whole, frac, _ := strings.Cut(spend, ".")
		require.Regexp(t, fmt.Sprintf(`^TOTAL\s+%s\s+\S+\s+\S+\s+\S+\s+%s\s+%s\.%s\s+\d+\.\d\d%%\s+[\d,]+\.\d\d\s+[\d,]+\.\d\d$`,
			commas(imp), cur, commas(atoi(t, whole)), frac), totals[cur])
	}
	require.NotContains(t, out, " - ", "every ratio has a denominator here")
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	_, err := fmt.Sscan(s, &n)
	require.NoError(t, err)
	return n
}

// With no span given a read covers each account's last seven complete days
// in its own time zone: at 20:00 UTC on 10 March, 3 to 9 March in New York
// and 4 to 10 March in Tokyo.
func TestReportDefaultsToEachAccountsLastSevenCompleteLocalDays(t *testing.T) {
	t.Parallel()
	pool := seedReports(t)
	res, err := report.Read(context.Background(), pool, report.Request{Level: report.Levels[0], Now: runNow})
	require.NoError(t, err)
	require.Equal(t, []report.Span{
		{AccountID: "ny", Since: day("2026-03-03"), Until: day("2026-03-09")},
		{AccountID: "tk", Since: day("2026-03-04"), Until: day("2026-03-10")},
	}, res.Spans)
	out := runReport(t, pool, report.Options{Level: "account", By: report.ByDay, Format: report.FormatCSV})
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	days := map[string][]string{}
	for _, r := range records[1:] {
		days[r[1]] = append(days[r[1]], r[0])
	}
	require.Equal(t, []string{"2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09"}, days["ny"])
	require.Equal(t, []string{"2026-03-04", "2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"}, days["tk"])
	out = runReport(t, pool, report.Options{Level: "account", Format: report.FormatTable})
	require.Contains(t, out, "account report, account-local days: ny 2026-03-03 to 2026-03-09; tk 2026-03-04 to 2026-03-10\n")
	out = runReport(t, pool, report.Options{Level: "account", Accounts: []string{"tk"}, Until: "2026-03-05", Format: report.FormatTable})
	require.Contains(t, out, "2026-02-27 to 2026-03-05 (account-local days)", "--until alone: the seven days to it")
}

// Bad input can never be answered: an ErrInput error naming what is
// allowed, before anything is read.
func TestReportBadInputIsAnInputErrorNamingWhatIsAllowed(t *testing.T) {
	t.Parallel()
	pool := seedReports(t)
	for _, tc := range []struct {
		o    report.Options
		want string
	}{
		{report.Options{Level: "ad_group"}, `report: level "ad_group": want one of account, funding_instrument, campaign, line_item, promoted_post`},
		{report.Options{Level: "campaign", Since: "last week"}, `report: --since "last week": want a date as YYYY-MM-DD`},
		{report.Options{Level: "campaign", Until: "2026-02-30"}, `report: --until "2026-02-30": want a date as YYYY-MM-DD`},
		{report.Options{Level: "campaign", Since: "2026-03-08", Until: "2026-03-01"}, `report: --until 2026-03-01 is before --since 2026-03-08: the span ends before it starts`},
		{report.Options{Level: "campaign", By: "week"}, `report: --by "week": want total or day`},
		{report.Options{Level: "campaign", Format: "xlsx"}, `report: --format "xlsx": want table, csv or json`},
		{report.Options{Level: "campaign", Accounts: []string{"ny", "nope"}}, `report: account "nope" is not among the synced accounts`},
	} {
		var out bytes.Buffer
		err := report.Run(context.Background(), pool, tc.o, &out)
		require.ErrorIs(t, err, report.ErrInput, tc.want)
		require.ErrorContains(t, err, tc.want)
		require.Empty(t, out.String())
	}
}

// An account's currency is its funding instruments'; while none is synced,
// its campaigns' (a sync of campaigns alone still says the currency), and
// so is a funding instrument's.
func TestCurrencyFallsBackToTheCampaignsWhileNoFundingInstrumentIsSynced(t *testing.T) {
	t.Parallel()
	pool := seedReports(t)
	ctx := context.Background()
	read := func(relation string) map[string]string {
		rows, err := pool.Query(ctx, `SELECT DISTINCT account_id, currency FROM `+relation)
		require.NoError(t, err)
		out := map[string]string{}
		for rows.Next() {
			var a string
			var c *string
			require.NoError(t, rows.Scan(&a, &c))
			if c != nil {
				out[a] = *c
			}
		}
		require.NoError(t, rows.Err())
		return out
	}
	_, err := pool.Exec(ctx, `UPDATE funding_instruments SET currency = 'EUR' WHERE id = 'f1'`)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"ny": "EUR", "tk": "JPY"}, read("report_account_daily"), "the funding instruments' first")
	_, err = pool.Exec(ctx, `DELETE FROM funding_instruments`)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"ny": "USD", "tk": "JPY"}, read("report_account_daily"))
	require.Equal(t, map[string]string{"ny": "USD", "tk": "JPY"}, read("report_funding_instrument_daily"))
}
