package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsync/adsync/sync/stats"
)

// The report metrics: the four an analyst asks for first, spend in
// currency units and the ratios, then spend in micros and every other
// metric ad_stats stores, as stored (conversion sale amounts stay in
// micros, as the service reports them).
const (
	microColumn = "billed_charge_local_micro" // ad_stats' spend
	spendMicro  = "spend_micro"               // the reports' name for it
)

// leadMetrics come first, in this order.
var leadMetrics = []string{"impressions", "engagements", "clicks", "url_clicks"}

// Ratios are the computed metrics besides spend.
var Ratios = []string{"ctr", "cpc", "cpm"}

// storedMetrics are the ad_stats metric columns in report order: the lead
// metrics, then billed_charge_local_micro, then the others.
func storedMetrics() []string {
	out := slices.Clone(leadMetrics)
	out = append(out, microColumn)
	for _, c := range stats.ColumnNames() {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// reportName is a stored metric's name in the reports.
func reportName(stored string) string {
	if stored == microColumn {
		return spendMicro
	}
	return stored
}

// MetricColumns are the reports' metric columns, in order.
func MetricColumns() []string {
	var out []string
	for _, c := range metricSQL(func(string) string { return "" }) {
		out = append(out, c.Name)
	}
	return out
}

// metricSQL is every metric column of a report, given the SQL of each
// stored metric's value (by its ad_stats name). Spend is exact: micros over
// a million, six decimals. A ratio is NULL where its denominator is zero
// or NULL; cpc and cpm are to the micro unit like spend, ctr (clicks over
// impressions, a fraction) to six decimals.
func metricSQL(stored func(col string) string) []Column {
	m, clicks, imps := stored(microColumn), stored("clicks"), stored("impressions")
	var out []Column
	for _, c := range leadMetrics {
		out = append(out, Column{c, stored(c)})
	}
	out = append(out,
		Column{"spend", fmt.Sprintf("round(%s::numeric / 1000000, 6)", m)},
		Column{"ctr", fmt.Sprintf("round(coalesce(%s, 0)::numeric / NULLIF(%s, 0), 6)", clicks, imps)},
		Column{"cpc", fmt.Sprintf("round(coalesce(%s, 0)::numeric / 1000000 / NULLIF(%s, 0), 6)", m, clicks)},
		Column{"cpm", fmt.Sprintf("round(coalesce(%s, 0)::numeric / 1000 / NULLIF(%s, 0), 6)", m, imps)},
	)
	for _, c := range storedMetrics()[len(leadMetrics):] {
		out = append(out, Column{reportName(c), stored(c)})
	}
	return out
}

// metricType is the SQL type of a report metric.
func metricType(name string) string {
	switch name {
	case "spend", "ctr", "cpc", "cpm":
		return "numeric"
	}
	return "bigint"
}

// The report relations share their metrics through a composite type: each
// base view computes a row's metrics once, as one report_metrics value m,
// and every relation expands it with (b.m).*, so the metrics' SQL is
// written once per base rather than once per relation. Postgres reads the
// fields of a ROW(...) straight out of its expressions once the views are
// merged into a query, so the composite costs nothing there.
func typeSQL() string {
	var fields []string
	for _, c := range MetricColumns() {
		fields = append(fields, c+" "+metricType(c))
	}
	return fmt.Sprintf("CREATE TYPE report_metrics AS (\n    %s\n);\n", wrap(fields, "    "))
}

// metricsRow is the composite of the metrics over source alias src.
func metricsRow(src, indent string) string {
	var exprs []string
	for _, c := range metricSQL(func(col string) string { return src + "." + col }) {
		exprs = append(exprs, c.SQL)
	}
	return "ROW(" + wrap(exprs, indent+"    ") + ")::report_metrics AS m"
}

// baseSQL is the view of ad_stats' DAY rows with their metrics.
func baseSQL() string {
	return fmt.Sprintf(`CREATE VIEW report_base_day AS
SELECT s.bucket_date, s.account_id, s.entity_type, s.entity_id, s.placement, s.segment_type, s.segment_value,
    s.segment_name,
    %s,
    s.fetched_at
FROM ad_stats s
WHERE s.granularity = 'DAY';
`, metricsRow("s", "    "))
}

// rolledUpBaseSQL is the view of a rolled-up level's campaign rows summed
// by day, account, the level's keys, placement and segment.
func rolledUpBaseSQL(l Level) string {
	keys := []Column{{"bucket_date", "s.bucket_date"}, {"account_id", "s.account_id"}}
	keys = append(keys, l.GroupBy...)
	keys = append(keys, Column{"placement", "s.placement"}, Column{"segment_type", "s.segment_type"},
		Column{"segment_value", "s.segment_value"})
	var outer, sel, group []string
	for _, k := range keys {
		outer = append(outer, "g."+k.Name)
		sel = append(sel, aliased(k))
		group = append(group, k.SQL)
	}
	// A segment's name follows from its value; max keeps one.
	sel = append(sel, "max(s.segment_name) AS segment_name")
	for _, c := range storedMetrics() {
		sel = append(sel, fmt.Sprintf("sum(s.%s)::bigint AS %s", c, c))
	}
	sel = append(sel, "max(s.fetched_at) AS fetched_at")
	from := "ad_stats s"
	if l.GroupJoins != "" {
		from += "\n    " + l.GroupJoins
	}
	return fmt.Sprintf(`CREATE VIEW %s AS
SELECT %s, g.segment_name,
    %s,
    g.fetched_at
FROM (
    SELECT %s
    FROM %s
    WHERE s.entity_type = '%s' AND s.granularity = 'DAY'
    GROUP BY %s) g;
`, l.Base(), wrap(outer, "    "), metricsRow("g", "    "), wrap(sel, "        "), from, l.Entity, strings.Join(group, ", "))
}

// segmentFilter selects the base rows of segment seg (nil: the
// unsegmented rows). A type pulled for a country or platform is stored as
// TYPE:VALUE; every filter compares the type before the colon, the
// expression ad_stats_report_idx holds.
func segmentFilter(seg *Segment) string {
	typ := ""
	if seg != nil {
		typ = seg.Type
	}
	return fmt.Sprintf("split_part(b.segment_type, ':', 1) = '%s'", typ)
}

// segmentColumns are a segment relation's own columns: the country or
// platform the type was pulled for, the segment's value and name.
func segmentColumns(seg *Segment) []Column {
	if seg == nil {
		return nil
	}
	var out []Column
	if seg.Parameter != "" {
		out = append(out, Column{seg.Parameter, "split_part(b.segment_type, ':', 2)"})
	}
	return append(out, Column{"segment_value", "b.segment_value"}, Column{"segment_name", "b.segment_name"})
}

// keyColumns are the relation's columns before the metrics.
func (r Relation) keyColumns() []Column {
	out := []Column{
		{"date", "b.bucket_date"},
		{"account_id", "b.account_id"},
		{"account_name", "a.name"},
		{"currency", r.Level.Currency},
	}
	out = append(out, r.Level.Columns...)
	out = append(out, Column{"placement", "b.placement"})
	return append(out, segmentColumns(r.Segment)...)
}

// Columns are the relation's columns, in order.
func (r Relation) Columns() []string {
	var out []string
	for _, c := range r.keyColumns() {
		out = append(out, c.Name)
	}
	out = append(out, MetricColumns()...)
	return append(out, "fetched_at")
}

// KeyColumns identify one row of the relation: the day, the account, the
// level's id, the placement and the segment.
func (r Relation) KeyColumns() []string {
	out := []string{"date", "account_id"}
	if id := r.Level.IDColumn(); id != "" {
		out = append(out, id)
	}
	out = append(out, "placement")
	for _, c := range segmentColumns(r.Segment) {
		if c.Name != "segment_name" {
			out = append(out, c.Name)
		}
	}
	return out
}

// ViewSQL is the CREATE VIEW statement of the relation.
func (r Relation) ViewSQL() string {
	var sel []string
	for _, c := range r.keyColumns() {
		sel = append(sel, aliased(c))
	}
	where := segmentFilter(r.Segment)
	if !r.Level.RolledUp {
		where = fmt.Sprintf("b.entity_type = '%s' AND %s", r.Level.Entity, where)
	}
	joins := ""
	if r.Level.Joins != "" {
		joins = "\n" + r.Level.Joins
	}
	return fmt.Sprintf("CREATE VIEW %s AS\nSELECT %s,\n    (b.m).*, b.fetched_at\nFROM %s b\nLEFT JOIN accounts a ON a.id = b.account_id%s\nWHERE %s;\n",
		r.Name(), wrap(sel, "    "), r.Level.Base(), joins, where)
}

// wrap joins items with commas into lines of about 110 characters, each
// line after the first indented.
func wrap(items []string, indent string) string {
	var b strings.Builder
	line := 0
	for i, it := range items {
		if i > 0 {
			b.WriteString(",")
			line++
			if line+1+len(it) > 110 {
				b.WriteString("\n" + indent)
				line = len(indent)
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(it)
		line += len(it)
	}
	return b.String()
}

// aliased is c as a select list item: its SQL, named when it does not
// already end in its name.
func aliased(c Column) string {
	if c.SQL == c.Name || strings.HasSuffix(c.SQL, "."+c.Name) {
		return c.SQL
	}
	return c.SQL + " AS " + c.Name
}
