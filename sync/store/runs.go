package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Unit states.
const (
	UnitPending   = "pending"
	UnitRunning   = "running"
	UnitSucceeded = "succeeded"
	UnitFailed    = "failed"
	UnitSkipped   = "skipped"
)

// CreateRun records a new run of pipeline and returns its id.
func CreateRun(ctx context.Context, pool *pgxpool.Pool, pipeline, trigger string, params any) (int64, error) {
	id, _, err := StartRun(ctx, pool, pipeline, trigger, params)
	return id, err
}

// StartRun records a new run of pipeline and returns its id and start time.
func StartRun(ctx context.Context, q Querier, pipeline, trigger string, params any) (int64, time.Time, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return 0, time.Time{}, err
	}
	var id int64
	var started time.Time
	err = q.QueryRow(ctx, `INSERT INTO sync_runs (pipeline, trigger, params) VALUES ($1, $2, $3) RETURNING id, started_at`,
		pipeline, trigger, p).Scan(&id, &started)
	return id, started, err
}

// runForJobSQL finds the run River job $2 recorded for pipeline $1, through
// the index on the same expression (migration 0050): every attempt of
// every job that records its own run looks, and without the index each
// look read every run of the pipeline ever recorded.
const runForJobSQL = `SELECT id FROM sync_runs WHERE pipeline = $1 AND params->>'river_job_id' = $2::bigint::text`

// RunForJob returns the run recorded by River job jobID, recording it on
// the job's first attempt: a job that creates its own run (a scheduled
// one) finds it again on later attempts. params must marshal to an object;
// the job id is added to it as river_job_id.
func RunForJob(ctx context.Context, pool *pgxpool.Pool, pipeline, trigger string, params any, jobID int64) (int64, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return 0, err
	}
	var id int64
	err = pool.QueryRow(ctx, runForJobSQL, pipeline, jobID).Scan(&id)
	if !errors.Is(err, pgx.ErrNoRows) {
		return id, err
	}
	err = pool.QueryRow(ctx, `INSERT INTO sync_runs (pipeline, trigger, params)
VALUES ($1, $2, $3::jsonb || jsonb_build_object('river_job_id', $4::bigint::text)) RETURNING id`,
		pipeline, trigger, p, jobID).Scan(&id)
	return id, err
}

// AddRunParams merges params (an object) into a run's recorded params: what
// a pipeline knows of a run that the code recording it did not (the
// configured audience a planned upload keeps).
func AddRunParams(ctx context.Context, q Querier, runID int64, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var id int64
	return q.QueryRow(ctx, `UPDATE sync_runs SET params = params || $2::jsonb WHERE id = $1 RETURNING id`, runID, p).Scan(&id)
}

// Run outcomes.
const (
	RunRunning   = "running"
	RunSucceeded = "succeeded"
	RunPartial   = "partial"
	RunFailed    = "failed"
)

// SetRun sets a run's outcome, counts and error (reason, "" for none),
// whatever it was: a run still running has no finish time, any other
// outcome finishes it now. Pipelines whose outcome follows from state they
// keep (an upload's batches) record it this way.
func SetRun(ctx context.Context, q Querier, runID int64, outcome string, counts any, reason string) error {
	c, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	var id int64
	return q.QueryRow(ctx, `UPDATE sync_runs SET outcome = $2, counts = $3, error = NULLIF($4, ''),
    finished_at = CASE WHEN $2 = 'running' THEN NULL ELSE now() END
WHERE id = $1 RETURNING id`, runID, outcome, c, reason).Scan(&id)
}

// EndRun records the outcome, counts and error (reason, "" for none) of a
// run without units (insights, posts) that is still running; a run already
// ended is left as it is.
func EndRun(ctx context.Context, pool *pgxpool.Pool, runID int64, outcome string, counts any, reason string) error {
	_, err := EndRunAt(ctx, pool, runID, outcome, counts, reason)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return err
}

// EndRunAt is EndRun in q (a transaction, to end a run with what it
// recorded), returning when the run ended; pgx.ErrNoRows when it had
// already ended. Nil counts keep the run's counts.
func EndRunAt(ctx context.Context, q Querier, runID int64, outcome string, counts any, reason string) (time.Time, error) {
	var c []byte
	if counts != nil {
		var err error
		if c, err = json.Marshal(counts); err != nil {
			return time.Time{}, err
		}
	}
	var finished time.Time
	err := q.QueryRow(ctx, `UPDATE sync_runs SET outcome = $2, finished_at = now(), counts = coalesce($3, counts), error = NULLIF($4, '')
WHERE id = $1 AND outcome = 'running' RETURNING finished_at`, runID, outcome, c, reason).Scan(&finished)
	return finished, err
}

// SyncRunning says whether an advertising sync started within the last
// within is still running.
func SyncRunning(ctx context.Context, pool *pgxpool.Pool, within time.Duration) (bool, error) {
	var running bool
	err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sync_runs WHERE pipeline = 'sync' AND outcome = 'running'
    AND started_at > now() - $1::interval)`, within.String()).Scan(&running)
	return running, err
}

// UnitKey names one unit of a run.
type UnitKey struct {
	RunID     int64
	AccountID string
	Entity    string
}

// Fresh names the units a fan-out records skipped, with Reason, instead
// of pending: those of Entities whose bookmark's last success is later
// than After (reference data refreshed recently has nothing to do).
type Fresh struct {
	Entities []string
	After    time.Time
	Reason   string
}

// AddUnits records pending units in one statement; units that exist are
// left as they are. With fresh set, its units are recorded skipped.
func AddUnits(ctx context.Context, tx pgx.Tx, keys []UnitKey, fresh *Fresh) error {
	if len(keys) == 0 {
		return nil
	}
	runs := make([]int64, len(keys))
	accounts := make([]string, len(keys))
	entities := make([]string, len(keys))
	for i, k := range keys {
		runs[i], accounts[i], entities[i] = k.RunID, k.AccountID, k.Entity
	}
	if fresh == nil {
		fresh = &Fresh{}
	}
	_, err := tx.Exec(ctx, `INSERT INTO sync_run_units (run_id, account_id, entity, state, error, finished_at)
SELECT k.r, k.a, k.e, CASE WHEN f.fresh THEN 'skipped' ELSE 'pending' END,
    CASE WHEN f.fresh THEN $6 END, CASE WHEN f.fresh THEN now() END
FROM unnest($1::bigint[], $2::text[], $3::text[]) AS k(r, a, e)
CROSS JOIN LATERAL (SELECT k.e = ANY($4::text[]) AND EXISTS (SELECT 1 FROM sync_bookmarks b
    WHERE b.account_id = k.a AND b.entity = k.e AND b.last_success_at > $5)) AS f(fresh)
ON CONFLICT DO NOTHING`, runs, accounts, entities, fresh.Entities, fresh.After, fresh.Reason)
	return err
}

// HasUnits says whether the run's fan-out already happened.
func HasUnits(ctx context.Context, tx pgx.Tx, runID int64, except string) (bool, error) {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM sync_run_units WHERE run_id = $1 AND entity <> $2`, runID, except).Scan(&n)
	return n > 0, err
}

// Querier runs a query: a pool or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// PendingUnits lists the units of a run not yet started, the entity except
// aside.
func PendingUnits(ctx context.Context, tx pgx.Tx, runID int64, except string) ([]UnitKey, error) {
	rows, err := tx.Query(ctx, `SELECT run_id, account_id, entity FROM sync_run_units
WHERE run_id = $1 AND state = 'pending' AND entity <> $2 ORDER BY account_id, entity`, runID, except)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (UnitKey, error) {
		var k UnitKey
		err := r.Scan(&k.RunID, &k.AccountID, &k.Entity)
		return k, err
	})
}

// UnitOpen says whether a unit state is one the unit may still leave by
// doing its work.
func UnitOpen(state string) bool { return state == UnitPending || state == UnitRunning }

// UnitState returns the state of a unit ("" when it does not exist).
func UnitState(ctx context.Context, q Querier, k UnitKey) (string, error) {
	var s string
	err := q.QueryRow(ctx, `SELECT state FROM sync_run_units WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
		k.RunID, k.AccountID, k.Entity).Scan(&s)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return s, err
}

// LockUnitState locks a unit's row for the rest of tx and returns its
// state, so the caller's change of state is the only one.
func LockUnitState(ctx context.Context, tx pgx.Tx, k UnitKey) (string, error) {
	var s string
	err := tx.QueryRow(ctx, lockUnitSQL, k.RunID, k.AccountID, k.Entity).Scan(&s)
	return s, err
}

const lockUnitSQL = `SELECT state FROM sync_run_units WHERE run_id = $1 AND account_id = $2 AND entity = $3 FOR UPDATE`

// LockUnitFunc runs fn in a transaction that begins with LockUnitState,
// the BEGIN and the lock in one round trip; fn gets the unit's state. As
// with pgx.BeginFunc, fn's error rolls the transaction back, else it
// commits.
func LockUnitFunc(ctx context.Context, pool *pgxpool.Pool, k UnitKey, fn func(tx pgx.Tx, state string) error) error {
	return LockUnitQueueFunc(ctx, pool, k, nil, fn)
}

// LockUnitQueueFunc is LockUnitFunc with queue's statements (queue may be
// nil) sent after the lock in the same round trip: they run whatever the
// state, and fn's error rolls them back with the rest.
func LockUnitQueueFunc(ctx context.Context, pool *pgxpool.Pool, k UnitKey, queue func(*pgx.Batch), fn func(tx pgx.Tx, state string) error) error {
	var state string
	return BeginBatchFunc(ctx, pool, func(b *pgx.Batch) {
		b.Queue(lockUnitSQL, k.RunID, k.AccountID, k.Entity).QueryRow(func(row pgx.Row) error { return row.Scan(&state) })
		if queue != nil {
			queue(b)
		}
	}, func(tx pgx.Tx) error { return fn(tx, state) })
}

// StartUnit marks a unit running, creating its row if needed.
func StartUnit(ctx context.Context, pool *pgxpool.Pool, k UnitKey) error {
	_, err := pool.Exec(ctx, startUnitSQL, k.RunID, k.AccountID, k.Entity)
	return err
}

const startUnitSQL = `INSERT INTO sync_run_units (run_id, account_id, entity, state, started_at)
VALUES ($1, $2, $3, 'running', now())
ON CONFLICT (run_id, account_id, entity) DO UPDATE SET state = 'running',
    started_at = COALESCE(sync_run_units.started_at, now())`

// forgetSeenSQL empties what a unit listed: a unit that ends without
// completing never sweeps.
const forgetSeenSQL = `DELETE FROM sync_unit_seen_pages WHERE run_id = $1 AND account_id = $2 AND entity = $3`

// UnitStart is what BeginUnit found and did.
type UnitStart struct {
	// State is the unit's state before ("" when it had no row).
	State string
	// Bookmark is the bookmark of the unit's (account, entity).
	Bookmark Bookmark
	// Fresh says the unit was not started because its entity was
	// refreshed after the freshAfter BeginUnit was given.
	Fresh bool
	// Started says the unit is now running.
	Started bool
	// Resume is the cursor the unit's last attempt saved (see SaveResume),
	// nil when it saved none.
	Resume []byte
}

// BeginUnit starts a unit's attempt in one statement: it reads the unit's
// state and bookmark and marks the unit running (creating its row if
// needed) unless the unit has ended (succeeded, failed or skipped) or, with
// freshAfter set, its bookmark's last success is later than freshAfter. A
// unit that ends meanwhile is never made running again.
func BeginUnit(ctx context.Context, db Batcher, k UnitKey, freshAfter *time.Time) (UnitStart, error) {
	var st UnitStart
	b := &pgx.Batch{}
	QueueBeginUnit(b, k, freshAfter, &st)
	err := db.SendBatch(ctx, b).Close()
	return st, err
}

// QueueBeginUnit queues BeginUnit's statement in b: st holds its result
// once b's results are read.
func QueueBeginUnit(b *pgx.Batch, k UnitKey, freshAfter *time.Time, st *UnitStart) {
	b.Queue(`WITH cur AS (
    SELECT state, resume FROM sync_run_units WHERE run_id = $1 AND account_id = $2 AND entity = $3),
bm AS (
    SELECT bookmark, last_full_at, last_success_at FROM sync_bookmarks WHERE account_id = $2 AND entity = $3),
d AS (
    SELECT coalesce((SELECT state FROM cur) IN ('pending', 'running'), true) AS open,
        coalesce((SELECT last_success_at FROM bm) > $4, false) AS fresh),
started AS (
    INSERT INTO sync_run_units (run_id, account_id, entity, state, started_at)
    SELECT $1, $2, $3, 'running', now() FROM d WHERE d.open AND NOT d.fresh
    ON CONFLICT (run_id, account_id, entity) DO UPDATE SET state = 'running',
        started_at = COALESCE(sync_run_units.started_at, now())
    WHERE sync_run_units.state IN ('pending', 'running')
    RETURNING 1)
SELECT coalesce((SELECT state FROM cur), ''), bm.bookmark, bm.last_full_at, bm.last_success_at, d.open AND d.fresh,
    EXISTS (SELECT 1 FROM started), (SELECT resume FROM cur)
FROM d LEFT JOIN bm ON true`, k.RunID, k.AccountID, k.Entity, freshAfter).QueryRow(func(row pgx.Row) error {
		return row.Scan(&st.State, &st.Bookmark.Bookmark, &st.Bookmark.LastFullAt, &st.Bookmark.LastSuccessAt, &st.Fresh, &st.Started, &st.Resume)
	})
}

// RestartUnit marks a unit running from scratch: its counts and seen ids
// are cleared (for units paged without a checkpoint). One round trip, all
// or nothing.
func RestartUnit(ctx context.Context, pool *pgxpool.Pool, k UnitKey) error {
	b := &pgx.Batch{}
	b.Queue(startUnitSQL, k.RunID, k.AccountID, k.Entity)
	b.Queue(`UPDATE sync_run_units SET fetched = 0, inserted = 0, updated = 0, unchanged = 0,
    deleted = 0, pages = 0, max_updated_at = NULL, resume = NULL WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
		k.RunID, k.AccountID, k.Entity)
	b.Queue(forgetSeenSQL, k.RunID, k.AccountID, k.Entity)
	return pool.SendBatch(ctx, b).Close()
}

// PageProgress adds one page's counts to its unit, in the page's
// transaction, so a resumed unit keeps what earlier attempts counted; with
// resume set, also where the unit resumes after the page (see SaveResume),
// in the same statement.
func PageProgress(ctx context.Context, tx pgx.Tx, k UnitKey, fetched int64, mc MergeCounts, maxUpdated *time.Time, resume []byte) error {
	return pagesProgress(ctx, tx, k, 1, fetched, mc, maxUpdated, resume)
}

// PagesProgress is PageProgress for several pages stored at once.
func PagesProgress(ctx context.Context, tx pgx.Tx, k UnitKey, pages, fetched int64, mc MergeCounts, maxUpdated *time.Time) error {
	return pagesProgress(ctx, tx, k, pages, fetched, mc, maxUpdated, nil)
}

// pagesProgress is PagesProgress with resume, as PageProgress has it (nil:
// NULL, which keeps the unit's).
func pagesProgress(ctx context.Context, tx pgx.Tx, k UnitKey, pages, fetched int64, mc MergeCounts, maxUpdated *time.Time, resume []byte) error {
	_, err := tx.Exec(ctx, `UPDATE sync_run_units SET fetched = fetched + $4, inserted = inserted + $5,
    updated = updated + $6, unchanged = unchanged + $7, deleted = deleted + $8, pages = pages + $10,
    max_updated_at = GREATEST(max_updated_at, $9), resume = COALESCE($11::jsonb, resume)
WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
		k.RunID, k.AccountID, k.Entity, fetched, mc.Inserted, mc.Updated, mc.Unchanged, mc.Deleted, maxUpdated, pages, resume)
	return err
}

// SaveResume records where unit k resumes (see UnitStart.Resume) in the
// transaction that stored the page before it.
func SaveResume(ctx context.Context, tx pgx.Tx, k UnitKey, resume []byte) error {
	if _, err := tx.Exec(ctx, `UPDATE sync_run_units SET resume = $4 WHERE run_id = $1 AND account_id = $2 AND entity = $3`,
		k.RunID, k.AccountID, k.Entity, resume); err != nil {
		return fmt.Errorf("saving where %s of account %s resumes: %w", k.Entity, k.AccountID, err)
	}
	return nil
}

// AddSwept adds tombstones made by a sweep to the unit's deleted count.
func AddSwept(ctx context.Context, tx pgx.Tx, k UnitKey, n int64) error {
	_, err := tx.Exec(ctx, `UPDATE sync_run_units SET deleted = deleted + $4
WHERE run_id = $1 AND account_id = $2 AND entity = $3`, k.RunID, k.AccountID, k.Entity, n)
	return err
}

// Bookmark is where incremental syncs of one (account, entity) resume.
type Bookmark struct {
	Bookmark      *time.Time
	LastFullAt    *time.Time
	LastSuccessAt *time.Time
}

// GetBookmark reads a bookmark (zero when none).
func GetBookmark(ctx context.Context, pool *pgxpool.Pool, accountID, entity string) (Bookmark, error) {
	var b Bookmark
	err := pool.QueryRow(ctx, `SELECT bookmark, last_full_at, last_success_at FROM sync_bookmarks
WHERE account_id = $1 AND entity = $2`, accountID, entity).Scan(&b.Bookmark, &b.LastFullAt, &b.LastSuccessAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Bookmark{}, nil
	}
	return b, err
}

// CompleteUnit marks a unit succeeded and advances its bookmark to the
// newest updated_at the unit saw (never backwards). full records a complete
// listing.
func CompleteUnit(ctx context.Context, tx pgx.Tx, k UnitKey, full bool) error {
	_, err := tx.Exec(ctx, completeUnitSQL, k.RunID, k.AccountID, k.Entity, full, 0)
	return err
}

// completeUnitSQL marks an open unit succeeded and advances its bookmark;
// a unit that ended (succeeded, failed, skipped) is left as it is. It
// counts $5 listed pages that held no record and were not stored one by
// one: such a page has nothing to store, so the unit counts it as it
// completes instead of in a transaction of its own.
var completeUnitSQL = completeUnitWhenSQL(completion{when: "TRUE", full: "$4", emptyPages: "$5"})

// completion parameterizes completeUnitWhenSQL: each field is SQL, a
// condition or a parameter.
type completion struct {
	when       string // the unit completes only when it holds
	full       string // the listing was complete
	emptyPages string // pages without records the unit counts as it completes
	// printsRun, when set, is the run whose page prints the bookmark
	// trusts from now on (TrustPrints, in the same row write).
	printsRun string
}

// completeUnitWhenSQL is completeUnitSQL as c says: one statement, whose
// rows affected are 1 when the unit completed and 0 when it did not.
func completeUnitWhenSQL(c completion) string {
	cols, vals, sets := "", "", ""
	if c.printsRun != "" {
		cols, vals, sets = ", prints_run", ", "+c.printsRun, ",\n    prints_run = EXCLUDED.prints_run"
	}
	return `WITH u AS (
    UPDATE sync_run_units SET state = 'succeeded', finished_at = now(), error = NULL, pages = pages + ` + c.emptyPages + `
    WHERE run_id = $1 AND account_id = $2 AND entity = $3 AND state IN ('pending', 'running') AND ` + c.when + `
    RETURNING max_updated_at)
INSERT INTO sync_bookmarks (account_id, entity, bookmark, last_full_at, last_success_at` + cols + `)
SELECT $2, $3, u.max_updated_at, CASE WHEN ` + c.full + ` THEN now() END, now()` + vals + ` FROM u
ON CONFLICT (account_id, entity) DO UPDATE SET
    bookmark = GREATEST(sync_bookmarks.bookmark, EXCLUDED.bookmark),
    last_full_at = COALESCE(EXCLUDED.last_full_at, sync_bookmarks.last_full_at),
    last_success_at = EXCLUDED.last_success_at` + sets
}

// EndUnit marks a unit failed or skipped with a reason, and returns whether
// the run is now finished. One round trip: on a pool, the unit's end and
// the run's are one transaction.
func EndUnit(ctx context.Context, db Batcher, k UnitKey, state, reason string) (bool, error) {
	var r *string
	if reason != "" {
		r = &reason
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO sync_run_units (run_id, account_id, entity, state, error, finished_at)
VALUES ($1, $2, $3, $4, $5, now())
ON CONFLICT (run_id, account_id, entity) DO UPDATE SET state = EXCLUDED.state, error = EXCLUDED.error,
    finished_at = now()`, k.RunID, k.AccountID, k.Entity, state, r)
	// A unit that ends without completing never sweeps: forget what it saw.
	b.Queue(forgetSeenSQL, k.RunID, k.AccountID, k.Entity)
	return sendFinishingRun(ctx, db, b, 2, k.RunID, "")
}

// CompleteUnitAndFinishRun is CompleteUnit then FinishRunIfDone, in one
// round trip.
func CompleteUnitAndFinishRun(ctx context.Context, db Batcher, k UnitKey, full bool) (bool, error) {
	b := &pgx.Batch{}
	b.Queue(completeUnitSQL, k.RunID, k.AccountID, k.Entity, full, 0)
	return sendFinishingRun(ctx, db, b, 1, k.RunID, "")
}

// CompleteUnitFinishRunAndCommit is CompleteUnitAndFinishRun as the last
// statements of tx: when tx is BeginBatchFunc's (LockUnitFunc's), its
// COMMIT travels with them, and tx takes no statement after. emptyPages
// counts the unit's listed pages that held no record and were not stored
// one by one (see completeUnitSQL).
func CompleteUnitFinishRunAndCommit(ctx context.Context, tx pgx.Tx, k UnitKey, full bool, emptyPages int64) (bool, error) {
	b := &pgx.Batch{}
	b.Queue(completeUnitSQL, k.RunID, k.AccountID, k.Entity, full, emptyPages)
	return sendFinishingRun(ctx, committing{tx}, b, 1, k.RunID, "")
}

// FinishRunningUnit is, for a unit with nothing to sweep, the lock, the
// completion (with emptyPages, see completeUnitSQL) and the run's end of
// LockUnitFunc and CompleteUnitFinishRunAndCommit in one round trip and one
// transaction (a batch's). It returns the unit's state as locked: a unit
// that had ended is left as it was (completeUnitSQL completes only an open
// unit).
func FinishRunningUnit(ctx context.Context, db Batcher, k UnitKey, full bool, emptyPages int64) (state string, done bool, err error) {
	b := &pgx.Batch{}
	b.Queue(lockUnitSQL, k.RunID, k.AccountID, k.Entity)
	b.Queue(completeUnitSQL, k.RunID, k.AccountID, k.Entity, full, emptyPages)
	queueFinishRun(b, k.RunID, "")
	br := db.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	if err := br.QueryRow().Scan(&state); err != nil {
		return "", false, err
	}
	if _, err := br.Exec(); err != nil {
		return state, false, err
	}
	done, err = readFinishRun(br)
	return state, done, err
}

// committing sends a batch in a transaction as its last statements (see
// sendCommitting).
type committing struct{ tx pgx.Tx }

func (c committing) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return sendCommitting(ctx, c.tx, b)
}

// FinishRunIfDone sets the run's outcome and counts once no unit is
// pending or running: the unit that finishes last does it (the run row's
// lock orders concurrent finishers). Outcome: failed when every unit that
// ran failed, partial when some did, succeeded otherwise.
func FinishRunIfDone(ctx context.Context, db Batcher, runID int64) (bool, error) {
	return sendFinishingRun(ctx, db, &pgx.Batch{}, 0, runID, "")
}

// sendFinishingRun sends b's n statements (executed in order, results
// ignored) followed by those that finish the run once no unit is open, and
// returns whether the run is finished. failure, when set, is the reason the
// run failed whatever its units say.
func sendFinishingRun(ctx context.Context, db Batcher, b *pgx.Batch, n int, runID int64, failure string) (done bool, err error) {
	queueFinishRun(b, runID, failure)
	br := db.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	for range n {
		if _, err := br.Exec(); err != nil {
			return false, err
		}
	}
	return readFinishRun(br)
}

// readFinishRun reads the results of queueFinishRun's statements: whether
// the run is finished.
func readFinishRun(br pgx.BatchResults) (bool, error) {
	var before, after string
	if err := br.QueryRow().Scan(&before); err != nil {
		return false, err
	}
	err := br.QueryRow().Scan(&after)
	if errors.Is(err, pgx.ErrNoRows) {
		// Not finished now: still running with units open, or finished
		// before.
		return before != RunRunning, nil
	}
	return err == nil, err
}

// queueFinishRun queues the two statements that finish a run once no unit
// is open (see finishRunSQL). The run row's lock is taken by a statement
// of its own: the count that follows then sees every unit ended by a
// transaction that held the lock before (each statement reads what was
// committed when it began).
func queueFinishRun(b *pgx.Batch, runID int64, failure string) {
	b.Queue(`SELECT outcome FROM sync_runs WHERE id = $1 FOR NO KEY UPDATE`, runID)
	b.Queue(finishRunSQL, runID, failure)
}

// finishRunSQL finishes run $1 when it is running and none of its units is
// open; $2, when not empty, fails it whatever its units say. The counts
// keep what the run noted while running (see NoteInaccessibleAccounts)
// beside the units' sums. It returns the outcome set, no row when the run
// is left as it was. Each unit's end runs it: whether a unit is still open
// is one probe of the open units' index, and the units are read whole only
// once none is (a count of them all at each end read a run's n units n
// times).
const finishRunSQL = `UPDATE sync_runs SET outcome = CASE
        WHEN $2 <> '' THEN 'failed'
        ELSE (SELECT CASE
            WHEN count(*) FILTER (WHERE state = 'failed') = 0 THEN 'succeeded'
            WHEN count(*) FILTER (WHERE state = 'succeeded') = 0 THEN 'failed'
            ELSE 'partial' END
        FROM sync_run_units WHERE run_id = $1) END,
    finished_at = now(), counts = counts || COALESCE((
    SELECT jsonb_object_agg(entity, e.c) FROM (
        SELECT entity, jsonb_build_object('fetched', sum(fetched), 'inserted', sum(inserted), 'updated', sum(updated),
            'unchanged', sum(unchanged), 'deleted', sum(deleted), 'units', count(*),
            'failed_units', count(*) FILTER (WHERE state = 'failed'),
            'skipped_units', count(*) FILTER (WHERE state = 'skipped')) AS c
        FROM sync_run_units WHERE run_id = $1 GROUP BY entity) e), '{}'),
    error = COALESCE((SELECT string_agg(DISTINCT CASE WHEN account_id = '' THEN entity ELSE entity || ' ' || account_id END || ': ' || error, '; ')
        FROM sync_run_units WHERE run_id = $1 AND state = 'failed'), NULLIF($2, ''))
WHERE sync_runs.id = $1 AND sync_runs.outcome = 'running'
    AND NOT EXISTS (SELECT FROM sync_run_units WHERE run_id = $1 AND state IN ('pending', 'running'))
RETURNING sync_runs.outcome`

// inaccessibleKey is the key of sync_runs.counts listing the accounts a
// sync run left out because the user can no longer reach them.
const inaccessibleKey = "inaccessible_accounts"

// NoteInaccessibleAccounts records on a running sync run the accounts it
// leaves out because the user's account list no longer returns them.
func NoteInaccessibleAccounts(ctx context.Context, tx pgx.Tx, runID int64, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE sync_runs SET counts = counts || jsonb_build_object($2::text, $3::text[]) WHERE id = $1`,
		runID, inaccessibleKey, ids)
	return err
}

// EntityCounts are one entity's totals in a run.
type EntityCounts struct {
	Entity                                         string
	Units, FailedUnits, SkippedUnits, Open         int
	Fetched, Inserted, Updated, Unchanged, Deleted int64
}

// Run is a run's record with per-entity totals.
type Run struct {
	ID       int64
	Outcome  string
	Error    string
	Entities []EntityCounts
	// InaccessibleAccounts are the accounts the run left out because the
	// user's account list no longer returns them (their records are kept).
	InaccessibleAccounts []string
}

// GetRun reads a run and sums its units per entity, in one round trip.
func GetRun(ctx context.Context, pool *pgxpool.Pool, runID int64) (Run, error) {
	r := Run{ID: runID}
	var e *string
	b := &pgx.Batch{}
	b.Queue(`SELECT outcome, error, ARRAY(SELECT jsonb_array_elements_text(coalesce(counts->$2, '[]')))
FROM sync_runs WHERE id = $1`, runID, inaccessibleKey).QueryRow(func(row pgx.Row) error {
		return row.Scan(&r.Outcome, &e, &r.InaccessibleAccounts)
	})
	b.Queue(`SELECT entity, count(*), count(*) FILTER (WHERE state = 'failed'),
    count(*) FILTER (WHERE state = 'skipped'), count(*) FILTER (WHERE state IN ('pending', 'running')),
    sum(fetched), sum(inserted), sum(updated), sum(unchanged), sum(deleted)
FROM sync_run_units WHERE run_id = $1 GROUP BY entity ORDER BY entity`, runID).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var c EntityCounts
			if err := rows.Scan(&c.Entity, &c.Units, &c.FailedUnits, &c.SkippedUnits, &c.Open,
				&c.Fetched, &c.Inserted, &c.Updated, &c.Unchanged, &c.Deleted); err != nil {
				return err
			}
			r.Entities = append(r.Entities, c)
		}
		return rows.Err()
	})
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		return r, err
	}
	if e != nil {
		r.Error = *e
	}
	return r, nil
}

// FailRun ends a run that could not fan out: its open units and the run
// itself are failed with reason (the run fails even when the units it
// ran, the accounts, succeeded). One round trip, all or nothing.
func FailRun(ctx context.Context, pool *pgxpool.Pool, runID int64, reason string) error {
	b := &pgx.Batch{}
	b.Queue(`UPDATE sync_run_units SET state = 'failed', error = $2, finished_at = now()
WHERE run_id = $1 AND state IN ('pending', 'running')`, runID, reason)
	_, err := sendFinishingRun(ctx, pool, b, 1, runID, reason)
	return err
}

// UnitCounts reads a unit's counts.
func UnitCounts(ctx context.Context, pool *pgxpool.Pool, k UnitKey) (EntityCounts, error) {
	c := EntityCounts{Entity: k.Entity}
	err := pool.QueryRow(ctx, `SELECT fetched, inserted, updated, unchanged, deleted FROM sync_run_units
		WHERE run_id = $1 AND account_id = $2 AND entity = $3`, k.RunID, k.AccountID, k.Entity).
		Scan(&c.Fetched, &c.Inserted, &c.Updated, &c.Unchanged, &c.Deleted)
	return c, err
}

// UnitFailure is one failed unit of a run.
type UnitFailure struct {
	AccountID, Entity, Error string
}

// FailedUnits lists a run's failed units, by account then entity, their
// errors redacted.
func FailedUnits(ctx context.Context, pool *pgxpool.Pool, runID int64) ([]UnitFailure, error) {
	rows, err := pool.Query(ctx, `SELECT account_id, entity, coalesce(error, '') FROM sync_run_units
WHERE run_id = $1 AND state = 'failed' ORDER BY account_id, entity`, runID)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (UnitFailure, error) {
		var f UnitFailure
		err := r.Scan(&f.AccountID, &f.Entity, &f.Error)
		f.Error = Redact(f.Error)
		return f, err
	})
	return out, err
}
