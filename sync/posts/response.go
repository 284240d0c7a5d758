package posts

import (
	"encoding/json"
	"fmt"
	"time"
)

// Response is the lookup's answer: found posts under data, the expansions'
// objects under includes, and partial errors (ids not found) under errors
// beside the data.
type Response struct {
	Data     []json.RawMessage `json:"data"`
	Includes struct {
		Media []json.RawMessage `json:"media"`
		Users []json.RawMessage `json:"users"`
		Posts []json.RawMessage `json:"posts"`
	} `json:"includes"`
	Errors []json.RawMessage `json:"errors"`
}

// Problem is one partial error. The spec leaves the v2 error format "not
// shown"; these are the real service's problem fields.
type Problem struct {
	Value        string `json:"value"`
	Detail       string `json:"detail"`
	Title        string `json:"title"`
	ResourceType string `json:"resource_type"`
	Parameter    string `json:"parameter"`
	ResourceID   string `json:"resource_id"`
	Type         string `json:"type"`
}

// PostID returns the post id the problem is about, if any.
func (p Problem) PostID() string {
	if p.ResourceID != "" && (p.ResourceType == "" || p.ResourceType == "post") {
		return p.ResourceID
	}
	if p.Parameter == "ids" {
		return p.Value
	}
	return ""
}

// Post holds the typed fields of a post object; the whole object is kept
// beside it as raw.
type Post struct {
	ID                string         `json:"id"`
	Text              string         `json:"text"`
	AuthorID          string         `json:"author_id"`
	CreatedAt         *time.Time     `json:"created_at"`
	ConversationID    string         `json:"conversation_id"`
	InReplyToUserID   string         `json:"in_reply_to_user_id"`
	Lang              string         `json:"lang"`
	PossiblySensitive *bool          `json:"possibly_sensitive"`
	CommunityID       string         `json:"community_id"`
	Attachments       *Attachments   `json:"attachments"`
	ReferencedPosts   []ReferencedTo `json:"referenced_posts"`
	PublicMetrics     *PostMetrics   `json:"public_metrics"`
}

// Attachments lists a post's media.
type Attachments struct {
	MediaKeys []string `json:"media_keys"`
}

// ReferencedTo is one entry of referenced_posts.
type ReferencedTo struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// PostMetrics are a post's public metrics; impression_count exists since
// Jan 5, 2023 and is null where absent.
type PostMetrics struct {
	RepostCount     *int64 `json:"repost_count"`
	ReplyCount      *int64 `json:"reply_count"`
	LikeCount       *int64 `json:"like_count"`
	QuoteCount      *int64 `json:"quote_count"`
	ImpressionCount *int64 `json:"impression_count"`
}

// MediaKeys returns the post's attached media keys.
func (p Post) MediaKeys() []string {
	if p.Attachments == nil || p.Attachments.MediaKeys == nil {
		return []string{}
	}
	return p.Attachments.MediaKeys
}

// Media holds the typed fields of a media object.
type Media struct {
	MediaKey        string          `json:"media_key"`
	Type            string          `json:"type"`
	DurationMS      *int64          `json:"duration_ms"`
	AltText         string          `json:"alt_text"`
	PreviewImageURL string          `json:"preview_image_url"`
	Width           *int32          `json:"width"`
	Height          *int32          `json:"height"`
	Variants        json.RawMessage `json:"variants"`
	PublicMetrics   *struct {
		ViewCount *int64 `json:"view_count"`
	} `json:"public_metrics"`
}

// User holds the typed fields of a user object.
type User struct {
	ID               string     `json:"id"`
	Name             string     `json:"name"`
	Username         string     `json:"username"`
	CreatedAt        *time.Time `json:"created_at"`
	Description      string     `json:"description"`
	Location         string     `json:"location"`
	URL              string     `json:"url"`
	ProfileImageURL  string     `json:"profile_image_url"`
	Verified         *bool      `json:"verified"`
	VerifiedType     string     `json:"verified_type"`
	Protected        *bool      `json:"protected"`
	SubscriptionType string     `json:"subscription_type"`
	PinnedPostID     string     `json:"pinned_post_id"`
	PublicMetrics    *struct {
		FollowersCount *int64 `json:"followers_count"`
		FollowingCount *int64 `json:"following_count"`
		PostCount      *int64 `json:"post_count"`
		ListedCount    *int64 `json:"listed_count"`
	} `json:"public_metrics"`
	Affiliation *struct {
		// UserID is an array since Feb 18, 2025.
		UserID []string `json:"user_id"`
	} `json:"affiliation"`
}

// decodeEach unmarshals every raw object into T, naming the list and index
// of a bad one.
func decodeEach[T any](what string, raws []json.RawMessage) ([]T, error) {
	out := make([]T, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, fmt.Errorf("%s: decoding %s[%d]: %w", Endpoint, what, i, err)
		}
	}
	return out, nil
}
