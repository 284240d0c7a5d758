package export

import (
	"slices"
	"strings"

	"github.com/adsync/adsync/sync/report"
)

// The daily reports (sync/report): one table per report relation, read
// from its view. They are incremental as ad_stats is: a row's fetched_at is
// that of the pull that stored it (the latest of its campaigns' for the
// rolled-up levels), so a re-pull exports the days it replaced again and a
// reader keeps, per key, the newest run's row.
func init() {
	for _, r := range report.Relations() {
		register(reportTable(r))
	}
}

// reportTable declares a report relation's table: spend as exact decimals
// (from its micros), the ratios as doubles, the other metrics as integers.
func reportTable(r report.Relation) Table {
	keys := r.KeyColumns()
	metrics := report.MetricColumns()
	var cols []Column
	for _, name := range r.Columns() {
		c := Column{Name: name, Kind: String, Nullable: true}
		switch {
		case name == "date":
			c.Kind, c.Nullable = Date, false
		case name == "fetched_at":
			c.Kind, c.Nullable = Timestamp, false
		case name == "spend":
			c.Kind, c.SQL = Micros, "spend_micro"
		case slices.Contains(report.Ratios, name):
			c.Kind, c.SQL = Float64, name+"::float8"
		case slices.Contains(metrics, name):
			c.Kind = Int64
		case slices.Contains(keys, name):
			// A rolled-up funding instrument is its campaign's, unknown
			// while the campaign is not synced.
			c.Nullable = name == "funding_instrument_id"
		}
		cols = append(cols, c)
	}
	return Table{Name: r.Name(), From: r.Name(), ChangedAt: "fetched_at", OrderBy: strings.Join(keys, ", "), Key: keys, Columns: cols}
}
