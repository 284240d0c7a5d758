package ads

import (
	"context"
	"encoding/json"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Cursor is where a unit resumes: the part (post type or parent id) and
// the next page's cursor within it. Done marks the part complete.
type Cursor struct {
	Part string `json:"part,omitempty"`
	Next string `json:"next,omitempty"`
	Done bool   `json:"done,omitempty"`
	// Started says the cursor was saved by a page (the zero Cursor means
	// "from the beginning").
	Started bool `json:"started,omitempty"`
}

// Checkpoint persists a cursor inside the transaction that stored the page
// it follows, so a crash resumes exactly after that page.
type Checkpoint func(ctx context.Context, tx pgx.Tx, c Cursor) error

// Unit is one (account, entity) sync of a run.
type Unit struct {
	RunID     int64
	AccountID string
	Entity    *Entity
	// Full pages everything; otherwise an incremental entity stops at
	// Bookmark minus Overlap.
	Full     bool
	Bookmark *time.Time
	Overlap  time.Duration
	// Inline units run inside the run job, which finishes the run itself
	// after its fan-out.
	Inline bool
	// User acts for the unit when the deployment has a set of users (see
	// Syncer.Users); nil: the Syncer's API client.
	User *access.User
	// KeepsCursor keeps the unit's cursor in its row of sync_run_units,
	// saved with each page's count (see store.SaveResume): Sync then
	// resumes where the unit's last attempt stopped. A unit without it
	// starts from resume every time.
	KeepsCursor bool
	// EndsWithLastPage lets a unit that trusts page prints end in the
	// round trip that finds its last page's print (see
	// Syncer.endWithLastPrint): Finish, called after Sync as always, then
	// returns what that end did.
	EndsWithLastPage bool

	// printsFrom is the run whose page prints the unit trusts (see
	// store.ClaimPrints), 0 for none; noneLive says the table held no live
	// row of the account then. Both are set as the unit's sync starts.
	printsFrom int64
	noneLive   bool
	claim      store.PrintsClaim // the claim Begin sent, if it did
	// emptyPages counts the listed pages that held no record, which
	// storePage leaves to Finish.
	emptyPages int64
	// reach, when set, is who reaches the account, read by Begin.
	reach *[]access.Reach
	// resume is the cursor the unit's last attempt saved, read by Begin
	// (KeepsCursor).
	resume []byte
	// lastPart says the part being listed is the unit's last.
	lastPart bool
	// ended says the unit ended with its last page (see
	// Unit.EndsWithLastPage), and runDone that its end finished the run:
	// what Finish returns.
	ended, runDone bool
	// reservation is the first request's, made by Begin (see
	// Syncer.firstRequest), until Sync hands it over.
	reservation *api.Reservation
}

// saveCursor is the Checkpoint of a unit that keeps its cursor.
func (u *Unit) saveCursor(ctx context.Context, tx pgx.Tx, c Cursor) error {
	return store.SaveResume(ctx, tx, u.Key(), cursorJSON(c))
}

// cursorJSON is a cursor as a unit keeps it.
func cursorJSON(c Cursor) []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // strings and booleans always marshal
	}
	return b
}

// Printed says whether the entity's complete units keep page prints (see
// store.ClaimPrints): a listing stored page by page, of one account's rows.
// An access list's pages record more than rows, and a streamed listing is
// stored whole.
func (e *Entity) Printed() bool {
	return e.HasAccount() && !e.AccessList && !e.Streamed()
}

// Key is the unit's record key.
func (u *Unit) Key() store.UnitKey {
	return store.UnitKey{RunID: u.RunID, AccountID: u.AccountID, Entity: u.Entity.Name}
}

// Complete says whether the unit lists every record, so records it does
// not see are gone for good and can be tombstoned by the sweep. An access
// list is always complete: what it leaves out is what it tells.
func (u *Unit) Complete() bool {
	return u.completeWithBookmark() || u.Bookmark == nil
}

// completeWithBookmark says whether the unit is complete whatever its
// bookmark.
func (u *Unit) completeWithBookmark() bool {
	return u.Full || !u.Entity.Incremental || u.Entity.AccessList
}

// stopAt is the updated_at below which an incremental listing stops.
func (u *Unit) stopAt() (time.Time, bool) {
	if u.Complete() {
		return time.Time{}, false
	}
	return u.Bookmark.Add(-u.Overlap), true
}

// Syncer pages units into the database.
type Syncer struct {
	API  *api.Client
	Pool *pgxpool.Pool
	// PageSize is the count per page; 0 uses each endpoint's maximum.
	PageSize int
	// PageHook, when set, is told each time a streamed listing (see
	// Entity.Streamed) loads a page, how many records it then holds (tests:
	// memory stays one page).
	PageHook func(entity string, held int)
	// Users, when set, are the users the deployment acts for: the accounts
	// list is read once per user, and each account's units act for the
	// user access.Set chooses for it (see users.go).
	Users *access.Set
}

// client is the client that acts for u.
func (s *Syncer) client(u *Unit) *api.Client {
	if u.User != nil {
		return u.User.Client
	}
	return s.API
}
