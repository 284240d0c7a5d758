package posts

import (
	"strings"

	"github.com/adsync/adsync/sync/store"
)

// HistoryMigration is the app migration that gave the v2 tables their
// histories.
const HistoryMigration = 33

// Histories declares the histories of the tables StoreResponse writes
// (docs/history.md): a new version whenever a record's content (doc_hash)
// changes. The service gives no updated_at, so a record's first version
// begins when adsync first saw it and a later one when adsync stored the
// change (the row's updated_at). Their columns are those of migration 5's
// tables; a test keeps them equal.
func Histories() []store.History {
	return []store.History{
		v2History("v2_posts", "id", "id text NOT NULL", "text text NOT NULL", "author_id text", "api_created_at timestamptz",
			"conversation_id text", "in_reply_to_user_id text", "lang text", "possibly_sensitive boolean",
			"community_id text", "media_keys text[] NOT NULL", "referenced_posts jsonb", "repost_count bigint",
			"reply_count bigint", "like_count bigint", "quote_count bigint", "impression_count bigint"),
		v2History("v2_media", "media_key", "media_key text NOT NULL", "type text", "duration_ms bigint", "view_count bigint",
			"alt_text text", "preview_image_url text", "width integer", "height integer", "variants jsonb"),
		v2History("v2_users", "id", "id text NOT NULL", "name text", "username text", "api_created_at timestamptz",
			"description text", "location text", "url text", "profile_image_url text", "verified boolean",
			"verified_type text", "protected boolean", "subscription_type text", "pinned_post_id text",
			"followers_count bigint", "following_count bigint", "post_count bigint", "listed_count bigint",
			"affiliation_user_ids text[]"),
	}
}

// v2History is the history of a v2 table keyed by key, whose columns are
// typed ("name type") and then those every v2 table ends with.
func v2History(table, key string, typed ...string) store.History {
	h := store.History{Table: table, Key: []string{key}, FirstSeen: "first_seen_at", Written: "updated_at",
		Changed: []string{"doc_hash"}}
	for _, c := range append(typed, "raw jsonb NOT NULL", "doc_hash text NOT NULL", "first_seen_at timestamptz NOT NULL",
		"fetched_at timestamptz NOT NULL", "updated_at timestamptz NOT NULL") {
		name, typ, _ := strings.Cut(c, " ")
		h.Columns = append(h.Columns, store.HistoryColumn{Name: name, Type: typ})
	}
	return h
}

// HistorySchemaSQL is the generated part of HistoryMigration.
func HistorySchemaSQL() string {
	var parts []string
	for _, h := range Histories() {
		parts = append(parts, h.SQL())
	}
	return strings.Join(parts, "\n")
}
