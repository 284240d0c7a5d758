package insights

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ReplaceWindow stores every group's result of one (set, window) in one
// transaction, replacing whatever an earlier run stored for that set and
// window start, so a re-run never duplicates a window.
func ReplaceWindow(ctx context.Context, pool *pgxpool.Pool, set KeywordSet, w Window, results []Result, fetchedAt time.Time) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// keyword_volumes rows go with their window (ON DELETE CASCADE).
		if _, err := tx.Exec(ctx, `DELETE FROM keyword_insight_windows WHERE set_name = $1 AND window_start = $2`, set.Name, w.Start); err != nil {
			return fmt.Errorf("keyword set %q: replacing window %s: %w", set.Name, w.Start.Format(time.RFC3339), err)
		}
		var b pgx.Batch
		var volumes [][]any
		for _, r := range results {
			hash := r.Group.Hash()
			neg := r.Group.NegativeKeywords
			if neg == nil {
				neg = []string{}
			}
			b.Queue(`INSERT INTO keyword_insight_windows (set_name, keywords_hash, keywords, negative_keywords, location,
				granularity, window_start, window_end, related_keywords, raw, fetched_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
				set.Name, hash, r.Group.Keywords, neg, set.Location, set.Granularity, w.Start, w.End,
				r.RelatedKeywords, string(r.Raw), fetchedAt)
			for _, bk := range r.Buckets {
				volumes = append(volumes, []any{set.Name, hash, w.Start, bk.Start, bk.Volume})
			}
		}
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return fmt.Errorf("keyword set %q: storing window %s: %w", set.Name, w.Start.Format(time.RFC3339), err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"keyword_volumes"},
			[]string{"set_name", "keywords_hash", "window_start", "bucket_start", "volume"}, pgx.CopyFromRows(volumes)); err != nil {
			return fmt.Errorf("keyword set %q: storing volumes of window %s: %w", set.Name, w.Start.Format(time.RFC3339), err)
		}
		return nil
	})
}
