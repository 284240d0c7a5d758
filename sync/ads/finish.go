package ads

import (
	"context"
	"errors"
	"fmt"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
)

// ErrUnitDone is returned by Finish for a unit already finished.
var ErrUnitDone = errors.New("unit already finished")

// Finish ends a unit whose pages are all stored: a complete listing
// tombstones the records it did not see, then the unit is marked succeeded
// and its bookmark advanced, all in one transaction. It reports whether the
// run finished with it.
func (s *Syncer) Finish(ctx context.Context, u *Unit) (runDone bool, err error) {
	if u.ended {
		return u.runDone, nil
	}
	if !u.Inline && !u.sweepsUnlisted() {
		// Nothing to read before the completion: one round trip.
		state, done, err := store.FinishRunningUnit(ctx, s.Pool, u.Key(), u.Complete(), u.emptyPages)
		if err == nil && !store.UnitOpen(state) {
			return false, ErrUnitDone
		}
		return done, err
	}
	var trust store.PrintsTrust
	var queue func(*pgx.Batch)
	if u.trustsWithLock() {
		// A complete unit that trusted prints: the check of its pages,
		// and their trust when none changed, travel with the lock (see
		// sweep).
		queue = func(b *pgx.Batch) { store.QueueTrustUnchanged(b, u.Key(), &trust) }
	}
	err = store.LockUnitQueueFunc(ctx, s.Pool, u.Key(), queue, func(tx pgx.Tx, state string) error {
		if state != store.UnitRunning {
			return ErrUnitDone
		}
		runDone, err = s.end(ctx, tx, u, &trust)
		return err
	})
	return runDone, err
}

// trustsWithLock says whether Finish checks, and trusts, the unit's page
// prints with its lock: a complete unit that trusted prints.
func (u *Unit) trustsWithLock() bool {
	return u.printsFrom != 0 && u.Complete()
}

// end is the rest of Finish once the unit is locked running: the sweep,
// the completion and, but for an inline unit, the run's end with the
// COMMIT.
func (s *Syncer) end(ctx context.Context, tx pgx.Tx, u *Unit, trust *store.PrintsTrust) (runDone bool, err error) {
	if err := s.sweep(ctx, tx, u, trust); err != nil {
		return false, err
	}
	if u.Inline {
		return false, store.CompleteUnit(ctx, tx, u.Key(), u.Complete())
	}
	return store.CompleteUnitFinishRunAndCommit(ctx, tx, u.Key(), u.Complete(), u.emptyPages)
}

// endsWith says whether the page with cursor c may end the unit in the
// round trip that looks up its print (see endWithLastPrint): the last
// page of the unit's last part, of a unit that allows it and that Finish
// would end with its prints' check.
func (u *Unit) endsWith(c Cursor) bool {
	return u.EndsWithLastPage && c.Done && u.lastPart && !u.Inline && u.sweepsUnlisted() && u.trustsWithLock()
}

// endWithLastPrint looks up the print of the unit's last page as
// MatchPrint does, and ends the unit in the same round trip when that was
// its whole end: the print found, every kept page found again and none
// stored (store.EndWithLastPrint). Finish then returns that end. Otherwise
// the page is counted when found, stored as any other when not, and
// Finish ends the unit.
func (s *Syncer) endWithLastPrint(ctx context.Context, u *Unit, print []byte, fetched int64, resume []byte) (found bool, err error) {
	res, err := store.EndWithLastPrint(ctx, s.Pool, u.Key(), store.LastPrint{From: u.printsFrom, Print: print, Fetched: fetched, Resume: resume},
		u.Complete(), u.emptyPages)
	if err != nil {
		return false, err
	}
	u.ended, u.runDone = res.Ended, res.RunDone
	return res.Found, nil
}

// sweepsUnlisted says whether u's end tombstones what its listing did not
// return: a complete listing stored page by page (a streamed one made its
// tombstones with its records).
func (u *Unit) sweepsUnlisted() bool {
	return u.Complete() && !u.Entity.Streamed()
}

// sweep tombstones, in Finish's transaction, the rows of the unit's account
// that its complete listing did not return. A complete unit of a
// printed entity keeps its pages' prints (see store.ClaimPrints); one that
// found every kept page again and stored none has nothing to tombstone and
// skips the sweep. trust is the check Finish queued with its lock, if it
// did: when nothing changed, the prints are trusted already.
func (s *Syncer) sweep(ctx context.Context, tx pgx.Tx, u *Unit, trust *store.PrintsTrust) error {
	if !u.sweepsUnlisted() {
		return nil
	}
	e := u.Entity
	if !e.Printed() {
		return sweepUnseen(ctx, tx, u)
	}
	changed := true
	switch {
	case trust.Queued():
		if !trust.Changed() {
			return nil // trusted with the lock
		}
	case u.printsFrom != 0:
		var err error
		if changed, err = store.PrintsChanged(ctx, tx, u.Key()); err != nil {
			return fmt.Errorf("sweeping %s: %w", e.Name, err)
		}
	}
	if changed {
		if err := store.KeepPrints(ctx, tx, u.Key()); err != nil {
			return err
		}
		var err error
		if u.noneLive {
			// A unit that found no live row as it started made every live
			// row there is, from its listing: nothing to tombstone.
			err = store.ForgetSeen(ctx, tx, u.Key())
		} else {
			err = sweepUnseen(ctx, tx, u)
		}
		if err != nil {
			return err
		}
	}
	return store.TrustPrints(ctx, tx, u.Key())
}

// sweepUnseen tombstones the live rows a complete unit did not list.
func sweepUnseen(ctx context.Context, tx pgx.Tx, u *Unit) error {
	e := u.Entity
	n, err := store.Sweep(ctx, tx, e.SweepSQL(), u.RunID, u.AccountID, e.Name)
	if err != nil {
		return fmt.Errorf("sweeping %s: %w", e.Name, err)
	}
	if e.AccessList {
		n = 0 // an account out of reach is not deleted
	}
	if n > 0 {
		return store.AddSwept(ctx, tx, u.Key(), n)
	}
	return nil
}
