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
// and without duplicates. It answers ErrNoAdsPosts when the sync stored no
// post of either kind yet.
func AdsPostIDs(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	var synced bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM posts) OR EXISTS (SELECT 1 FROM promoted_posts)`).Scan(&synced); err != nil {
		return nil, fmt.Errorf("looking for synced advertising posts: %w", err)
	}
	if !synced {
		return nil, ErrNoAdsPosts
	}
	// A deleted promotion still names a live post worth measuring.
	rows, err := pool.Query(ctx, `SELECT id FROM posts WHERE NOT deleted AND post_type = 'PUBLISHED'
		UNION SELECT post_id FROM promoted_posts WHERE coalesce(post_id, '') <> ''
		ORDER BY 1`)
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
