package report_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs/jobstest"
	"github.com/adsync/adsync/sync/report"
	"github.com/adsync/adsync/sync/stats"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// pulledBundle is a database holding what a worker stored from the fake:
// the accounts, funding instruments, campaigns, line items and promoted
// posts, and their analytics from first (an account-local date) on,
// unsegmented and by the segmentations pulled.
type pulledBundle struct {
	fake  *synctest.Fake
	pool  *pgxpool.Pool
	first time.Time
	// last is each account's last complete day, by account id.
	last map[string]time.Time
}

// segmentations are what pulled pulls besides the unsegmented metrics:
// one type that takes a country and one that takes none.
var segmentations = []string{"REGIONS:" + fixtures.CountryKeys["US"], "AGE"}

// pulled syncs the fake's records and pulls their analytics through a
// running worker. The fake's clock starts at fixtures.SuiteNow and runs on,
// so its asynchronous jobs finish; the days compared are complete before
// the pull starts, so their truth stands still.
func pulled(t *testing.T) *pulledBundle {
	t.Helper()
	p := jobstest.SyncAndPullStats(t, segmentations...)
	pool, now := p.Pool, p.Now
	ctx := context.Background()
	b := &pulledBundle{fake: p.Fake, pool: pool, first: p.First, last: map[string]time.Time{}}
	var failed int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM sync_runs WHERE pipeline = 'stats' AND outcome <> 'succeeded'`).Scan(&failed))
	require.Zero(t, failed, "every stats run succeeded")

	rows, err := pool.Query(ctx, `SELECT id, timezone FROM accounts WHERE NOT deleted`)
	require.NoError(t, err)
	zones := map[string]bool{}
	for rows.Next() {
		var id, zone string
		require.NoError(t, rows.Scan(&id, &zone))
		loc, err := time.LoadLocation(zone)
		require.NoError(t, err)
		b.last[id] = dateOf(now.In(loc)).AddDate(0, 0, -1)
		zones[zone] = true
	}
	require.NoError(t, rows.Err())
	require.Len(t, zones, 3, "the accounts live in three time zones")
	return b
}

// dateOf is t's calendar date as a UTC midnight.
func dateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// dayKey is one entity, placement and account-local day.
type dayKey struct{ account, id, placement, date string }

// dayTotals are the metrics the fake's truth holds.
type dayTotals struct{ impressions, engagements, spendMicro int64 }

// relationTotals reads relation's rows on complete days, by the level's id
// (the account's for the account level), placement and date; a second row
// of one key fails the test. where narrows the rows.
func (b *pulledBundle) relationTotals(t *testing.T, relation, idColumn, where string) map[dayKey]dayTotals {
	t.Helper()
	if where == "" {
		where = "true"
	}
	rows, err := b.pool.Query(context.Background(), fmt.Sprintf(`SELECT account_id, coalesce(%s, ''), placement, date,
        coalesce(impressions, 0), coalesce(engagements, 0), coalesce(spend_micro, 0) FROM %s WHERE %s`, idColumn, relation, where))
	require.NoError(t, err)
	defer rows.Close()
	out := map[dayKey]dayTotals{}
	for rows.Next() {
		var k dayKey
		var d time.Time
		var v dayTotals
		require.NoError(t, rows.Scan(&k.account, &k.id, &k.placement, &d, &v.impressions, &v.engagements, &v.spendMicro))
		if d.Before(b.first) || d.After(b.last[k.account]) {
			continue
		}
		k.date = d.Format(time.DateOnly)
		_, dup := out[k]
		require.False(t, dup, "%s holds %v twice", relation, k)
		out[k] = v
	}
	require.NoError(t, rows.Err())
	return out
}

// truth is the fake's ground truth of entity on the complete days pulled.
func (b *pulledBundle) truth(t *testing.T, entity string) map[dayKey]dayTotals {
	t.Helper()
	out := map[dayKey]dayTotals{}
	for account, last := range b.last {
		rows, err := b.fake.Srv.AnalyticsTruth(fixtures.AnalyticsTruthFilter{AccountID: account, Entity: entity,
			Start: b.first.Format(time.DateOnly), End: last.Format(time.DateOnly)})
		require.NoError(t, err)
		for _, r := range rows {
			v := dayTotals{r.Impressions, r.Engagements, r.BilledChargeLocalMicro}
			if v != (dayTotals{}) {
				out[dayKey{r.AccountID, r.EntityID, r.Placement, r.Date}] = v
			}
		}
	}
	return out
}

// withoutZeros drops the keys whose totals are all zero (a day with
// conversions only, say), which the truth leaves out.
func withoutZeros(m map[dayKey]dayTotals) map[dayKey]dayTotals {
	for k, v := range m {
		if v == (dayTotals{}) {
			delete(m, k)
		}
	}
	return m
}

// truthEntity is the analytics entity each level's truth is kept for.
var truthEntity = map[string]string{"account": stats.EntityAccount, "funding_instrument": stats.EntityFundingInstrument,
	"campaign": stats.EntityCampaign, "line_item": stats.EntityLineItem, "promoted_post": stats.EntityPromotedPost}

// The reports against the service's own totals, the levels against each
// other, the names and currency against the synced records, and the
// segmented reports against the unsegmented ones, for accounts in three
// time zones. One pull serves every check (it is the slow part).
func TestReportsEqualTheServicesTotalsAndAddUp(t *testing.T) {
	t.Parallel()
	b := pulled(t)
	t.Run("each level equals the truth per entity and local day", func(t *testing.T) {
		for _, l := range report.Levels {
			id := l.IDColumn()
			if id == "" {
				id = "account_id"
			}
			want := b.truth(t, truthEntity[l.Name])
			require.NotEmpty(t, want, l.Name)
			require.Equal(t, want, withoutZeros(b.relationTotals(t, l.Relation(), id, "")), l.Relation())
		}
	})
	t.Run("levels add up from line items to the account", func(t *testing.T) {
		b.requireAddsUp(t, `SELECT account_id, campaign_id, placement, date, sum(impressions), sum(engagements), sum(spend_micro)
            FROM report_line_item_daily GROUP BY 1, 2, 3, 4`, "report_campaign_daily", "campaign_id")
		b.requireAddsUp(t, `SELECT r.account_id, c.funding_instrument_id, r.placement, r.date, sum(r.impressions), sum(r.engagements),
            sum(r.spend_micro) FROM report_campaign_daily r JOIN campaigns c ON c.account_id = r.account_id AND c.id = r.campaign_id
            GROUP BY 1, 2, 3, 4`, "report_funding_instrument_daily", "funding_instrument_id")
		b.requireAddsUp(t, `SELECT account_id, account_id, placement, date, sum(impressions), sum(engagements), sum(spend_micro)
            FROM report_funding_instrument_daily GROUP BY 1, 2, 3, 4`, "report_account_daily", "account_id")
	})
	t.Run("spend is the micros in currency units, exactly", func(t *testing.T) {
		for _, r := range report.Relations() {
			var rows, wrong int
			require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*),
                count(*) FILTER (WHERE spend * 1000000 <> spend_micro OR scale(spend) <> 6) FROM `+r.Name()).Scan(&rows, &wrong))
			require.Zero(t, wrong, r.Name())
		}
	})
	t.Run("names and currency are the synced records'", func(t *testing.T) { b.requireNamesAndCurrency(t) })
	t.Run("segments add up to the unsegmented rows", func(t *testing.T) {
		for _, seg := range report.Segments {
			if !strings.HasPrefix(segmentations[0], seg.Type+":") && segmentations[1] != seg.Type {
				continue
			}
			for _, l := range report.Levels {
				if l.Name == "promoted_post" {
					continue // not pulled by segment
				}
				id := l.IDColumn()
				if id == "" {
					id = "account_id"
				}
				rel := report.Relation{Level: l, Segment: &seg}
				b.requireAddsUp(t, fmt.Sprintf(`SELECT account_id, %s, placement, date, sum(impressions), sum(engagements),
                    sum(spend_micro) FROM %s GROUP BY 1, 2, 3, 4 HAVING count(DISTINCT segment_value) > 1`, id, rel.Name()), l.Relation(), id)
				var named, country int
				require.NoError(t, b.pool.QueryRow(context.Background(), fmt.Sprintf(`SELECT count(*) FILTER (WHERE segment_name <> ''),
                    count(*) FILTER (WHERE %s) FROM %s`, map[bool]string{true: "country = '" + fixtures.CountryKeys["US"] + "'", false: "true"}[seg.Parameter == "country"],
					rel.Name())).Scan(&named, &country))
				require.Positive(t, named, "%s names its segments", rel.Name())
				require.Equal(t, named, country, "%s: the country it was pulled for", rel.Name())
			}
		}
	})
}

// requireAddsUp checks that sumSQL (account, id, placement, date and the
// three totals) equals relation's rows on the complete days.
func (b *pulledBundle) requireAddsUp(t *testing.T, sumSQL, relation, idColumn string) {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), sumSQL)
	require.NoError(t, err)
	got := map[dayKey]dayTotals{}
	for rows.Next() {
		var k dayKey
		var d time.Time
		var imp, eng, spend *int64
		require.NoError(t, rows.Scan(&k.account, &k.id, &k.placement, &d, &imp, &eng, &spend))
		if d.Before(b.first) || d.After(b.last[k.account]) {
			continue
		}
		k.date = d.Format(time.DateOnly)
		got[k] = dayTotals{deref(imp), deref(eng), deref(spend)}
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, got, sumSQL)
	want := b.relationTotals(t, relation, idColumn, "")
	for k := range want {
		if _, ok := got[k]; !ok && strings.Contains(sumSQL, "HAVING") {
			delete(want, k) // a segmented sum holds only what the segmentation pulled
		}
	}
	require.Equal(t, want, got, relation)
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// requireNamesAndCurrency compares each relation's names and currency with
// the entity tables' (read on their own), and an account's currency with
// its funding instruments', campaigns' and line items'.
func (b *pulledBundle) requireNamesAndCurrency(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	record := func(table string) map[string][2]string {
		out := map[string][2]string{}
		rows, err := b.pool.Query(ctx, `SELECT id, coalesce(name, ''), coalesce(to_jsonb(t)->>'currency', '') FROM `+table+` t`)
		require.NoError(t, err)
		for rows.Next() {
			var id, name, cur string
			require.NoError(t, rows.Scan(&id, &name, &cur))
			out[id] = [2]string{name, cur}
		}
		require.NoError(t, rows.Err())
		return out
	}
	accounts, fis, camps, lis := record("accounts"), record("funding_instruments"), record("campaigns"), record("line_items")
	check := func(relation, idCol string, names map[string][2]string, nameCol string) {
		rows, err := b.pool.Query(ctx, fmt.Sprintf(`SELECT DISTINCT account_id, account_name, currency, %s, %s FROM %s`, idCol, nameCol, relation))
		require.NoError(t, err)
		n := 0
		for rows.Next() {
			var acct, acctName, cur, id, name string
			require.NoError(t, rows.Scan(&acct, &acctName, &cur, &id, &name))
			require.Equal(t, accounts[acct][0], acctName, "%s: account %s", relation, acct)
			require.NotEmpty(t, cur, "%s: %s", relation, id)
			require.Equal(t, names[id][0], name, "%s: %s", relation, id)
			if c := names[id][1]; c != "" {
				require.Equal(t, c, cur, "%s: %s's currency", relation, id)
			}
			n++
		}
		require.NoError(t, rows.Err())
		require.Positive(t, n, relation)
	}
	check("report_account_daily", "account_id", accounts, "account_name")
	check("report_funding_instrument_daily", "funding_instrument_id", fis, "funding_instrument_name")
	check("report_campaign_daily", "campaign_id", camps, "campaign_name")
	check("report_line_item_daily", "line_item_id", lis, "line_item_name")
	check("report_line_item_daily", "campaign_id", camps, "campaign_name")
	check("report_promoted_post_daily", "line_item_id", lis, "line_item_name")
	check("report_promoted_post_daily", "campaign_id", camps, "campaign_name")
	// One account, one currency: its funding instruments', campaigns' and
	// line items' (the fake gives an account one, as the service does).
	var mixed int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT r.account_id FROM report_account_daily r
        JOIN (SELECT account_id, currency FROM campaigns UNION SELECT account_id, currency FROM line_items
              UNION SELECT account_id, currency FROM funding_instruments) e ON e.account_id = r.account_id
        GROUP BY r.account_id HAVING count(DISTINCT e.currency) > 1 OR min(e.currency) <> min(r.currency)) x`).Scan(&mixed))
	require.Zero(t, mixed)
}
