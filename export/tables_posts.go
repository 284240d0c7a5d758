package export

import "github.com/adsync/adsync/sync/posts"

// The v2 posts pipeline's tables: posts, media, users, their daily metrics
// and lookup status, and the histories of posts, media and users.
func init() {
	for _, t := range []Table{v2PostsTable, v2MediaTable, v2UsersTable, v2PostStatusTable, postMetricsDailyTable} {
		register(t)
	}
	for _, h := range posts.Histories() {
		register(historyOf(registry[h.Table], h.View()))
	}
}

// v2PostsTable is the posts the v2 pipeline hydrated, with their public metrics.
var v2PostsTable = Table{
	Name: "v2_posts", From: "v2_posts", ChangedAt: "updated_at", OrderBy: "id", Key: []string{"id"},
	Columns: []Column{
		{Name: "id", Kind: String},
		{Name: "text", Kind: String},
		{Name: "author_id", Kind: String, Nullable: true},
		{Name: "created_at", SQL: "api_created_at", Kind: Timestamp, Nullable: true},
		{Name: "conversation_id", Kind: String, Nullable: true},
		{Name: "in_reply_to_user_id", Kind: String, Nullable: true},
		{Name: "lang", Kind: String, Nullable: true},
		{Name: "possibly_sensitive", Kind: Bool, Nullable: true},
		{Name: "community_id", Kind: String, Nullable: true},
		{Name: "media_keys", Kind: StringList},
		{Name: "referenced_posts", Kind: JSON, Nullable: true},
		{Name: "repost_count", Kind: Int64, Nullable: true},
		{Name: "reply_count", Kind: Int64, Nullable: true},
		{Name: "like_count", Kind: Int64, Nullable: true},
		{Name: "quote_count", Kind: Int64, Nullable: true},
		{Name: "impression_count", Kind: Int64, Nullable: true},
		{Name: "first_seen_at", Kind: Timestamp},
		{Name: "fetched_at", Kind: Timestamp},
		{Name: "updated_at", Kind: Timestamp},
		{Name: "raw", Kind: JSON},
	},
}

// v2MediaTable is the media the posts carry.
var v2MediaTable = Table{
	Name: "v2_media", From: "v2_media", ChangedAt: "updated_at", OrderBy: "media_key", Key: []string{"media_key"},
	Columns: []Column{
		{Name: "media_key", Kind: String},
		{Name: "type", Kind: String, Nullable: true},
		{Name: "duration_ms", Kind: Int64, Nullable: true},
		{Name: "view_count", Kind: Int64, Nullable: true},
		{Name: "alt_text", Kind: String, Nullable: true},
		{Name: "preview_image_url", Kind: String, Nullable: true},
		{Name: "width", Kind: Int64, Nullable: true},
		{Name: "height", Kind: Int64, Nullable: true},
		{Name: "variants", Kind: JSON, Nullable: true},
		{Name: "first_seen_at", Kind: Timestamp},
		{Name: "fetched_at", Kind: Timestamp},
		{Name: "updated_at", Kind: Timestamp},
		{Name: "raw", Kind: JSON},
	},
}

// v2UsersTable is the posts' authors.
var v2UsersTable = Table{
	Name: "v2_users", From: "v2_users", ChangedAt: "updated_at", OrderBy: "id", Key: []string{"id"},
	Columns: []Column{
		{Name: "id", Kind: String},
		{Name: "name", Kind: String, Nullable: true},
		{Name: "username", Kind: String, Nullable: true},
		{Name: "created_at", SQL: "api_created_at", Kind: Timestamp, Nullable: true},
		{Name: "description", Kind: String, Nullable: true},
		{Name: "location", Kind: String, Nullable: true},
		{Name: "url", Kind: String, Nullable: true},
		{Name: "profile_image_url", Kind: String, Nullable: true},
		{Name: "verified", Kind: Bool, Nullable: true},
		{Name: "verified_type", Kind: String, Nullable: true},
		{Name: "protected", Kind: Bool, Nullable: true},
		{Name: "subscription_type", Kind: String, Nullable: true},
		{Name: "pinned_post_id", Kind: String, Nullable: true},
		{Name: "followers_count", Kind: Int64, Nullable: true},
		{Name: "following_count", Kind: Int64, Nullable: true},
		{Name: "post_count", Kind: Int64, Nullable: true},
		{Name: "listed_count", Kind: Int64, Nullable: true},
		{Name: "affiliation_user_ids", Kind: StringList},
		{Name: "first_seen_at", Kind: Timestamp},
		{Name: "fetched_at", Kind: Timestamp},
		{Name: "updated_at", Kind: Timestamp},
		{Name: "raw", Kind: JSON},
	},
}

// v2PostStatusTable is whether each post looked up was found, and why not.
var v2PostStatusTable = Table{
	Name: "v2_post_status", From: "v2_post_status", ChangedAt: "checked_at", OrderBy: "post_id", Key: []string{"post_id"},
	Columns: []Column{
		{Name: "post_id", Kind: String},
		{Name: "found", Kind: Bool},
		{Name: "error", Kind: String, Nullable: true},
		{Name: "detail", Kind: String, Nullable: true},
		{Name: "problem", Kind: JSON, Nullable: true},
		{Name: "checked_at", Kind: Timestamp},
	},
}

// postMetricsDailyTable is each post's public metrics by day.
var postMetricsDailyTable = Table{
	Name: "post_metrics_daily", From: "post_metrics_daily", ChangedAt: "fetched_at", OrderBy: "post_id, day", Key: []string{"post_id", "day"},
	Columns: []Column{
		{Name: "post_id", Kind: String},
		{Name: "day", Kind: Date},
		{Name: "repost_count", Kind: Int64, Nullable: true},
		{Name: "reply_count", Kind: Int64, Nullable: true},
		{Name: "like_count", Kind: Int64, Nullable: true},
		{Name: "quote_count", Kind: Int64, Nullable: true},
		{Name: "impression_count", Kind: Int64, Nullable: true},
		{Name: "fetched_at", Kind: Timestamp},
	},
}
