package stats

import (
	"context"
	"fmt"
	"slices"
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

// Sweep removes what a run's pull of one entity type leaves wrong in
// account a over the run's span: for every placement and every
// segmentation pulled (segmentations; "" for the unsegmented rows), the
// stored rows of ids the run found not active (no delivery in the span, so
// their rows there cannot be right) and the rows of asked ids outside the
// spans they were asked for (no activity there either). What the queries
// qs ask for is replaced by their own stores; together a run replaces its
// whole span, so a rerun repairs what a bad earlier run left. It touches
// only a's rows of entity in span.
func Sweep(ctx context.Context, pool *pgxpool.Pool, a Account, entity, granularity string, segmentations []string, span Span, qs []Query) error {
	var ids, placements, segs []string
	var froms, tos []any
	bound := func(t time.Time) any {
		if granularity == Hour {
			return t
		}
		return t.Format(time.DateOnly) // a date, not an instant (see replaceTx)
	}
	for _, q := range qs {
		if q.Entity != entity || q.Granularity != granularity {
			continue
		}
		for _, id := range q.IDs {
			ids, placements, segs = append(ids, id), append(placements, q.Placement), append(segs, q.Segmentation)
			froms, tos = append(froms, bound(q.Span.Start)), append(tos, bound(q.Span.End))
		}
	}
	col, typ := "bucket_date", "date"
	if granularity == Hour {
		col, typ = "bucket_start", "timestamptz"
	}
	del := fmt.Sprintf(`DELETE FROM ad_stats s WHERE account_id = $1 AND entity_type = $2 AND granularity = $3
    AND segment_type = ANY($4) AND %[1]s >= $5::%[2]s AND %[1]s < $6::%[2]s
    AND NOT EXISTS (SELECT 1 FROM unnest($7::text[], $8::text[], $9::text[], $10::%[2]s[], $11::%[2]s[]) c(id, placement, seg, f, t)
        WHERE c.id = s.entity_id AND c.placement = s.placement AND c.seg = s.segment_type AND s.%[1]s >= c.f AND s.%[1]s < c.t)`,
		col, typ)
	_, err := pool.Exec(ctx, del, a.ID, entity, granularity, segmentations, bound(span.Start), bound(span.End),
		ids, placements, segs, froms, tos)
	if err != nil {
		return fmt.Errorf("account %s: removing %s stats no longer delivered, %s to %s: %w", a.ID, strings.ToLower(entity),
			span.Start.Format(time.DateOnly), span.End.Format(time.DateOnly), err)
	}
	return nil
}

// Pulled are the segmentations a run of set pulls ("" for the unsegmented
// metrics).
func Pulled(set Settings, unsegmented bool) []string {
	out := slices.Clone(set.Segmentations)
	if unsegmented {
		out = append(out, "")
	}
	return out
}
