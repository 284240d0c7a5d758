package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Page prints (migration 0023): a complete unit's end keeps the print of
// every page it listed with the ids the page held; the next complete unit
// of the same (account, entity) records a page whose print it finds as
// unchanged without reading its records, and skips the sweep when it found
// every kept page and stored none.
//
// The prints are trusted only while nothing but the unit that kept them
// wrote to the table's rows of the account: every unit of the entity
// claims them as it starts (ClaimPrints clears sync_bookmarks.prints_run
// before the unit writes anything), and a complete unit sets it again at
// its end (KeepPrints). Units of one (account, entity) never run at once
// (their jobs are unique), so a unit that finds prints_run set knows the
// table is as that run left it, barring writes from outside adsync, which
// through the triggers of migration 0023 when they delete rows.

// ClaimPrints clears the prints' run of (accountID, entity) before a unit
// writes to table's rows, and returns it when the unit may use the prints:
// complete is set (only a complete listing recognises pages); 0 means no
// print is trusted. live says whether table then held a live row of the
// account: a unit that starts with none has nothing to sweep at its end
// (its units never run at once, and the sync never revives a tombstone
// but by listing it). Only a complete unit sweeps, so only a complete unit
// without trusted prints looks: live is true for the others (a unit that
// trusts prints sweeps only when its pages changed, and a first load has
// no prints to trust).
func ClaimPrints(ctx context.Context, db Querier, table, accountID, entity string, complete bool) (from int64, live bool, err error) {
	var c PrintsClaim
	err = db.QueryRow(ctx, claimPrintsSQL(table, ""), accountID, entity, complete).Scan(&c.run, &c.anyLive)
	if err != nil {
		return 0, false, fmt.Errorf("claiming the page prints of %s of account %s: %w", entity, accountID, err)
	}
	return c.Result()
}

// PrintsClaim is the result of a claim queued by QueueClaimPrints.
type PrintsClaim struct {
	run     *int64
	anyLive *bool // NULL unless complete: only a complete unit sweeps
	queued  bool
}

// Queued says whether the claim was sent (QueueClaimPrints) and its result
// read.
func (c *PrintsClaim) Queued() bool { return c.queued }

// Result is ClaimPrints's result for a queued claim.
func (c *PrintsClaim) Result() (from int64, live bool, err error) {
	if c.run != nil {
		from = *c.run
	}
	return from, c.anyLive == nil || *c.anyLive, nil
}

// QueueClaimPrints queues ClaimPrints for unit k in b, to run after
// QueueBeginUnit's statement in the same batch: it claims the prints only
// when the unit is then running (a unit that did not start claims
// nothing), and c holds the result once b's results are read. complete is
// the unit's completeness but for its bookmark, read by the statement
// (the bookmark QueueBeginUnit reads in the same batch).
func QueueClaimPrints(b *pgx.Batch, table string, k UnitKey, complete bool, c *PrintsClaim) {
	b.Queue(claimPrintsSQL(table, `AND EXISTS (SELECT FROM sync_run_units u
        WHERE u.run_id = $4 AND u.account_id = $1 AND u.entity = $2 AND u.state = 'running')`),
		k.AccountID, k.Entity, complete, k.RunID).QueryRow(func(row pgx.Row) error {
		c.queued = true
		return row.Scan(&c.run, &c.anyLive)
	})
}

// claimPrintsSQL is ClaimPrints's statement ($1 account, $2 entity, $3
// complete, which a unit also is when the entity has no bookmark: see
// ads.Unit.Complete); running, when not empty, is a further condition of
// the claim.
//
// Whether the account has a live row is asked as the first row in key
// order, not as EXISTS. Queued in a batch, the statement cannot be planned
// at each call, and Postgres may keep a plan made while the table was
// empty (see PlanEachCall): with EXISTS that plan reads every row other
// accounts store meanwhile, milliseconds a unit, growing with the table;
// the first row in key order is read through the key's index whatever the
// table held when the plan was made.
func claimPrintsSQL(table, running string) string {
	return `WITH old AS (
    SELECT prints_run, bookmark FROM sync_bookmarks WHERE account_id = $1 AND entity = $2),
c AS (
    SELECT $3 OR coalesce((SELECT bookmark IS NULL FROM old), true) AS complete),
clear AS (UPDATE sync_bookmarks SET prints_run = NULL WHERE account_id = $1 AND entity = $2 AND prints_run IS NOT NULL ` + running + `)
SELECT CASE WHEN c.complete THEN (SELECT prints_run FROM old) END,
    CASE WHEN c.complete AND (SELECT prints_run FROM old) IS NULL
        THEN (SELECT true FROM ` + pgx.Identifier{table}.Sanitize() + ` t WHERE t.account_id = $1 AND NOT t.deleted
            ORDER BY t.account_id, t.id LIMIT 1) IS NOT NULL END
FROM c`
}

// MatchPrint records a page as unchanged when the prints kept by run from
// (see ClaimPrints) hold its print: the print is marked seen by the unit's
// run, and the unit's progress counts the page (fetched: its records,
// repeats included) as PageProgress would count an unchanged page, and as
// a known page. resume, when not nil, is saved as where the unit resumes
// (see SaveResume) when the print is found. It reports whether the print
// was found. Alone, one statement needs no transaction around it: nothing
// changes unless the print is found, and then the page's mark, count and
// cursor together.
func MatchPrint(ctx context.Context, db Querier, k UnitKey, from int64, print []byte, fetched int64, resume []byte) (bool, error) {
	var n int
	err := db.QueryRow(ctx, matchPrintSQL, k.RunID, k.AccountID, k.Entity, print, from, fetched, resume).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("looking up a page print of %s: %w", k.Entity, err)
	}
	return n > 0, nil
}

// matchPrintSQL marks the print $4 of unit ($1, $2, $3) seen when the
// prints of run $5 (or the unit's own) hold it, and counts the page ($6
// records fetched; $7 the unit's cursor, when not null) with it.
const matchPrintSQL = `WITH p AS (
    UPDATE sync_page_prints SET seen_run = $1
    WHERE account_id = $2 AND entity = $3 AND print = $4 AND seen_run IN ($1, $5)
    RETURNING records, max_updated),
progress AS (
    UPDATE sync_run_units u SET fetched = fetched + $6, unchanged = unchanged + p.records, pages = pages + 1, known_pages = known_pages + 1,
        max_updated_at = GREATEST(u.max_updated_at, p.max_updated), resume = coalesce($7::jsonb, u.resume)
    FROM p WHERE u.run_id = $1 AND u.account_id = $2 AND u.entity = $3)
SELECT count(*) FROM p`

// LastPrint is a unit's last listed page, looked up by its print as
// MatchPrint looks a page up.
type LastPrint struct {
	From    int64 // the run whose kept prints the unit trusts
	Print   []byte
	Fetched int64  // the page's records, repeats included
	Resume  []byte // the unit's cursor after the page, nil for none
}

// LastPrintEnd is what EndWithLastPrint did.
type LastPrintEnd struct {
	// Found says the page's print was among the kept ones: the page is
	// counted as MatchPrint counts it.
	Found bool
	// Ended says the unit ended: it found every kept page and stored
	// none, so its prints are trusted and it succeeded.
	Ended bool
	// RunDone says the unit's end finished its run.
	RunDone bool
}

// EndWithLastPrint is, for a complete unit that trusts the prints of run
// from, the lookup of its last page's print
// and its whole end in one round trip and one transaction: the unit's
// lock, MatchPrint and, when the print was found, the unit is running and
// no print changed (PrintsChanged), the unit's completion with its
// emptyPages (see completeUnitSQL) and the prints' trust, in one
// statement, and the run's end. Otherwise only MatchPrint's count stays:
// Finish ends the unit, after the page is stored when its print was not
// found.
func EndWithLastPrint(ctx context.Context, db Batcher, k UnitKey, p LastPrint, full bool, emptyPages int64) (res LastPrintEnd, err error) {
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	QueueKeptPlans(b)
	b.Queue(lockUnitSQL, k.RunID, k.AccountID, k.Entity)
	b.Queue(matchPrintSQL, k.RunID, k.AccountID, k.Entity, p.Print, p.From, p.Fetched, p.Resume)
	b.Queue(endUnchangedSQL, k.RunID, k.AccountID, k.Entity, p.Print, full, emptyPages)
	queueFinishRun(b, k.RunID, "")
	b.Queue(`COMMIT`)
	br := db.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	var state string
	var n int
	for i := 0; i < 2 && err == nil; i++ {
		_, err = br.Exec() // BEGIN, the kept plans
	}
	if err == nil {
		err = br.QueryRow().Scan(&state)
	}
	if err == nil {
		if err = br.QueryRow().Scan(&n); err != nil {
			err = fmt.Errorf("looking up a page print of %s: %w", k.Entity, err)
		}
	}
	var ended pgconn.CommandTag
	if err == nil {
		ended, err = br.Exec()
	}
	if err != nil {
		return LastPrintEnd{}, err
	}
	res.Found, res.Ended = n > 0, ended.RowsAffected() > 0
	if res.RunDone, err = readFinishRun(br); err != nil {
		return LastPrintEnd{}, err
	}
	_, err = br.Exec() // COMMIT
	return res, err
}

// endUnchangedSQL completes unit ($1, $2, $3) whose last page's print is
// $4 ($5 the listing was complete, $6 its pages without records) when
// unchangedEndSQL holds, and then trusts its prints (TrustPrints) in the
// bookmark's row write: one statement, whose one row affected says the
// unit ended.
var endUnchangedSQL = completeUnitWhenSQL(completion{when: unchangedEndSQL, full: "$5", emptyPages: "$6", printsRun: "$1"})

// unchangedEndSQL says ($1 run, $2 account, $3 entity, $4 the last page's
// print) that a unit that trusted its prints ends with that page: it is
// running, the page's print was found, and no print changed (see
// printsChangedSQL).
const unchangedEndSQL = `(EXISTS (SELECT FROM sync_run_units WHERE run_id = $1 AND account_id = $2 AND entity = $3 AND state = 'running')
    AND EXISTS (SELECT FROM sync_page_prints WHERE account_id = $2 AND entity = $3 AND print = $4 AND seen_run = $1)
    AND NOT ` + printsChangedSQL + `)`

// PrintsChanged says whether a complete unit that started with trusted
// prints (from, see ClaimPrints) stored a page, or left a kept page
// unfound: only then may its sweep have anything to tombstone.
func PrintsChanged(ctx context.Context, tx pgx.Tx, k UnitKey) (bool, error) {
	var changed bool
	err := tx.QueryRow(ctx, `SELECT `+printsChangedSQL, k.RunID, k.AccountID, k.Entity).Scan(&changed)
	return changed, err
}

// printsChangedSQL is one parenthesized condition, to be used within
// others.
const printsChangedSQL = `(EXISTS (SELECT FROM sync_unit_seen_pages WHERE run_id = $1 AND account_id = $2 AND entity = $3)
    OR EXISTS (SELECT FROM sync_page_prints WHERE account_id = $2 AND entity = $3 AND seen_run <> $1))`

// PrintsTrust is the result of QueueTrustUnchanged.
type PrintsTrust struct {
	changed bool
	queued  bool
}

// Queued says whether QueueTrustUnchanged's statement ran.
func (t *PrintsTrust) Queued() bool { return t.queued }

// Changed is PrintsChanged's answer; when false, the prints are trusted.
func (t *PrintsTrust) Changed() bool { return t.changed }

// QueueTrustUnchanged queues, in b, PrintsChanged for unit k and, when
// nothing changed, TrustPrints: the whole end of a unit that found every
// kept page again, in one statement of its Finish's first round trip
// (store.LockUnitQueueFunc). t holds the answer once b's results are read.
func QueueTrustUnchanged(b *pgx.Batch, k UnitKey, t *PrintsTrust) {
	b.Queue(`WITH ch AS (SELECT `+printsChangedSQL+` AS changed),
trust AS (`+trustPrintsSQL+` SELECT $2, $3, $1 FROM ch WHERE NOT ch.changed `+trustPrintsConflictSQL+`)
SELECT changed FROM ch`, k.RunID, k.AccountID, k.Entity).QueryRow(func(row pgx.Row) error {
		t.queued = true
		return row.Scan(&t.changed)
	})
}

// KeepPrints makes the prints of (account, entity) those of the pages a
// complete unit listed: the kept pages it found again and the pages it
// stored with their print. Call it in the unit's Finish transaction before
// Sweep forgets the stored pages.
func KeepPrints(ctx context.Context, tx pgx.Tx, k UnitKey) error {
	// The two statements travel in one round trip. They cannot be one
	// statement: a stale print (neither kept by the trusted run nor found
	// by this one) may be deleted and inserted again.
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM sync_page_prints WHERE account_id = $2 AND entity = $3 AND seen_run <> $1`,
		k.RunID, k.AccountID, k.Entity)
	// Two stored pages of one listing may be alike: one print each.
	b.Queue(`INSERT INTO sync_page_prints (account_id, entity, print, ids, records, max_updated, seen_run)
SELECT DISTINCT ON (print) account_id, entity, print, ids, records, max_updated, run_id
FROM sync_unit_seen_pages WHERE run_id = $1 AND account_id = $2 AND entity = $3 AND print IS NOT NULL
ON CONFLICT (account_id, entity, print) DO UPDATE SET ids = EXCLUDED.ids, records = EXCLUDED.records,
    max_updated = EXCLUDED.max_updated, seen_run = EXCLUDED.seen_run`, k.RunID, k.AccountID, k.Entity)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("keeping the page prints of %s: %w", k.Entity, err)
	}
	return nil
}

// TrustPrints ends a complete unit, once its sweep is done: the prints of
// (account, entity) are trusted for the unit's run.
func TrustPrints(ctx context.Context, tx pgx.Tx, k UnitKey) error {
	if _, err := tx.Exec(ctx, trustPrintsSQL+` VALUES ($2, $3, $1) `+trustPrintsConflictSQL, k.RunID, k.AccountID, k.Entity); err != nil {
		return fmt.Errorf("trusting the page prints of %s: %w", k.Entity, err)
	}
	return nil
}

// trustPrintsSQL and trustPrintsConflictSQL frame the row TrustPrints
// inserts ($1 run, $2 account, $3 entity).
const (
	trustPrintsSQL         = `INSERT INTO sync_bookmarks (account_id, entity, prints_run)`
	trustPrintsConflictSQL = `ON CONFLICT (account_id, entity) DO UPDATE SET prints_run = EXCLUDED.prints_run`
)
