package posts

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNoAdsPosts means the advertising sync has not stored posts yet.
var ErrNoAdsPosts = errors.New("no synced advertising posts: run adsync sync first")

// AdsPostIDs returns the ids of posts the advertising sync stored: live
// published posts (drafts and scheduled posts are not public yet, so the
// lookup cannot find them) and the posts of every promoted post, sorted
// and without duplicates. It answers ErrNoAdsPosts when neither table
// exists.
func AdsPostIDs(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	var hasPosts, hasPromoted bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('posts') IS NOT NULL, to_regclass('promoted_posts') IS NOT NULL`).
		Scan(&hasPosts, &hasPromoted); err != nil {
		return nil, fmt.Errorf("looking for synced advertising posts: %w", err)
	}
	if !hasPosts && !hasPromoted {
		return nil, ErrNoAdsPosts
	}
	var parts []string
	if hasPosts {
		parts = append(parts, `SELECT id::text FROM posts
			WHERE NOT coalesce(deleted, false) AND upper(coalesce(post_type, 'PUBLISHED')) = 'PUBLISHED'`)
	}
	if hasPromoted {
		// A deleted promotion still names a live post worth measuring.
		parts = append(parts, `SELECT raw->>'post_id' FROM promoted_posts WHERE coalesce(raw->>'post_id', '') <> ''`)
	}
	q := parts[0]
	if len(parts) == 2 {
		q += " UNION " + parts[1]
	}
	rows, err := pool.Query(ctx, `SELECT DISTINCT id FROM (`+q+`) AS ids(id) ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading synced advertising post ids: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
