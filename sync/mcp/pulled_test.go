package mcp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/jobs/jobstest"
	adsyncmcp "github.com/adsync/adsync/sync/mcp"
	"github.com/adsync/adsync/sync/report"
	"github.com/stretchr/testify/require"
)

// pulledBundle is what the reports' tests pull: the fake's accounts (three
// time zones), funding instruments, campaigns, line items and promoted
// posts synced, and their analytics pulled by a running worker, unsegmented
// and by AGE; and a client session with the server over that database.
func pulledBundle(t *testing.T) (*testBundle, time.Time) {
	t.Helper()
	p := jobstest.SyncAndPullStats(t, "AGE")
	return &testBundle{pool: p.Pool, session: connect(t, adsyncmcp.New(p.Pool, adsyncmcp.Options{Now: func() time.Time { return p.Now }}))}, p.First
}

// Over analytics pulled from the fake, performance's numbers at every
// level, by entity and by day, and by AGE, are the report relations' sums.
func TestPerformanceOfAStatsPullFromTheFakeEqualsTheRelations(t *testing.T) {
	t.Parallel()
	b, first := pulledBundle(t)
	since, until := first.Format(time.DateOnly), first.AddDate(0, 0, 3).Format(time.DateOnly)
	for _, l := range report.Levels {
		id := l.IDColumn()
		if id == "" {
			id = "account_id"
		}
		var a answer
		res := b.call(t, "performance", map[string]any{"level": l.Name, "since": since, "until": until}, &a)
		require.False(t, res.IsError, text(res))
		want := relationTotals(t, b, l.Relation(), id, since, until)
		require.NotEmpty(t, want, l.Name)
		require.Len(t, a.Rows, len(want), l.Name)
		for _, r := range a.Rows {
			for _, m := range []string{"impressions", "clicks", "spend", "engagements"} {
				requireSameNumber(t, want[fmt.Sprint(r[id])][m], r[m], "%s %s %s", l.Name, r[id], m)
			}
		}
	}
	var a answer
	res := b.call(t, "performance", map[string]any{"level": "line_item", "since": since, "until": until, "by": "day",
		"metrics": []string{"spend"}, "order_by": "spend", "limit": 3}, &a)
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 3)
	res = b.call(t, "performance", map[string]any{"level": "campaign", "since": since, "until": until, "segment": "age"}, &a)
	require.False(t, res.IsError, text(res))
	require.NotEmpty(t, a.Rows, "the AGE pull has rows")
	var rows int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(DISTINCT (account_id, campaign_id, segment_value))
        FROM report_campaign_by_age_daily WHERE date BETWEEN $1 AND $2`, since, until).Scan(&rows))
	require.Len(t, a.Rows, rows, "one row per campaign and age")
}
