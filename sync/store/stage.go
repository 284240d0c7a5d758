package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// StagedRecord is one record of a page, ready to merge.
type StagedRecord struct {
	AccountID string
	ID        string
	ParentID  string
	Raw       []byte
	CreatedAt *time.Time
	UpdatedAt *time.Time
	Deleted   bool
	DocHash   string
	// Typed holds the entity's typed columns computed in Go, for
	// InsertNew; nil when they are left to the merge's SQL.
	Typed []any
}

// MergeCounts says what a merge did.
type MergeCounts struct {
	Inserted, Updated, Unchanged, Deleted int64
}

// stageDDL creates the session's staging table; ON COMMIT DELETE ROWS empties
// it at the end of each page's transaction.
const stageDDL = `CREATE TEMP TABLE IF NOT EXISTS ads_stage (
    account_id text, id text, parent_id text, raw jsonb, api_created_at timestamptz,
    api_updated_at timestamptz, deleted boolean, doc_hash text) ON COMMIT DELETE ROWS`

var stageColumns = []string{"account_id", "id", "parent_id", "raw", "api_created_at", "api_updated_at", "deleted", "doc_hash"}

// MergePage copies recs into the staging table and runs mergeSQL (see
// ads.Entity.MergeSQL), which returns (inserted bool, deleted bool) per
// written row. Rows not returned were unchanged. recs must not hold one id
// twice. Call it inside the page's transaction.
func MergePage(ctx context.Context, tx pgx.Tx, mergeSQL string, recs []StagedRecord) (MergeCounts, error) {
	var mc MergeCounts
	if len(recs) == 0 {
		return mc, nil
	}
	if _, err := tx.Exec(ctx, stageDDL); err != nil {
		return mc, err
	}
	if _, err := copyBinary(ctx, tx, "ads_stage", stageColumns, len(recs), func(i int, vals []any) []any {
		r := &recs[i]
		// Pointers: boxed with no allocation of their own.
		return append(vals, &r.AccountID, &r.ID, &r.ParentID, (*json.RawMessage)(&r.Raw), r.CreatedAt, r.UpdatedAt, r.Deleted, &r.DocHash)
	}); err != nil {
		return mc, err
	}
	written, err := runMerge(ctx, tx, mergeSQL, &mc)
	if err != nil {
		return mc, err
	}
	mc.Unchanged = int64(len(recs)) - written
	return mc, nil
}

// runMerge runs mergeSQL over the staged rows, adding what it wrote to mc;
// it returns how many rows it wrote.
func runMerge(ctx context.Context, tx pgx.Tx, mergeSQL string, mc *MergeCounts) (int64, error) {
	rows, err := tx.Query(ctx, mergeSQL)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var written int64
	for rows.Next() {
		var inserted, deleted bool
		if err := rows.Scan(&inserted, &deleted); err != nil {
			return written, err
		}
		written++
		if inserted {
			mc.Inserted++
		} else {
			mc.Updated++
		}
		if deleted {
			mc.Deleted++
		}
	}
	return written, rows.Err()
}

// StageAll copies every row src yields into the session's staging table
// (as MergePage stages a page) and returns how many it copied. src's rows
// are stageColumns' values: account id, id, parent id, raw, created at,
// updated at, deleted, doc_hash. Call it inside the transaction that
// merges them (see MergeStaged): the table empties at its commit.
func StageAll(ctx context.Context, tx pgx.Tx, src pgx.CopyFromSource) (int64, error) {
	if _, err := tx.Exec(ctx, stageDDL); err != nil {
		return 0, err
	}
	return tx.CopyFrom(ctx, pgx.Identifier{"ads_stage"}, stageColumns, src)
}

// MergeStaged stores a complete listing staged by StageAll into table (a
// global entity's, keyed by id): a repeated id keeps its last copy; live
// rows the listing does not hold become tombstones as the sweep makes them
// (deleted, doc_hash cleared); rows whose doc_hash is unchanged are left as
// they are; the rest are merged by mergeSQL (see ads.Entity.MergeSQL). It
// returns the merge's counts (Unchanged: staged records not written) and
// the number of tombstones made. Call it in StageAll's transaction.
func MergeStaged(ctx context.Context, tx pgx.Tx, table, mergeSQL string) (mc MergeCounts, swept int64, err error) {
	t := pgx.Identifier{table}.Sanitize()
	if _, err = tx.Exec(ctx, `ANALYZE ads_stage`); err != nil {
		return mc, 0, err
	}
	// Physical order is the copy's order in a table only ever appended to
	// within the transaction: the later copy of an id wins, as on a page.
	if _, err = tx.Exec(ctx, `DELETE FROM ads_stage a USING ads_stage b WHERE a.id = b.id AND a.ctid < b.ctid`); err != nil {
		return mc, 0, err
	}
	var staged int64
	if err = tx.QueryRow(ctx, `SELECT count(*) FROM ads_stage`).Scan(&staged); err != nil {
		return mc, 0, err
	}
	tag, err := tx.Exec(ctx, `UPDATE `+t+` SET deleted = true, doc_hash = '', last_synced_at = now()
WHERE NOT deleted AND id IN (SELECT id FROM `+t+` WHERE NOT deleted EXCEPT SELECT id FROM ads_stage)`)
	if err != nil {
		return mc, 0, err
	}
	swept = tag.RowsAffected()
	if _, err = tx.Exec(ctx, `DELETE FROM ads_stage s USING `+t+` t WHERE t.id = s.id AND t.doc_hash = s.doc_hash`); err != nil {
		return mc, swept, err
	}
	written, err := runMerge(ctx, tx, mergeSQL, &mc)
	if err != nil {
		return mc, swept, err
	}
	mc.Unchanged = staged - written
	return mc, swept, nil
}

// InsertNew copies records whose ids the table does not hold straight into
// it, typed columns included (Typed): a new record needs no staging and no
// merge. columns are the table's, in the order row gives the values. It
// reports how many were inserted and how many of them are tombstones; ok is
// false, with nothing written, when one of the ids was inserted meanwhile
// by someone else (the caller then merges them instead). Call it inside the
// page's transaction.
func InsertNew(ctx context.Context, tx pgx.Tx, table string, columns []string, recs []StagedRecord,
	row func(r *StagedRecord, vals []any) []any) (inserted, deleted int64, ok bool, err error) {
	if len(recs) == 0 {
		return 0, 0, true, nil
	}
	sp, err := tx.Begin(ctx) // a savepoint, so a conflict undoes this copy only
	if err != nil {
		return 0, 0, false, err
	}
	n, err := copyBinary(ctx, sp, table, columns, len(recs), func(i int, vals []any) []any { return row(&recs[i], vals) })
	if err != nil {
		_ = sp.Rollback(ctx)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" { // unique_violation
			return 0, 0, false, nil
		}
		return 0, 0, false, err
	}
	if err := sp.Commit(ctx); err != nil {
		return 0, 0, false, err
	}
	for i := range recs {
		if recs[i].Deleted {
			deleted++
		}
	}
	return n, deleted, true, nil
}

// Seen names the unit whose seen ids a page's lookup records (see
// ChangedRecords).
type Seen struct {
	RunID     int64
	AccountID string
	Entity    string
	// Print, when set, is the page's print (see ClaimPrints), kept with
	// its ids, its count of distinct records and their latest updated_at,
	// so that the unit's end can keep it.
	Print      []byte
	Records    int
	MaxUpdated *time.Time
}

// insertSeen begins the statement that marks a page's ids seen.
const insertSeen = `INSERT INTO sync_unit_seen_pages (run_id, account_id, entity, ids, print, records, max_updated)`

// MarkSeen marks a page's ids seen, as ChangedRecords does with seen,
// without looking them up. Call it inside the page's transaction.
func MarkSeen(ctx context.Context, tx pgx.Tx, seen Seen, ids []string) error {
	_, err := tx.Exec(ctx, insertSeen+` VALUES ($1, $2, $3, $4, $5, $6, $7)`, seen.RunID, seen.AccountID, seen.Entity, ids, seen.Print, seen.Records, seen.MaxUpdated)
	return err
}

// UnchangedProgress is the progress a page adds to its unit when none of
// its records differs from the table (see ChangedRecords).
type UnchangedProgress struct {
	Unit       UnitKey
	Fetched    int64 // the page's records, repeats included
	Records    int64 // its distinct records, all unchanged
	MaxUpdated *time.Time
	// Resume, when set, is where the unit resumes after the page (see
	// SaveResume), saved with the progress.
	Resume []byte
}

// ChangedRecords tells which of a page's records differ from their table
// row: the indexes (into ids) of the records the table does not hold (of
// accountID when hasAccount, the table being keyed by account and id), and
// of those whose row's doc_hash is not hashes[i]. Unchanged records are not
// returned, and the answer is one row of two arrays (in page order)
// whatever the page. In the same statement, when seen is not nil, the ids
// are marked seen, for the sweep at the unit's end (one row holding the
// page's ids); and when progress is not nil and no record differs, the
// page's progress is recorded as PageProgress would (the caller records it
// otherwise, once it has stored the page), with the unit's cursor when
// progress.Resume is set. ids must not repeat. Call it inside the page's
// transaction, or with seen nil on its own: a page found unchanged then
// needs nothing more, and one that is not is stored by a transaction that
// calls it again. The lookup is planned at each call (see PlanEachCall).
func ChangedRecords(ctx context.Context, db Querier, table string, hasAccount bool, accountID string, ids, hashes []string,
	seen *Seen, progress *UnchangedProgress) (fresh, changed []int32, err error) {
	args := []any{ids, hashes}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	acct := ""
	if hasAccount {
		acct = ` AND t.account_id = ` + arg(accountID) + `::text`
	}
	q := `WITH d AS (SELECT p.n, t.id IS NULL AS new
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS p(id, doc_hash, n)
    LEFT JOIN ` + pgx.Identifier{table}.Sanitize() + ` t ON t.id = p.id` + acct + `
    WHERE t.doc_hash IS DISTINCT FROM p.doc_hash)`
	if seen != nil {
		q += `, seen AS (` + insertSeen + `
    VALUES (` + arg(seen.RunID) + `::bigint, ` + arg(seen.AccountID) + `::text, ` + arg(seen.Entity) + `::text, $1, ` +
			arg(seen.Print) + `::bytea, ` + arg(seen.Records) + `::int4, ` + arg(seen.MaxUpdated) + `::timestamptz))`
	}
	if progress != nil {
		k := progress.Unit
		q += `, progress AS (UPDATE sync_run_units SET fetched = fetched + ` + arg(progress.Fetched) + `::bigint,
    unchanged = unchanged + ` + arg(progress.Records) + `::bigint, pages = pages + 1,
    max_updated_at = GREATEST(max_updated_at, ` + arg(progress.MaxUpdated) + `::timestamptz)`
		if progress.Resume != nil {
			q += `, resume = ` + arg(string(progress.Resume)) + `::jsonb`
		}
		q += `
    WHERE run_id = ` + arg(k.RunID) + `::bigint AND account_id = ` + arg(k.AccountID) + `::text AND entity = ` + arg(k.Entity) + `::text
    AND NOT EXISTS (SELECT FROM d))`
	}
	q += `
SELECT COALESCE(array_agg(n - 1 ORDER BY n) FILTER (WHERE new), '{}')::int4[],
       COALESCE(array_agg(n - 1 ORDER BY n) FILTER (WHERE NOT new), '{}')::int4[] FROM d`
	err = db.QueryRow(ctx, q, PlanEachCall(args...)...).Scan(&fresh, &changed)
	return fresh, changed, err
}

// Sweep runs sweepSQL (see ads.Entity.SweepSQL), planned at this call (see
// PlanEachCall), and forgets the unit's seen pages; it returns how many
// rows became tombstones.
func Sweep(ctx context.Context, tx pgx.Tx, sweepSQL string, runID int64, accountID, entity string) (int64, error) {
	tag, err := tx.Exec(ctx, sweepSQL, PlanEachCall(runID, accountID, entity)...)
	if err != nil {
		return 0, err
	}
	if err := ForgetSeen(ctx, tx, UnitKey{RunID: runID, AccountID: accountID, Entity: entity}); err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// ForgetSeen deletes a unit's seen pages (see ChangedRecords).
func ForgetSeen(ctx context.Context, tx pgx.Tx, k UnitKey) error {
	_, err := tx.Exec(ctx, `DELETE FROM sync_unit_seen_pages WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
		k.RunID, k.AccountID, k.Entity)
	return err
}
