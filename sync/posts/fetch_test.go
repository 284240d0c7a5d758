package posts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/posts"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

type testBundle struct {
	fake    *synctest.Fake
	pool    *pgxpool.Pool
	client  *api.Client
	fetcher *posts.Fetcher
	truth   fixtures.V2Truth
	now     time.Time
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	fake := synctest.NewFake(t, nil)
	b := &testBundle{fake: fake, pool: pool, client: fake.Client(t, pool), truth: fake.Srv.V2Truth(),
		now: time.Date(2026, 4, 10, 23, 30, 0, 0, time.UTC)}
	b.fetcher = &posts.Fetcher{Client: b.client, Pool: pool, Now: func() time.Time { return b.now }}
	return b
}

func (b *testBundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

func (b *testBundle) lookups() int {
	return b.fake.Srv.Stats().Family(posts.Endpoint).Requests
}

// synthetic returns n well-formed ids the fake does not hold.
func (b *testBundle) synthetic(t *testing.T, n int) []string {
	t.Helper()
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("9%018d", i+1)
		require.NotContains(t, b.truth.Posts, out[i])
	}
	return out
}

func TestARequestWithoutFieldsYieldsOnlyIDAndText(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.truth.PostIDs[:3]
	resp, err := b.client.Do(context.Background(), &api.Request{Method: "GET", Base: api.BaseAPI, Path: "/2/posts",
		Endpoint: posts.Endpoint, Query: url.Values{"ids": {strings.Join(ids, ",")}}, Auth: api.AuthBearer})
	require.NoError(t, err)
	var body posts.Response
	require.NoError(t, json.Unmarshal(resp.Body, &body))
	require.Len(t, body.Data, 3)
	require.Empty(t, body.Includes.Media)
	require.Empty(t, body.Includes.Users)
	for _, raw := range body.Data {
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		require.ElementsMatch(t, []string{"id", "text"}, slices.Collect(maps.Keys(m)))
	}

	// Stored as is, such an answer leaves every typed column but text empty.
	ctx := context.Background()
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, err := posts.StoreResponse(ctx, tx, ids, body, b.now)
		return err
	}))
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM v2_posts WHERE raw - 'id' - 'text' = '{}'::jsonb
		AND author_id IS NULL AND api_created_at IS NULL AND like_count IS NULL AND cardinality(media_keys) = 0`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM post_metrics_daily`), "no metrics asked, none stored")
}

func TestTheLookupAsksForEveryStoredFieldWithTheBearerToken(t *testing.T) {
	t.Parallel()
	q := posts.Query([]string{"1", "2"})
	require.Equal(t, "1,2", q.Get("ids"))
	post := strings.Split(q.Get("post.fields"), ",")
	for _, f := range []string{"attachments", "author_id", "created_at", "public_metrics", "conversation_id", "possibly_sensitive",
		"in_reply_to_user_id", "referenced_posts", "lang", "entities", "context_annotations", "community_id"} {
		require.Contains(t, post, f)
	}
	media := strings.Split(q.Get("media.fields"), ",")
	for _, f := range []string{"type", "duration_ms", "public_metrics", "alt_text", "variants", "preview_image_url", "width", "height"} {
		require.Contains(t, media, f)
	}
	user := strings.Split(q.Get("user.fields"), ",")
	for _, f := range []string{"verified_type", "public_metrics", "created_at", "description", "location", "url",
		"profile_image_url", "verified", "protected", "pinned_post_id", "entities", "subscription_type", "affiliation"} {
		require.Contains(t, user, f)
	}
	require.Equal(t, "attachments.media_keys,author_id,referenced_posts.id", q.Get("expansions"))
}

func TestFetchStoresTypedColumnsFromTheNamedFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	sum, err := b.fetcher.Fetch(ctx, b.truth.PostIDs)
	require.NoError(t, err)
	require.Equal(t, len(b.truth.PostIDs), sum.Found)
	require.Equal(t, 0, sum.NotFound)
	require.Equal(t, 1, sum.Requests)

	// Fields only come back when named, so a null here means the request
	// did not ask for it.
	n := len(b.truth.PostIDs)
	require.Equal(t, n, b.count(t, `SELECT count(*) FROM v2_posts WHERE author_id IS NOT NULL AND api_created_at IS NOT NULL
		AND lang IS NOT NULL AND conversation_id IS NOT NULL AND possibly_sensitive IS NOT NULL
		AND like_count IS NOT NULL AND repost_count IS NOT NULL AND reply_count IS NOT NULL AND quote_count IS NOT NULL
		AND impression_count IS NOT NULL AND raw ? 'entities' AND raw ? 'context_annotations'`))
	require.Positive(t, b.count(t, `SELECT count(*) FROM v2_posts WHERE community_id IS NOT NULL`))
	require.Positive(t, b.count(t, `SELECT count(*) FROM v2_posts WHERE in_reply_to_user_id IS NOT NULL AND referenced_posts IS NOT NULL`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM v2_posts WHERE raw ? 'source'`))

	require.Positive(t, b.count(t, `SELECT count(*) FROM v2_media WHERE type = 'video' AND duration_ms > 0 AND view_count IS NOT NULL
		AND jsonb_array_length(variants) > 0 AND preview_image_url IS NOT NULL AND width > 0`))
	require.Positive(t, b.count(t, `SELECT count(*) FROM v2_media WHERE type = 'photo' AND alt_text IS NOT NULL`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM v2_media WHERE type IS NULL`))

	require.Equal(t, sum.Users, b.count(t, `SELECT count(*) FROM v2_users WHERE verified_type IS NOT NULL
		AND followers_count IS NOT NULL AND listed_count IS NOT NULL AND api_created_at IS NOT NULL AND verified IS NOT NULL
		AND description IS NOT NULL AND profile_image_url IS NOT NULL AND raw ? 'entities'`))
	require.Positive(t, b.count(t, `SELECT count(*) FROM v2_users WHERE cardinality(affiliation_user_ids) > 0`))
}

func TestIncludesAreJoinedToTheirPosts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	sum, err := b.fetcher.Fetch(ctx, b.truth.PostIDs)
	require.NoError(t, err)
	require.Positive(t, sum.Media)
	require.Positive(t, sum.Users)

	require.Zero(t, b.count(t, `SELECT count(*) FROM v2_posts p WHERE NOT EXISTS (SELECT 1 FROM v2_users u WHERE u.id = p.author_id)`),
		"every post's author is stored")
	require.Zero(t, b.count(t, `SELECT count(*) FROM v2_posts p, unnest(p.media_keys) k
		WHERE NOT EXISTS (SELECT 1 FROM v2_media m WHERE m.media_key = k)`), "every attached media is stored")
	require.Zero(t, b.count(t, `SELECT count(*) FROM v2_posts p, jsonb_array_elements(p.referenced_posts) r
		WHERE NOT EXISTS (SELECT 1 FROM v2_posts q WHERE q.id = r->>'id')`), "every referenced post is stored")
	require.Equal(t, sum.Media, b.count(t, `SELECT count(*) FROM v2_media`))

	rows, err := b.pool.Query(ctx, `SELECT id, author_id, media_keys FROM v2_posts`)
	require.NoError(t, err)
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var id, author string
		var keys []string
		require.NoError(t, rows.Scan(&id, &author, &keys))
		want := b.truth.Posts[id]
		require.Equal(t, want.AuthorID, author, "post %s", id)
		if want.MediaKeys == nil {
			want.MediaKeys = []string{}
		}
		require.Equal(t, want.MediaKeys, keys, "post %s", id)
		seen++
	}
	require.NoError(t, rows.Err())
	require.Equal(t, len(b.truth.PostIDs), seen)
}

func TestOneHundredFiftyIDsTakeExactlyTwoRequests(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := append(slices.Clone(b.truth.PostIDs), b.synthetic(t, 150-len(b.truth.PostIDs))...)
	require.Len(t, ids, 150)
	sum, err := b.fetcher.Fetch(context.Background(), ids)
	require.NoError(t, err)
	require.Equal(t, 2, b.lookups())
	require.Equal(t, 2, sum.Requests)
	require.Equal(t, 150, sum.Requested)
	require.Equal(t, len(b.truth.PostIDs), sum.Found)
	require.Equal(t, 150-len(b.truth.PostIDs), sum.NotFound)
	require.Equal(t, 150, b.count(t, `SELECT count(*) FROM v2_post_status`))
}

func TestDuplicateIDsAreAskedForOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.truth.PostIDs[0]
	sum, err := b.fetcher.Fetch(context.Background(), []string{id, id, id})
	require.NoError(t, err)
	require.Equal(t, 1, sum.Requested)
	require.Equal(t, 1, sum.Found)
	require.Equal(t, 1, b.lookups())
}

func TestMissingIDsAreRecordedAsNotFoundAndTheRunGoesOn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	found := b.truth.PostIDs[:4]
	ids := append(slices.Clone(found), b.truth.MissingIDs...)
	sum, err := b.fetcher.Fetch(ctx, ids)
	require.NoError(t, err)
	require.Equal(t, len(found), sum.Found)
	require.Equal(t, len(b.truth.MissingIDs), sum.NotFound)
	require.ElementsMatch(t, b.truth.MissingIDs, sum.NotFoundIDs)
	require.Equal(t, len(found), b.count(t, `SELECT count(*) FROM v2_posts`))
	require.Equal(t, len(found), b.count(t, `SELECT count(*) FROM v2_post_status WHERE found`))
	for _, id := range b.truth.MissingIDs {
		var found bool
		var title, detail string
		var problem map[string]any
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT found, error, detail, problem FROM v2_post_status WHERE post_id = $1`, id).
			Scan(&found, &title, &detail, &problem))
		require.False(t, found)
		require.Equal(t, "Not Found Error", title)
		require.Contains(t, detail, id)
		require.Equal(t, id, problem["resource_id"])
	}
}

func TestOnlyMissingIDsStillSucceed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sum, err := b.fetcher.Fetch(context.Background(), b.truth.MissingIDs[:2])
	require.NoError(t, err)
	require.Equal(t, 0, sum.Found)
	require.Equal(t, 2, sum.NotFound)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM v2_post_status WHERE NOT found`))
}

func TestMalformedIDsAreRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.fetcher.Fetch(context.Background(), []string{b.truth.PostIDs[0], "12x"})
	require.EqualError(t, err, `post id "12x" (position 2): want 1 to 19 digits`)
	require.Zero(t, b.lookups())
}

func TestDailyMetricsKeepOneRowPerPostPerDay(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := b.truth.PostIDs[:10]
	_, err := b.fetcher.Fetch(ctx, ids)
	require.NoError(t, err)
	require.Equal(t, 10, b.count(t, `SELECT count(*) FROM post_metrics_daily WHERE day = '2026-04-10'`))

	// Later the same UTC day: the day's row is updated, not duplicated.
	b.now = b.now.Add(20 * time.Minute)
	_, err = b.fetcher.Fetch(ctx, ids)
	require.NoError(t, err)
	require.Equal(t, 10, b.count(t, `SELECT count(*) FROM post_metrics_daily`))
	require.Equal(t, 10, b.count(t, `SELECT count(*) FROM post_metrics_daily WHERE fetched_at = $1`, b.now))

	// Past UTC midnight: a new day's row.
	b.now = b.now.Add(20 * time.Minute)
	_, err = b.fetcher.Fetch(ctx, ids)
	require.NoError(t, err)
	require.Equal(t, 20, b.count(t, `SELECT count(*) FROM post_metrics_daily`))
	require.Equal(t, 10, b.count(t, `SELECT count(*) FROM post_metrics_daily WHERE day = '2026-04-11'`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM post_metrics_daily m JOIN v2_posts p ON p.id = m.post_id
		WHERE m.day = '2026-04-11' AND (m.like_count IS DISTINCT FROM p.like_count OR m.impression_count IS DISTINCT FROM p.impression_count)`))
	require.Equal(t, 10, b.count(t, `SELECT count(DISTINCT id) FROM v2_posts WHERE id = ANY($1)`, ids))
	require.Equal(t, 10, b.count(t, `SELECT count(*) FROM v2_posts WHERE id = ANY($1) AND updated_at = first_seen_at AND fetched_at = $2`, ids, b.now),
		"unchanged posts keep updated_at, fetched_at moves")
}
