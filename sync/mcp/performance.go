package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/report"
	"github.com/jackc/pgx/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PerformanceInput is what the performance tool takes.
type PerformanceInput struct {
	Level      string   `json:"level" jsonschema:"the report level: account, funding_instrument, campaign, line_item or promoted_post"`
	Since      string   `json:"since,omitempty" jsonschema:"first account-local day, YYYY-MM-DD (default: 7 days before until)"`
	Until      string   `json:"until,omitempty" jsonschema:"last account-local day, YYYY-MM-DD, included (default: each account's yesterday)"`
	AccountIDs []string `json:"account_ids,omitempty" jsonschema:"account ids (from list_accounts); default every account"`
	EntityIDs  []string `json:"entity_ids,omitempty" jsonschema:"ids of the level's entities (campaign ids at the campaign level, ...); default all"`
	Metrics    []string `json:"metrics,omitempty" jsonschema:"metric columns (describe_metrics lists them); default impressions, clicks, engagements, spend, ctr, cpc, cpm"`
	By         string   `json:"by,omitempty" jsonschema:"total (one row per entity over the span, default) or day (one per entity and day)"`
	Segment    string   `json:"segment,omitempty" jsonschema:"split each row by a segmentation that was pulled (e.g. regions, age, gender, platforms); default none"`
	OrderBy    string   `json:"order_by,omitempty" jsonschema:"a metric to order by, largest first; default spend within each account"`
	Limit      int      `json:"limit,omitempty" jsonschema:"at most this many rows (default and maximum: the server's row cap)"`
}

// defaultMetrics are the metrics an answer carries when none are asked.
var defaultMetrics = []string{"impressions", "clicks", "engagements", "spend", "ctr", "cpc", "cpm"}

func (s *server) addPerformance(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "performance",
		Title: "Read delivery and spend",
		Description: "Reads what accounts, funding instruments, campaigns, line items or promoted posts delivered " +
			"and spent, from adsync's report relations (report_<level>_daily, placements summed): one row per " +
			"entity (by=total) or per entity and day (by=day), with the account's and entity's names and the " +
			"currency. Dates are account-local days, both included; by default each account's last 7 complete " +
			"days. spend is in the currency's units (exact decimals), ctr a fraction, cpc and cpm in currency " +
			"units. segment splits rows by a pulled segmentation (regions, age, ...). Use describe_metrics for " +
			"what each metric means.",
		Annotations: readOnly(),
	}, s.performance)
}

// performance answers the performance tool through sync/report's Read.
func (s *server) performance(ctx context.Context, _ *sdk.CallToolRequest, in PerformanceInput) (*sdk.CallToolResult, Answer, error) {
	req, metrics, err := s.performanceRequest(in)
	if err != nil {
		return nil, Answer{}, err
	}
	want := s.opts.MaxRows
	if in.Limit > 0 && in.Limit < want {
		want = in.Limit
	}
	req.Limit = want + 1
	var res *report.Result
	err = s.read(ctx, func(tx pgx.Tx) error {
		var err error
		res, err = report.Read(ctx, tx, req)
		return err
	})
	if err != nil {
		return nil, Answer{}, err
	}
	ans := Answer{Rows: []map[string]any{}, Note: spansNote(res.Spans)}
	rows := res.Rows
	if len(rows) > want {
		rows = rows[:want]
		ans.Truncated = want == s.opts.MaxRows
	}
	keys := slices.DeleteFunc(slices.Clone(res.Columns), func(c string) bool { return slices.Contains(report.MetricColumns(), c) })
	for _, r := range rows {
		obj := map[string]any{}
		for _, k := range keys {
			obj[k] = deref(res.Value(r, k))
		}
		for _, m := range metrics {
			if v := res.Value(r, m); v != nil {
				obj[m] = json.Number(*v)
			} else {
				obj[m] = nil
			}
		}
		ans.Rows = append(ans.Rows, obj)
	}
	title := "performance by " + req.Level.Name
	return result(title, append(keys, metrics...), ans), ans, nil
}

// performanceRequest checks the arguments and turns them into a read and
// the metrics to answer.
func (s *server) performanceRequest(in PerformanceInput) (report.Request, []string, error) {
	lvl, err := report.LookupLevel(strings.ToLower(strings.TrimSpace(in.Level)))
	if err != nil {
		return report.Request{}, nil, err
	}
	req := report.Request{Level: lvl, Accounts: in.AccountIDs, EntityIDs: in.EntityIDs, Now: s.opts.Now(),
		By: strings.ToLower(in.By), OrderBy: in.OrderBy}
	if req.By == "" {
		req.By = report.ByTotal
	}
	if req.By != report.ByTotal && req.By != report.ByDay {
		return req, nil, inputErrorf("by %q: want total or day", in.By)
	}
	if in.Segment != "" {
		if req.Segment, err = report.LookupSegment(in.Segment); err != nil {
			return req, nil, err
		}
	}
	if req.Since, err = parseDay("since", in.Since); err != nil {
		return req, nil, err
	}
	if req.Until, err = parseDay("until", in.Until); err != nil {
		return req, nil, err
	}
	if in.Limit < 0 {
		return req, nil, inputErrorf("limit %d: want a positive number of rows (at most %d)", in.Limit, s.opts.MaxRows)
	}
	metrics := in.Metrics
	if len(metrics) == 0 {
		metrics = defaultMetrics
	}
	all := report.MetricColumns()
	for _, m := range append(slices.Clone(metrics), in.OrderBy) {
		if m != "" && !slices.Contains(all, m) {
			return req, nil, inputErrorf("metric %q: want one of %s", m, strings.Join(all, ", "))
		}
	}
	return req, metrics, nil
}

// parseDay reads an account-local day ("" is none).
func parseDay(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(v))
	if err != nil {
		return t, inputErrorf("%s %q: want a date as YYYY-MM-DD (an account-local day)", name, v)
	}
	return t, nil
}

// spansNote says which days were read for each account.
func spansNote(spans []report.Span) string {
	if len(spans) == 0 {
		return "no account has days in the span"
	}
	var parts []string
	for _, sp := range spans {
		parts = append(parts, fmt.Sprintf("%s %s..%s", sp.AccountID, sp.Since.Format(time.DateOnly), sp.Until.Format(time.DateOnly)))
	}
	return "days read: " + strings.Join(parts, "; ")
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
