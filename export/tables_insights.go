package export

// The keyword insights pipeline's tables: a row per (set, window, keyword
// group) and the volume series of each, both stamped with the fetch time of
// their window (a re-run replaces a window, so it is exported again).
func init() {
	register(Table{
		Name: "keyword_insight_windows", From: "keyword_insight_windows", ChangedAt: "fetched_at",
		OrderBy: "set_name, window_start, keywords_hash",
		// A re-run replaces a set's whole window: its newest rows are the window.
		Key: []string{"set_name", "window_start"},
		Columns: []Column{
			{Name: "set_name", Kind: String},
			{Name: "keywords_hash", Kind: String},
			{Name: "keywords", Kind: StringList},
			{Name: "negative_keywords", Kind: StringList},
			{Name: "location", Kind: String},
			{Name: "granularity", Kind: String},
			{Name: "window_start", Kind: Timestamp},
			{Name: "window_end", Kind: Timestamp},
			{Name: "related_keywords", Kind: StringList},
			{Name: "fetched_at", Kind: Timestamp},
			{Name: "raw", Kind: JSON},
		},
	})
	register(Table{
		Name:      "keyword_volumes",
		From:      "keyword_volumes v JOIN keyword_insight_windows w USING (set_name, window_start, keywords_hash)",
		ChangedAt: "w.fetched_at", OrderBy: "v.set_name, v.window_start, v.keywords_hash, v.bucket_start",
		Key: []string{"set_name", "window_start"},
		Columns: []Column{
			{Name: "set_name", SQL: "v.set_name", Kind: String},
			{Name: "keywords_hash", SQL: "v.keywords_hash", Kind: String},
			{Name: "keywords", SQL: "w.keywords", Kind: StringList},
			{Name: "granularity", SQL: "w.granularity", Kind: String},
			{Name: "window_start", SQL: "v.window_start", Kind: Timestamp},
			{Name: "bucket_start", SQL: "v.bucket_start", Kind: Timestamp},
			{Name: "volume", SQL: "v.volume", Kind: Int64},
			{Name: "fetched_at", SQL: "w.fetched_at", Kind: Timestamp},
		},
	})
}
