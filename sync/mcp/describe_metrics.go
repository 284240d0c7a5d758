package mcp

import (
	"context"
	"slices"
	"strings"

	"github.com/adsync/adsync/sync/report"
	"github.com/adsync/adsync/sync/stats"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DescribeMetricsInput is what the describe_metrics tool takes.
type DescribeMetricsInput struct {
	Metric string `json:"metric,omitempty" jsonschema:"one metric column to describe; default every one"`
}

// groupMeaning says what a metric group measures (spec analytics.md,
// Common parameters).
var groupMeaning = map[string]string{
	stats.GroupEngagement: "engagement: how often the promoted content was shown and interacted with",
	stats.GroupBilling:    "billing: what the service charged",
	stats.GroupVideo:      "video: views and plays of the promoted video",
	stats.GroupMedia:      "media: views and engagements of the promoted media",
	stats.GroupWebConv:    "web conversions: website actions attributed to the ads",
	stats.GroupMobileConv: "mobile app conversions attributed to the ads",
	stats.GroupLTVConv:    "mobile app conversions' lifetime value",
}

// memberMeaning says what each member of a conversion object counts.
var memberMeaning = map[string]string{
	"metric":          "conversions",
	"order_quantity":  "items ordered",
	"sale_amount":     "sale amount, in micros of the account's currency",
	"post_engagement": "conversions after an engagement with the post",
	"post_view":       "conversions after a view of the post",
	"assisted":        "conversions the ads assisted",
}

// computedMeaning are the report's own metrics, computed from the stored ones.
var computedMeaning = map[string][2]string{
	"spend":       {"what was spent (billed_charge_local_micro over a million, exact)", "currency units"},
	"spend_micro": {"what was spent (billed_charge_local_micro)", "micros of the currency"},
	"ctr":         {"click-through rate: clicks over impressions (null when no impressions)", "fraction"},
	"cpc":         {"cost per click: spend over clicks (null when no clicks)", "currency units"},
	"cpm":         {"cost per thousand impressions: spend over impressions times 1000 (null when none)", "currency units"},
}

func (s *server) addDescribeMetrics(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "describe_metrics",
		Title: "Describe the performance metrics",
		Description: "Describes every metric the performance tool can return: its name, meaning, unit, the service's " +
			"metric group and the report levels that have it. Call it to pick performance's metrics and order_by.",
		Annotations: readOnly(),
	}, s.describeMetrics)
}

// describeMetrics answers describe_metrics from the report's metric columns
// and sync/stats' metric catalogue.
func (s *server) describeMetrics(_ context.Context, _ *sdk.CallToolRequest, in DescribeMetricsInput) (*sdk.CallToolResult, Answer, error) {
	all := report.MetricColumns()
	if in.Metric != "" && !slices.Contains(all, in.Metric) {
		return nil, Answer{}, inputErrorf("metric %q: want one of %s", in.Metric, strings.Join(all, ", "))
	}
	ans := Answer{Rows: []map[string]any{}}
	for _, name := range all {
		if in.Metric != "" && name != in.Metric {
			continue
		}
		ans.Rows = append(ans.Rows, describeMetric(name))
	}
	return result("metrics", []string{"metric", "unit", "meaning"}, ans), ans, nil
}

// describeMetric is one report metric column's description.
func describeMetric(name string) map[string]any {
	row := map[string]any{"metric": name, "levels": metricLevels(stats.GroupEngagement)}
	if c, ok := computedMeaning[name]; ok {
		row["meaning"], row["unit"], row["group"] = c[0], c[1], stats.GroupBilling
		return row
	}
	i := slices.IndexFunc(stats.Columns, func(c stats.Column) bool { return c.Name == name })
	if i < 0 {
		return row
	}
	col := stats.Columns[i]
	m := stats.Metrics[slices.IndexFunc(stats.Metrics, func(m stats.Metric) bool { return m.Name == col.Metric })]
	meaning := strings.ReplaceAll(col.Metric, "_", " ") + " (" + groupMeaning[m.Group] + ")"
	unit := "count"
	if col.Member != "" {
		meaning = memberMeaning[col.Member] + " of " + strings.ReplaceAll(col.Metric, "_", " ") + " (" + groupMeaning[m.Group] + ")"
	}
	if strings.HasSuffix(name, "_micro") || col.Member == "sale_amount" {
		unit = "micros of the currency"
	}
	row["meaning"], row["unit"], row["group"], row["levels"] = meaning, unit, m.Group, metricLevels(m.Group)
	return row
}

// metricLevels are the report levels whose stats rows take group: a level
// reads its entity's rows (rolled-up levels their campaigns').
func metricLevels(group string) []string {
	var out []string
	for _, l := range report.Levels {
		if slices.Contains(stats.AllowedGroups(l.Entity), group) {
			out = append(out, l.Name)
		}
	}
	return out
}
