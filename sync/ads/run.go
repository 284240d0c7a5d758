package ads

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
)

// Pipeline is the sync_runs pipeline of advertising syncs.
const Pipeline = "sync"

// ReferenceMaxAge is how long reference data stays fresh: an incremental
// run skips a reference entity refreshed more recently.
const ReferenceMaxAge = 24 * time.Hour

// Run names one advertising sync run.
type Run struct {
	// ID is the run's sync_runs row.
	ID int64
	// AccountIDs limit the run to these accounts; empty means every
	// account of the user.
	AccountIDs []string
	// Entities limit the run to these entities; empty means all.
	Entities []string
	// Full pages everything instead of stopping at the bookmarks.
	Full bool
}

// Enqueuer inserts one job per unit in tx, so the jobs exist exactly when
// the units are recorded, and reports for each unit, in order, the run
// whose job already held that unit (0 when a new job was queued). The jobs
// package provides it.
type Enqueuer func(ctx context.Context, tx pgx.Tx, run Run, units []store.UnitKey) (holders []int64, err error)

// Lifecycle runs the advertising sync: accounts first, then one unit per
// (account, entity) handed to the jobs through an Enqueuer.
type Lifecycle struct {
	Syncer *Syncer
	// Overlap is subtracted from incremental bookmarks.
	Overlap time.Duration
}

// Start syncs the accounts (unless the run already did) and fans out the
// run's units. It returns whether the run finished with the fan-out (no
// unit left to run).
func (l *Lifecycle) Start(ctx context.Context, run Run, enqueue Enqueuer) (runDone bool, err error) {
	// Accounts are synced first: they say which accounts exist.
	accounts, _ := Lookup("accounts")
	u := &Unit{RunID: run.ID, Entity: accounts, Full: run.Full, Overlap: l.Overlap, Inline: true}
	st, err := store.UnitState(ctx, l.Syncer.Pool, u.Key())
	if err != nil {
		return false, err
	}
	if st != store.UnitSucceeded {
		if err := l.syncInline(ctx, u); err != nil {
			return false, err
		}
	}
	return l.fanOut(ctx, run, enqueue)
}

// syncInline syncs a small global entity within the run job, from its
// first page on every attempt.
func (l *Lifecycle) syncInline(ctx context.Context, u *Unit) error {
	pool := l.Syncer.Pool
	if err := store.RestartUnit(ctx, pool, u.Key()); err != nil {
		return err
	}
	bm, err := store.GetBookmark(ctx, pool, u.AccountID, u.Entity.Name)
	if err != nil {
		return err
	}
	u.Bookmark = bm.Bookmark
	if err := l.Syncer.Sync(ctx, u, Cursor{}); err != nil {
		return err
	}
	_, err = l.Syncer.Finish(ctx, u)
	if errors.Is(err, ErrUnitDone) {
		return nil
	}
	return err
}

// plan lists the run's units: one per (account, entity), one per global
// entity, the accounts aside (the run syncs them itself).
func plan(run Run, accountIDs []string) []store.UnitKey {
	var units []store.UnitKey
	seen := map[[2]string]bool{}
	for _, e := range Entities() {
		if e.Name == "accounts" || (len(run.Entities) > 0 && !slices.Contains(run.Entities, e.Name)) {
			continue
		}
		accts := accountIDs
		if !e.HasAccount() {
			accts = []string{""}
		}
		for _, a := range accts {
			// A unit is recorded once, and the jobs' InsertMany rejects
			// a batch holding one unique key twice.
			if k := [2]string{a, e.Name}; !seen[k] {
				seen[k] = true
				units = append(units, store.UnitKey{RunID: run.ID, AccountID: a, Entity: e.Name})
			}
		}
	}
	return units
}

// fresh names the units a run records skipped at its fan-out, queuing no
// job for them: reference data refreshed less than ReferenceMaxAge ago,
// unless the run is full. (Begin skips them the same way, should a job
// start one.)
func fresh(run Run) *store.Fresh {
	if run.Full {
		return nil
	}
	f := &store.Fresh{After: time.Now().Add(-ReferenceMaxAge), Reason: refreshedRecently}
	for _, e := range Entities() {
		if e.Reference {
			f.Entities = append(f.Entities, e.Name)
		}
	}
	return f
}

// refreshedRecently is why a reference unit is skipped.
const refreshedRecently = "refreshed less than a day ago"

// ErrUnitsWaiting says some units of a run could not be queued yet: the
// job holding each is another run's, whose unit has already ended, so it
// will not sync it again, but River has not yet marked that job finished.
// The run's job should try again shortly.
var ErrUnitsWaiting = errors.New("units wait for the job of another run to finish")

// Waits between tries to queue units whose holder is finishing: River
// marks a job finished milliseconds after its work ends.
const (
	queueRetryFirst = 10 * time.Millisecond
	queueRetryMax   = 200 * time.Millisecond
	queueRetryFor   = 5 * time.Second
)

// fanOut records the run's units once, then queues their jobs.
func (l *Lifecycle) fanOut(ctx context.Context, run Run, enqueue Enqueuer) (bool, error) {
	err := pgx.BeginFunc(ctx, l.Syncer.Pool, func(tx pgx.Tx) error {
		done, err := store.HasUnits(ctx, tx, run.ID, "accounts")
		if err != nil || done {
			return err
		}
		accountIDs, err := LiveAccounts(ctx, tx)
		if err != nil {
			return err
		}
		lost, err := InaccessibleAccounts(ctx, tx)
		if err != nil {
			return err
		}
		if len(run.AccountIDs) > 0 {
			// Accounts asked for by id are synced even when the list
			// does not know them (their units then fail, saying why),
			// unless the list says they are out of reach.
			accountIDs = slices.DeleteFunc(slices.Clone(run.AccountIDs), func(id string) bool { return slices.Contains(lost, id) })
			lost = slices.DeleteFunc(lost, func(id string) bool { return !slices.Contains(run.AccountIDs, id) })
		}
		if err := store.NoteInaccessibleAccounts(ctx, tx, run.ID, lost); err != nil {
			return err
		}
		return store.AddUnits(ctx, tx, plan(run, accountIDs), fresh(run))
	})
	if err != nil {
		return false, err
	}
	var waiting []store.UnitKey
	wait, deadline := queueRetryFirst, time.Now().Add(queueRetryFor)
	for {
		runDone, err := l.queue(ctx, run, enqueue, &waiting)
		if err != nil || len(waiting) == 0 {
			return runDone, err
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("%w (%d units)", ErrUnitsWaiting, len(waiting))
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, queueRetryMax)
	}
}

// queue enqueues the jobs of *units (nil: every pending unit of the run)
// and leaves in *units those to try again. A unit whose key another run's
// job holds is skipped only while that job's unit is still open, so that
// job will do the work; a holder whose unit already ended has done its work
// before this run asked, and River is about to mark it finished: the unit
// is tried again, not skipped with nothing to sync it.
func (l *Lifecycle) queue(ctx context.Context, run Run, enqueue Enqueuer, units *[]store.UnitKey) (runDone bool, err error) {
	var waiting []store.UnitKey
	err = pgx.BeginFunc(ctx, l.Syncer.Pool, func(tx pgx.Tx) error {
		todo := *units
		if todo == nil {
			if todo, err = store.PendingUnits(ctx, tx, run.ID, "accounts"); err != nil {
				return err
			}
		}
		if len(todo) > 0 {
			holders, err := enqueue(ctx, tx, run, todo)
			if err != nil {
				return err
			}
			for i, h := range holders {
				if h == 0 || h == run.ID {
					continue
				}
				// A plain read: locking the holder's unit here would
				// order locks against the holder's page transactions.
				k := todo[i]
				st, err := store.UnitState(ctx, tx, store.UnitKey{RunID: h, AccountID: k.AccountID, Entity: k.Entity})
				if err != nil {
					return err
				}
				if !store.UnitOpen(st) {
					waiting = append(waiting, k)
					continue
				}
				if _, err := store.EndUnit(ctx, tx, k, store.UnitSkipped, fmt.Sprintf("already queued or running for run %d", h)); err != nil {
					return err
				}
			}
		}
		runDone, err = store.FinishRunIfDone(ctx, tx, run.ID)
		return err
	})
	if err == nil {
		*units = waiting
	}
	return runDone, err
}

// LiveAccounts lists the accounts a run fans out to: those neither deleted
// nor out of the user's reach.
func LiveAccounts(ctx context.Context, tx Queryer) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM accounts WHERE NOT deleted AND inaccessible_since IS NULL ORDER BY id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Queryer is a pool or a transaction.
type Queryer interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// InaccessibleAccounts lists the accounts, not deleted, that the user's
// account list no longer returns: runs leave them out and keep their
// records.
func InaccessibleAccounts(ctx context.Context, tx Queryer) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM accounts WHERE NOT deleted AND inaccessible_since IS NOT NULL ORDER BY id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Begin starts a unit's attempt. It reports skip when there is nothing to
// do: the unit already ended (a retry after it finished), or it is
// reference data refreshed less than ReferenceMaxAge ago (the unit is then
// ended as skipped). Otherwise the unit is marked running with its
// bookmark loaded into u. The state, the bookmark and the start are one
// statement, sent with the query of who reaches the unit's account when a
// user is to be chosen for it.
func (s *Syncer) Begin(ctx context.Context, u *Unit) (skip bool, err error) {
	var freshAfter *time.Time
	if u.Entity.Reference && !u.Full {
		t := time.Now().Add(-ReferenceMaxAge)
		freshAfter = &t
	}
	var st store.UnitStart
	b := &pgx.Batch{}
	store.QueueKeptPlans(b)
	store.QueueBeginUnit(b, u.Key(), freshAfter, &st)
	if e := u.Entity; e.Printed() {
		// The unit's claim of its page prints (see Syncer.sync), sent
		// with its start; it claims nothing unless the unit started.
		u.claim = store.PrintsClaim{}
		store.QueueClaimPrints(b, e.Name, u.Key(), u.completeWithBookmark(), &u.claim)
	}
	var reach *[]access.Reach
	if s.actsAsAccountUser(u) {
		// Who reaches the account is read with the start, in the same
		// round trip, for the choice of the user who acts (syncAsUser).
		reach = new([]access.Reach)
		access.QueueReachers(b, u.AccountID, reach)
	}
	var res *api.Reservation
	if c, endpoint, ok := s.firstRequest(ctx, u); ok {
		// The first request's reservation too (Sync hands it over).
		res = c.QueueReservation(b, endpoint, api.TokenUserID(c.UserToken()), u.AccountID)
	}
	err = s.Pool.SendBatch(ctx, b).Close()
	switch {
	case err != nil:
		res.Unsent()
		return false, err
	case st.Started:
		u.Bookmark, u.reach, u.resume, u.reservation = st.Bookmark.Bookmark, reach, st.Resume, res
		return false, nil
	}
	res.Release(ctx)
	if st.Fresh {
		return true, s.End(ctx, u, store.UnitSkipped, refreshedRecently)
	}
	return true, nil // ended: a retry after the unit finished
}

// firstRequest is the client and rate-limit endpoint of the unit's first
// request when Begin can tell them: a unit listing its own entity for
// its account, with one user to act (or none to choose from). Otherwise
// ok is false, and the request reserves as it is sent.
func (s *Syncer) firstRequest(ctx context.Context, u *Unit) (c *api.Client, endpoint string, ok bool) {
	e := u.Entity
	if u.Inline || u.User != nil || u.AccountID == "" || e.AccessList || e.Streamed() || e.Parents != nil || e.Scope == PerParent {
		return nil, "", false
	}
	c = s.API
	if s.Users != nil {
		// The account's user is chosen as the unit syncs (syncAsUser):
		// only when there is one to choose can Begin tell it.
		users, err := s.Users.Users(ctx)
		if err != nil || len(users) != 1 {
			return nil, "", false
		}
		c = users[0].Client
	}
	return c, e.Endpoint, c != nil
}

// WaitingFor names the parent entity whose unit of the same run and
// account is still open (pending or running), "" when the unit may start:
// an entity listed by its stored parents (see ParentsFrom) starts once its
// parents' unit has ended, however it ended. A run without the parent
// entity lists the parents already stored.
func (s *Syncer) WaitingFor(ctx context.Context, u *Unit) (string, error) {
	p := u.Entity.Parents
	if p == nil {
		return "", nil
	}
	st, err := store.UnitState(ctx, s.Pool, store.UnitKey{RunID: u.RunID, AccountID: u.AccountID, Entity: p.Entity})
	if err != nil || !store.UnitOpen(st) {
		return "", err
	}
	return p.Entity, nil
}

// End ends a unit that will not complete (failed, or skipped with a
// reason) and finishes its run when it was the last unit open.
func (s *Syncer) End(ctx context.Context, u *Unit, state, reason string) error {
	_, err := store.EndUnit(ctx, s.Pool, u.Key(), state, reason)
	return err
}
