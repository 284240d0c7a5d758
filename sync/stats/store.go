package stats

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// keyColumns are the stats table's columns before the metrics.
var keyColumns = []string{"account_id", "entity_type", "entity_id", "placement", "granularity", "segment_type",
	"segment_name", "segment_value", "bucket_date", "bucket_start", "fetched_at", "job_id"}

// Replace stores the rows of one answer to q in one transaction, first
// deleting what an earlier pull stored for q's ids, placement, granularity,
// segmentation and span, so a re-pull never counts a bucket twice and a
// bucket that went to zero disappears. It returns the rows stored.
func Replace(ctx context.Context, pool *pgxpool.Pool, q Query, rows []Row, jobID string) (int, error) {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return replaceTx(ctx, tx, q, rows, jobID)
	})
	if err != nil {
		return 0, fmt.Errorf("account %s: storing %s stats: %w", q.Account.ID, strings.ToLower(q.Entity), err)
	}
	return len(rows), nil
}

// fetched_at is the database's clock, as the export's watermarks are.
func replaceTx(ctx context.Context, tx pgx.Tx, q Query, rows []Row, jobID string) error {
	var fetchedAt time.Time
	if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&fetchedAt); err != nil {
		return err
	}
	del := `DELETE FROM ad_stats WHERE account_id = $1 AND entity_type = $2 AND entity_id = ANY($3) AND placement = $4
    AND granularity = $5 AND segment_type = $6 AND `
	if q.Granularity == Hour {
		del += `bucket_start >= $7 AND bucket_start < $8`
	} else {
		del += `bucket_date >= $7::date AND bucket_date < $8::date`
	}
	// DAY bounds go as dates: a time.Time would pass through the session's
	// time zone on its way to a date.
	var from, to any = q.Span.Start, q.Span.End
	if q.Granularity != Hour {
		from, to = q.Span.Start.Format(time.DateOnly), q.Span.End.Format(time.DateOnly)
	}
	if _, err := tx.Exec(ctx, del, q.Account.ID, q.Entity, q.IDs, q.Placement, q.Granularity, q.Segmentation, from, to); err != nil {
		return err
	}
	cols := append(append([]string{}, keyColumns...), ColumnNames()...)
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"ad_stats"}, cols, pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
		r := rows[i]
		vals := make([]any, 0, len(cols))
		vals = append(vals, q.Account.ID, q.Entity, r.EntityID, q.Placement, q.Granularity, q.Segmentation,
			r.SegmentName, r.SegmentValue, r.Date, r.Start, fetchedAt, jobID)
		for _, v := range r.Values {
			vals = append(vals, v)
		}
		return vals, nil
	}))
	return err
}
