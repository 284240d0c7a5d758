package posts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Stored counts what one answer stored.
type Stored struct {
	// Found and NotFound are requested ids by outcome.
	Found, NotFound []string
	// Media and Users are the keys and ids of stored includes.
	Media, Users []string
	// Posts counts every post row written (requested and referenced).
	Posts int
}

// StoreResponse writes one answer in one transaction: users, media and
// posts as upserts (the typed columns plus the whole object as raw), a
// status row per requested id (found, or the service's partial error; an id
// the answer does not mention at all counts as not found) and today's
// metrics row of every post. requested are the ids the request carried.
func StoreResponse(ctx context.Context, tx pgx.Tx, requested []string, resp Response, now time.Time) (Stored, error) {
	var st Stored
	now = now.UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	var b pgx.Batch
	if err := queueIncludes(&b, &st, resp, now); err != nil {
		return st, err
	}
	found, err := queuePosts(&b, &st, resp, now, day)
	if err != nil {
		return st, err
	}
	if err := queueStatuses(&b, &st, requested, found, resp.Errors, now); err != nil {
		return st, err
	}
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return st, fmt.Errorf("storing posts: %w", err)
	}
	return st, nil
}

// queueIncludes queues the upserts of the answer's included users and
// media, and notes their ids and keys in st.
func queueIncludes(b *pgx.Batch, st *Stored, resp Response, now time.Time) error {
	users, err := decodeEach[User]("includes.users", resp.Includes.Users)
	if err != nil {
		return err
	}
	for i, u := range users {
		if u.ID == "" {
			return fmt.Errorf("%s: includes.users[%d] has no id", Endpoint, i)
		}
		queueUser(b, u, resp.Includes.Users[i], now)
		st.Users = append(st.Users, u.ID)
	}
	media, err := decodeEach[Media]("includes.media", resp.Includes.Media)
	if err != nil {
		return err
	}
	for i, m := range media {
		if m.MediaKey == "" {
			return fmt.Errorf("%s: includes.media[%d] has no media_key", Endpoint, i)
		}
		queueMedia(b, m, resp.Includes.Media[i], now)
		st.Media = append(st.Media, m.MediaKey)
	}
	return nil
}

// queuePosts queues the upserts of the answer's posts, requested (data)
// and referenced (includes.posts), counts them in st and returns the ids
// of the requested posts found.
func queuePosts(b *pgx.Batch, st *Stored, resp Response, now, day time.Time) (map[string]bool, error) {
	found := map[string]bool{}
	for _, list := range []struct {
		name string
		raws []json.RawMessage
	}{{"data", resp.Data}, {"includes.posts", resp.Includes.Posts}} {
		posts, err := decodeEach[Post](list.name, list.raws)
		if err != nil {
			return nil, err
		}
		for i, p := range posts {
			if p.ID == "" {
				return nil, fmt.Errorf("%s: %s[%d] has no id", Endpoint, list.name, i)
			}
			queuePost(b, p, list.raws[i], now, day)
			st.Posts++
			if list.name == "data" {
				found[p.ID] = true
			}
		}
	}
	return found, nil
}

// queueStatuses queues the status row of each requested id: found, or not
// found with the problem the answer's errors name for it (or, when they
// name none, "Not Found Error"), and notes each id in st.
func queueStatuses(b *pgx.Batch, st *Stored, requested []string, found map[string]bool, errs []json.RawMessage, now time.Time) error {
	problems := map[string]Problem{}
	problemRaw := map[string]json.RawMessage{}
	for _, raw := range errs {
		var p Problem
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("%s: decoding errors: %w", Endpoint, err)
		}
		if id := p.PostID(); id != "" {
			problems[id], problemRaw[id] = p, raw
		}
	}
	for _, id := range requested {
		if found[id] {
			st.Found = append(st.Found, id)
			b.Queue(`INSERT INTO v2_post_status (post_id, found, checked_at) VALUES ($1, true, $2)
				ON CONFLICT (post_id) DO UPDATE SET found = true, error = NULL, detail = NULL, problem = NULL, checked_at = EXCLUDED.checked_at`, id, now)
			continue
		}
		st.NotFound = append(st.NotFound, id)
		p, ok := problems[id]
		title, detail, raw := p.Title, p.Detail, problemRaw[id]
		if !ok {
			title, detail, raw = "Not Found Error", "the answer neither holds the post nor names an error for it", nil
		}
		b.Queue(`INSERT INTO v2_post_status (post_id, found, error, detail, problem, checked_at) VALUES ($1, false, $2, $3, $4, $5)
			ON CONFLICT (post_id) DO UPDATE SET found = false, error = EXCLUDED.error, detail = EXCLUDED.detail,
				problem = EXCLUDED.problem, checked_at = EXCLUDED.checked_at`, id, title, detail, rawOrNil(raw), now)
	}
	return nil
}

func queuePost(b *pgx.Batch, p Post, raw json.RawMessage, now, day time.Time) {
	var refs any
	if p.ReferencedPosts != nil {
		refs = p.ReferencedPosts
	}
	m := p.PublicMetrics
	if m == nil {
		m = &PostMetrics{}
	}
	b.Queue(`INSERT INTO v2_posts (id, text, author_id, api_created_at, conversation_id, in_reply_to_user_id, lang,
			possibly_sensitive, community_id, media_keys, referenced_posts, repost_count, reply_count, like_count,
			quote_count, impression_count, raw, doc_hash, first_seen_at, fetched_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $19)
		ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, author_id = EXCLUDED.author_id,
			api_created_at = EXCLUDED.api_created_at, conversation_id = EXCLUDED.conversation_id,
			in_reply_to_user_id = EXCLUDED.in_reply_to_user_id, lang = EXCLUDED.lang,
			possibly_sensitive = EXCLUDED.possibly_sensitive, community_id = EXCLUDED.community_id,
			media_keys = EXCLUDED.media_keys, referenced_posts = EXCLUDED.referenced_posts,
			repost_count = EXCLUDED.repost_count, reply_count = EXCLUDED.reply_count, like_count = EXCLUDED.like_count,
			quote_count = EXCLUDED.quote_count, impression_count = EXCLUDED.impression_count, raw = EXCLUDED.raw,
			doc_hash = EXCLUDED.doc_hash, fetched_at = EXCLUDED.fetched_at,
			updated_at = CASE WHEN v2_posts.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash THEN EXCLUDED.updated_at ELSE v2_posts.updated_at END`,
		p.ID, p.Text, nullable(p.AuthorID), p.CreatedAt, nullable(p.ConversationID), nullable(p.InReplyToUserID),
		nullable(p.Lang), p.PossiblySensitive, nullable(p.CommunityID), p.MediaKeys(), refs,
		m.RepostCount, m.ReplyCount, m.LikeCount, m.QuoteCount, m.ImpressionCount, string(raw), docHash(raw), now)
	if p.PublicMetrics == nil {
		return
	}
	b.Queue(`INSERT INTO post_metrics_daily (post_id, day, repost_count, reply_count, like_count, quote_count, impression_count, fetched_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (post_id, day) DO UPDATE SET repost_count = EXCLUDED.repost_count, reply_count = EXCLUDED.reply_count,
			like_count = EXCLUDED.like_count, quote_count = EXCLUDED.quote_count,
			impression_count = EXCLUDED.impression_count, fetched_at = EXCLUDED.fetched_at`,
		p.ID, day, m.RepostCount, m.ReplyCount, m.LikeCount, m.QuoteCount, m.ImpressionCount, now)
}

func queueMedia(b *pgx.Batch, m Media, raw json.RawMessage, now time.Time) {
	var views *int64
	if m.PublicMetrics != nil {
		views = m.PublicMetrics.ViewCount
	}
	b.Queue(`INSERT INTO v2_media (media_key, type, duration_ms, view_count, alt_text, preview_image_url, width, height,
			variants, raw, doc_hash, first_seen_at, fetched_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $12)
		ON CONFLICT (media_key) DO UPDATE SET type = EXCLUDED.type, duration_ms = EXCLUDED.duration_ms,
			view_count = EXCLUDED.view_count, alt_text = EXCLUDED.alt_text, preview_image_url = EXCLUDED.preview_image_url,
			width = EXCLUDED.width, height = EXCLUDED.height, variants = EXCLUDED.variants, raw = EXCLUDED.raw,
			doc_hash = EXCLUDED.doc_hash, fetched_at = EXCLUDED.fetched_at,
			updated_at = CASE WHEN v2_media.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash THEN EXCLUDED.updated_at ELSE v2_media.updated_at END`,
		m.MediaKey, nullable(m.Type), m.DurationMS, views, nullable(m.AltText), nullable(m.PreviewImageURL), m.Width, m.Height,
		rawOrNil(m.Variants), string(raw), docHash(raw), now)
}

func queueUser(b *pgx.Batch, u User, raw json.RawMessage, now time.Time) {
	var followers, following, posts, listed *int64
	if pm := u.PublicMetrics; pm != nil {
		followers, following, posts, listed = pm.FollowersCount, pm.FollowingCount, pm.PostCount, pm.ListedCount
	}
	var affiliation []string
	if u.Affiliation != nil {
		affiliation = u.Affiliation.UserID
	}
	b.Queue(`INSERT INTO v2_users (id, name, username, api_created_at, description, location, url, profile_image_url,
			verified, verified_type, protected, subscription_type, pinned_post_id, followers_count, following_count,
			post_count, listed_count, affiliation_user_ids, raw, doc_hash, first_seen_at, fetched_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $21, $21)
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, username = EXCLUDED.username,
			api_created_at = EXCLUDED.api_created_at, description = EXCLUDED.description, location = EXCLUDED.location,
			url = EXCLUDED.url, profile_image_url = EXCLUDED.profile_image_url, verified = EXCLUDED.verified,
			verified_type = EXCLUDED.verified_type, protected = EXCLUDED.protected,
			subscription_type = EXCLUDED.subscription_type, pinned_post_id = EXCLUDED.pinned_post_id,
			followers_count = EXCLUDED.followers_count, following_count = EXCLUDED.following_count,
			post_count = EXCLUDED.post_count, listed_count = EXCLUDED.listed_count,
			affiliation_user_ids = EXCLUDED.affiliation_user_ids, raw = EXCLUDED.raw, doc_hash = EXCLUDED.doc_hash,
			fetched_at = EXCLUDED.fetched_at,
			updated_at = CASE WHEN v2_users.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash THEN EXCLUDED.updated_at ELSE v2_users.updated_at END`,
		u.ID, nullable(u.Name), nullable(u.Username), u.CreatedAt, nullable(u.Description), nullable(u.Location),
		nullable(u.URL), nullable(u.ProfileImageURL), u.Verified, nullable(u.VerifiedType), u.Protected,
		nullable(u.SubscriptionType), nullable(u.PinnedPostID), followers, following, posts, listed, affiliation,
		string(raw), docHash(raw), now)
}

// nullable stores an absent string as NULL rather than "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// rawOrNil passes JSON to a jsonb column, absent as NULL.
func rawOrNil(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return string(raw)
}

func docHash(raw json.RawMessage) string {
	h := sha256.Sum256(raw)
	return hex.EncodeToString(h[:])
}
