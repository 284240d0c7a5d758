package export

import "github.com/adsync/adsync/sync/stats"

// The analytics table: one row per account, entity, placement,
// granularity, segment and bucket. A re-pull replaces its rows (stamped
// with the pull's time), so they are exported again; per key the newest
// run's row is the bucket's value.
func init() {
	cols := []Column{
		{Name: "account_id", Kind: String},
		{Name: "entity_type", Kind: String},
		{Name: "entity_id", Kind: String},
		{Name: "placement", Kind: String},
		{Name: "granularity", Kind: String},
		{Name: "segment_type", Kind: String},
		{Name: "segment_name", Kind: String},
		{Name: "segment_value", Kind: String},
		{Name: "bucket_date", Kind: Date},
		{Name: "bucket_start", Kind: Timestamp, Nullable: true},
	}
	for _, c := range stats.ColumnNames() {
		cols = append(cols, Column{Name: c, Kind: Int64, Nullable: true})
	}
	cols = append(cols, Column{Name: "fetched_at", Kind: Timestamp}, Column{Name: "job_id", Kind: String})
	register(Table{
		Name: "ad_stats", From: "ad_stats", ChangedAt: "fetched_at",
		OrderBy: "account_id, entity_type, entity_id, placement, granularity, segment_type, segment_value, bucket_date, bucket_start",
		Key: []string{"account_id", "entity_type", "entity_id", "placement", "granularity", "segment_type", "segment_value",
			"bucket_date", "bucket_start"},
		Columns: cols,
	})
}
