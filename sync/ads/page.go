package ads

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
)

// storePage stores one listed page and its cursor in one transaction. A
// page whose print is among the prints the unit trusts is only counted as
// unchanged, its records unread, in one statement with no transaction
// (see store.MatchPrint), and so is an incremental unit's page whose
// records all equal their rows (countIfUnchanged); any other is read and
// merged with its counts and seen ids (writePage). It returns the
// oldest updated_at of the page (nil for a page found by its print: only
// complete units trust prints, and they never stop early).
func (s *Syncer) storePage(ctx context.Context, u *Unit, part string, raws []json.RawMessage, c Cursor, cp Checkpoint) (*time.Time, error) {
	if len(raws) == 0 && !u.Entity.AccessList && !u.Inline {
		// Nothing to store and nothing to look up: the unit counts the
		// page at its end (Finish, with its completion). Its cursor is not
		// recorded: a unit resumed after it lists the page again, at the
		// cost of one request. An access list's empty page still records
		// that the user reaches no account, and an inline unit ends
		// without that completion.
		u.emptyPages++
		return nil, nil
	}
	var print []byte
	if u.Complete() && u.Entity.Printed() {
		print = pagePrint(part, raws)
	}
	// A unit that keeps its cursor (cp set: the unit's own, see
	// Unit.saveCursor) saves it with the statement that counts the page,
	// whichever that is.
	var resume []byte
	if cp != nil {
		resume = cursorJSON(c)
	}
	if u.printsFrom != 0 {
		// The page's print, its count and the unit's cursor in one
		// statement, no transaction; a page not found is read and stored
		// as any other.
		var found bool
		var err error
		if u.endsWith(c) {
			found, err = s.endWithLastPrint(ctx, u, print, int64(len(raws)), resume)
		} else {
			found, err = store.MatchPrint(ctx, s.Pool, u.Key(), u.printsFrom, print, int64(len(raws)), resume)
		}
		if err != nil || found {
			return nil, err
		}
	}
	// The records' canonical bytes share one buffer, and the canonicalizer
	// with its buffers serves page after page: nothing of a page is held
	// once it is stored.
	canon := canonicalizers.Get().(*canonicalizer)
	defer canonicalizers.Put(canon)
	p, err := canon.stagePage(u, part, raws)
	if err != nil {
		return nil, err
	}
	sorted, err := s.countIfUnchanged(ctx, u, p, resume)
	if err != nil || sorted.unchanged {
		return p.oldest, err
	}
	err = pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		return s.writePage(ctx, tx, u, part, p, print, sorted, resume)
	})
	if err != nil {
		return nil, err
	}
	return p.oldest, nil
}

// hashes are the doc_hash of each of the page's records.
func (p *stagedPage) hashes() []string {
	hashes := make([]string, len(p.recs))
	for i := range p.recs {
		hashes[i] = p.recs[i].DocHash
	}
	return hashes
}

// unchangedProgress is what the page adds to u when no record differs.
func (p *stagedPage) unchangedProgress(u *Unit) *store.UnchangedProgress {
	return &store.UnchangedProgress{Unit: u.Key(), Fetched: int64(len(p.raws)), Records: int64(len(p.recs)), MaxUpdated: p.newest}
}

// pageSort is a page's records told apart (see sortPage); sorted says
// they were (unchanged then says no record differs).
type pageSort struct {
	fresh, changed []store.StagedRecord
	// freshTops are the members of each of fresh (see typedValuesInto).
	freshTops         [][]topMember
	sorted, unchanged bool
}

// sortOf splits a page's records by the indexes ChangedRecords returned.
func (p *stagedPage) sortOf(newIdx, changedIdx []int32) pageSort {
	ps := pageSort{sorted: true, unchanged: len(newIdx) == 0 && len(changedIdx) == 0}
	for _, i := range newIdx {
		ps.fresh = append(ps.fresh, p.recs[i])
		ps.freshTops = append(ps.freshTops, p.tops[i])
	}
	for _, i := range changedIdx {
		ps.changed = append(ps.changed, p.recs[i])
	}
	return ps
}

// countIfUnchanged sorts a page of an incremental unit on its own, in one
// statement and no transaction, which also counts it, with the unit's
// cursor after it (when it keeps one), when its records all equal their
// rows: such a page has nothing to store. A page with a record to store is
// left uncounted, and storePage's transaction stores it by this sort (the
// unit is the only writer of its account's rows of its entity; a record
// inserted meanwhile makes InsertNew's copy fail, and the page is merged).
// A complete unit's page marks its ids seen and an access list's records
// the accounts its user reaches: those are sorted in the transaction.
func (s *Syncer) countIfUnchanged(ctx context.Context, u *Unit, p *stagedPage, resume []byte) (pageSort, error) {
	e := u.Entity
	if u.Complete() || e.AccessList || len(p.recs) == 0 {
		return pageSort{}, nil
	}
	progress := p.unchangedProgress(u)
	progress.Resume = resume
	newIdx, changedIdx, err := store.ChangedRecords(ctx, s.Pool, e.Name, e.HasAccount(), u.AccountID, p.ids, p.hashes(), nil, progress)
	if err != nil {
		return pageSort{}, fmt.Errorf("storing %s: %w", e.Name, err)
	}
	return p.sortOf(newIdx, changedIdx), nil
}

// writePage merges a staged page and records its counts and seen ids (with
// its print, when it has one), and resume (when set) as where the unit
// resumes, in the page's transaction; ps, when sorted, is the page's
// records already told apart (countIfUnchanged's).
func (s *Syncer) writePage(ctx context.Context, tx pgx.Tx, u *Unit, part string, p *stagedPage, print []byte, ps pageSort, resume []byte) error {
	e := u.Entity
	// Records whose stored doc_hash is theirs are unchanged: they are
	// neither copied nor merged (the merge would leave them as they are),
	// only counted and marked seen. New records are copied straight into
	// the table when Go computed their typed columns; the others (changed
	// ones) are staged and merged.
	var err error
	if !ps.sorted {
		if ps, err = s.sortPage(ctx, tx, u, p, print, resume); err != nil {
			return err
		}
	}
	fresh, changed, unchanged := ps.fresh, ps.changed, ps.unchanged
	typed := newTypedArena(e, len(fresh))
	direct := true
	for i := range fresh {
		if !direct {
			break
		}
		fresh[i].Typed, direct = typedValuesInto(e, part, fresh[i].Raw, ps.freshTops[i], typed)
	}
	var inserted, deleted int64
	if direct && len(fresh) > 0 {
		var ok bool
		inserted, deleted, ok, err = store.InsertNew(ctx, tx, e.Name, e.insertColumns(), fresh, e.insertRow)
		if err != nil {
			return fmt.Errorf("storing %s: %w", e.Name, err)
		}
		direct = ok
	}
	if !direct {
		changed = append(changed, fresh...)
	}
	mc, err := store.MergePage(ctx, tx, e.MergeSQL(), changed)
	if err != nil {
		return fmt.Errorf("storing %s: %w", e.Name, err)
	}
	mc.Inserted += inserted
	mc.Deleted += deleted
	mc.Unchanged = int64(len(p.recs)) - mc.Inserted - mc.Updated
	if !unchanged {
		// (An unchanged page's lookup recorded its progress and resume.)
		if err := store.PageProgress(ctx, tx, u.Key(), int64(len(p.raws)), mc, p.newest, resume); err != nil {
			return err
		}
	}
	if e.AccessList && u.User != nil {
		if err := access.RecordListed(ctx, tx, u.RunID, u.User.ID, p.ids); err != nil {
			return fmt.Errorf("recording the accounts user %s reaches: %w", u.User.ID, err)
		}
	}
	return nil
}

// sortPage tells a staged page's new records from its changed ones, in one
// statement that, for a complete unit, also marks the page's ids seen (with
// its print) and, when no record differs, records the page's progress
// (unchanged reports it) with resume, when set, as where the unit resumes.
// An empty page needs no statement, and a first load's page only its mark.
func (s *Syncer) sortPage(ctx context.Context, tx pgx.Tx, u *Unit, p *stagedPage, print, resume []byte) (pageSort, error) {
	if len(p.recs) == 0 {
		return pageSort{sorted: true}, nil
	}
	e := u.Entity
	var seen *store.Seen
	if u.Complete() {
		seen = &store.Seen{RunID: u.RunID, AccountID: u.AccountID, Entity: e.Name,
			Print: print, Records: len(p.recs), MaxUpdated: p.newest}
	}
	if u.noneLive && seen != nil {
		// The table held no live row of the account as the unit started
		// (a first load): every record is new, with nothing to look up.
		// One an earlier page of the unit wrote, or a tombstone's, makes
		// InsertNew's copy fail, and the page is merged instead.
		if err := store.MarkSeen(ctx, tx, *seen, p.ids); err != nil {
			return pageSort{}, fmt.Errorf("storing %s: %w", e.Name, err)
		}
		return pageSort{fresh: p.recs, freshTops: p.tops, sorted: true}, nil
	}
	progress := p.unchangedProgress(u)
	progress.Resume = resume
	newIdx, changedIdx, err := store.ChangedRecords(ctx, tx, e.Name, e.HasAccount(), u.AccountID, p.ids, p.hashes(), seen, progress)
	if err != nil {
		return pageSort{}, fmt.Errorf("storing %s: %w", e.Name, err)
	}
	return p.sortOf(newIdx, changedIdx), nil
}
