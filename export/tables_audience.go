package export

// The audience upload pipeline's tables. Batches are exported without their
// bodies: no hash of a person leaves the database through an export.
func init() {
	register(Table{
		Name: "audience_uploads", From: "audience_uploads", ChangedAt: "coalesce(finished_at, created_at)", OrderBy: "id", Key: []string{"id"},
		Columns: []Column{
			{Name: "id", Kind: Int64},
			{Name: "account_id", Kind: String},
			{Name: "audience_id", Kind: String},
			{Name: "file_path", Kind: String},
			{Name: "checksum", Kind: String},
			{Name: "operation", Kind: String},
			{Name: "mode", Kind: String},
			{Name: "effective_at", Kind: Timestamp, Nullable: true},
			{Name: "expires_at", Kind: Timestamp, Nullable: true},
			{Name: "rows_read", Kind: Int64},
			{Name: "rows_invalid", Kind: Int64},
			{Name: "users", Kind: Int64},
			{Name: "state", Kind: String},
			{Name: "run_id", Kind: Int64, Nullable: true},
			{Name: "created_at", Kind: Timestamp},
			{Name: "finished_at", Kind: Timestamp, Nullable: true},
		},
	})
	register(Table{
		Name: "audience_batches", From: "audience_batches b JOIN audience_uploads u ON u.id = b.upload_id",
		ChangedAt: "coalesce(b.finished_at, b.sent_at, u.created_at)", OrderBy: "b.upload_id, b.seq", Key: []string{"upload_id", "seq"},
		Columns: []Column{
			{Name: "upload_id", SQL: "b.upload_id", Kind: Int64},
			{Name: "seq", SQL: "b.seq", Kind: Int64},
			{Name: "audience_id", SQL: "u.audience_id", Kind: String},
			{Name: "operation", SQL: "b.operation", Kind: String},
			{Name: "user_count", SQL: "b.user_count", Kind: Int64},
			{Name: "body_bytes", SQL: "b.body_bytes", Kind: Int64},
			{Name: "state", SQL: "b.state", Kind: String},
			{Name: "attempts", SQL: "b.attempts", Kind: Int64},
			{Name: "retries", SQL: "b.retries", Kind: Int64},
			{Name: "success_count", SQL: "b.success_count", Kind: Int64, Nullable: true},
			{Name: "total_count", SQL: "b.total_count", Kind: Int64, Nullable: true},
			{Name: "last_error", SQL: "b.last_error", Kind: String, Nullable: true},
			{Name: "sent_at", SQL: "b.sent_at", Kind: Timestamp, Nullable: true},
			{Name: "finished_at", SQL: "b.finished_at", Kind: Timestamp, Nullable: true},
		},
	})
}
