package posts_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/posts"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

func TestFieldsTheSpecDoesNotKnowSurviveInRaw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	var resp posts.Response
	require.NoError(t, json.Unmarshal([]byte(`{
		"data":[{"id":"11","text":"hi","author_id":"7","edit_history_post_ids":["11"],
			"public_metrics":{"repost_count":1,"reply_count":2,"like_count":3,"quote_count":4,"bookmark_count":5}}],
		"includes":{"users":[{"id":"7","name":"N","username":"n","most_recent_post_id":"11"}],
			"media":[{"media_key":"3_1","type":"photo","url":"https://pbs.example.com/x.jpg"}]}}`), &resp))
	var st posts.Stored
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		st, err = posts.StoreResponse(ctx, tx, []string{"11"}, resp, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		return err
	})
	require.NoError(t, err)
	require.Equal(t, []string{"11"}, st.Found)

	var edits []string
	var bookmarks int
	var impressions *int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT raw->'edit_history_post_ids', (raw->'public_metrics'->>'bookmark_count')::int, impression_count
		FROM v2_posts WHERE id = '11'`).Scan(&edits, &bookmarks, &impressions))
	require.Equal(t, []string{"11"}, edits)
	require.Equal(t, 5, bookmarks)
	require.Nil(t, impressions, "an absent impression_count is null, not zero")
	var recent, url string
	require.NoError(t, pool.QueryRow(ctx, `SELECT raw->>'most_recent_post_id' FROM v2_users WHERE id = '7'`).Scan(&recent))
	require.Equal(t, "11", recent)
	require.NoError(t, pool.QueryRow(ctx, `SELECT raw->>'url' FROM v2_media WHERE media_key = '3_1'`).Scan(&url))
	require.Equal(t, "https://pbs.example.com/x.jpg", url)
	var day time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT day FROM post_metrics_daily WHERE post_id = '11'`).Scan(&day))
	require.Equal(t, "2026-01-02", day.Format(time.DateOnly))
}

func TestAnIDTheAnswerDoesNotMentionCountsAsNotFound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	var st posts.Stored
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		st, err = posts.StoreResponse(ctx, tx, []string{"5"}, posts.Response{}, time.Now())
		return err
	})
	require.NoError(t, err)
	require.Equal(t, []string{"5"}, st.NotFound)
	var found bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT found FROM v2_post_status WHERE post_id = '5'`).Scan(&found))
	require.False(t, found)
}

func TestAdsPostIDsNeedASyncFirst(t *testing.T) {
	t.Parallel()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	_, err := posts.AdsPostIDs(context.Background(), pool)
	require.ErrorIs(t, err, posts.ErrNoAdsPosts)
	require.EqualError(t, err, "no synced advertising posts: run adsync sync first")
}

func TestAdsPostIDsTakeLivePublishedPostsAndPromotedPosts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	// Rows as the advertising sync stores them.
	_, err := pool.Exec(ctx, `
		INSERT INTO posts (account_id, id, post_type, deleted, raw, doc_hash) VALUES
			('a', '101', 'PUBLISHED', false, '{}', 'h'), ('a', '102', 'DRAFT', false, '{}', 'h'),
			('a', '103', 'PUBLISHED', true, '{}', 'h'), ('b', '104', 'SCHEDULED', false, '{}', 'h'), ('b', '105', 'PUBLISHED', false, '{}', 'h')`)
	require.NoError(t, err)
	ids, err := posts.AdsPostIDs(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, []string{"101", "105"}, ids, "live published posts only")

	_, err = pool.Exec(ctx, `
		INSERT INTO promoted_posts (account_id, id, post_id, deleted, raw, doc_hash) VALUES
			('a', 'p1', '105', false, '{}', 'h'), ('a', 'p2', '201', true, '{}', 'h'), ('b', 'p3', '202', false, '{}', 'h'), ('b', 'p4', NULL, false, '{}', 'h')`)
	require.NoError(t, err)
	ids, err = posts.AdsPostIDs(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, []string{"101", "105", "201", "202"}, ids, "plus the posts of every promotion, without duplicates")
}

func storeBody(t *testing.T, pool *pgxpool.Pool, requested []string, body string, now time.Time) posts.Stored {
	t.Helper()
	ctx := context.Background()
	var resp posts.Response
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	var st posts.Stored
	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		st, err = posts.StoreResponse(ctx, tx, requested, resp, now)
		return err
	}))
	return st
}

func TestAPostThatGoesMissingKeepsItsStoredRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	storeBody(t, pool, []string{"11"}, `{"data":[{"id":"11","text":"hi","public_metrics":{"like_count":3}}]}`, now)
	st := storeBody(t, pool, []string{"11"}, `{"errors":[{"value":"11","detail":"Could not find post with ids: [11].",
		"title":"Not Found Error","resource_type":"post","parameter":"ids","resource_id":"11","type":"about:blank"}]}`, now.Add(time.Hour))
	require.Equal(t, []string{"11"}, st.NotFound)
	var text string
	var found bool
	var detail string
	require.NoError(t, pool.QueryRow(ctx, `SELECT p.text, s.found, s.detail FROM v2_posts p JOIN v2_post_status s ON s.post_id = p.id`).
		Scan(&text, &found, &detail))
	require.Equal(t, "hi", text)
	require.False(t, found)
	require.Equal(t, "Could not find post with ids: [11].", detail)
}
