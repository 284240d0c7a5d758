package posts

import (
	"net/url"
	"strings"
)

// Endpoint is the rate-limit key and path of the v2 post lookup.
const (
	Endpoint = "GET /2/posts"
	path     = "/2/posts"
)

// MaxIDs is how many ids one lookup carries (the service accepts 1 to 100).
const MaxIDs = 100

// Field selection (spec document 1, v2 data objects and dated changes).
// Without post.fields only id and text come back, and an expansion's objects
// carry only the fields their own *.fields names, so every field stored is
// named here.
var (
	// PostFields are the post object's fields plus community_id (Nov 22,
	// 2024); impression_count (Jan 5, 2023) comes inside public_metrics.
	// source is left out: the change of Dec 20, 2022 removed it from the
	// payload, so asking for it returns nothing.
	PostFields = []string{"attachments", "author_id", "community_id", "context_annotations", "conversation_id",
		"created_at", "entities", "id", "in_reply_to_user_id", "lang", "possibly_sensitive", "public_metrics",
		"referenced_posts", "text"}
	// MediaFields are the media object's fields plus alt_text and variants
	// (named in the changes) and the dimensions and preview the service
	// serves.
	MediaFields = []string{"alt_text", "duration_ms", "height", "media_key", "preview_image_url", "public_metrics",
		"type", "variants", "width"}
	// UserFields are the user object's fields plus verified_type (Dec 21,
	// 2022), subscription_type, connection_status and affiliation.
	UserFields = []string{"affiliation", "connection_status", "created_at", "description", "entities", "id",
		"location", "name", "pinned_post_id", "profile_image_url", "protected", "public_metrics", "subscription_type",
		"url", "username", "verified", "verified_type"}
	// Expansions bring each post's media, author and referenced posts into
	// includes.
	Expansions = []string{"attachments.media_keys", "author_id", "referenced_posts.id"}
)

// Query is the lookup's query for ids.
func Query(ids []string) url.Values {
	q := url.Values{}
	q.Set("ids", strings.Join(ids, ","))
	q.Set("post.fields", strings.Join(PostFields, ","))
	q.Set("expansions", strings.Join(Expansions, ","))
	q.Set("media.fields", strings.Join(MediaFields, ","))
	q.Set("user.fields", strings.Join(UserFields, ","))
	return q
}
