package ads

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
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

// Sync pages the unit's lists from resume, storing each page in one
// transaction. A unit that keeps its cursor stores it with each page,
// resumes where it saved it, and from resume only when it saved none (a
// unit begun before units kept their cursor).
func (s *Syncer) Sync(ctx context.Context, u *Unit, resume Cursor) error {
	if r := u.reservation; r != nil {
		// The first request takes Begin's reservation; one it did not
		// take is given back.
		u.reservation = nil
		ctx = api.WithReservation(ctx, r)
		defer r.Release(ctx)
	}
	var cp Checkpoint
	if u.KeepsCursor {
		if len(u.resume) > 0 {
			resume = Cursor{}
			if err := json.Unmarshal(u.resume, &resume); err != nil {
				return fmt.Errorf("%s of account %s: reading where the unit resumes: %w", u.Entity.Name, u.AccountID, err)
			}
		}
		cp = u.saveCursor
	}
	if s.Users != nil {
		return s.syncAsUser(ctx, u, resume, cp)
	}
	return s.sync(ctx, u, resume, cp)
}

// sync pages the unit's lists with the unit's client.
func (s *Syncer) sync(ctx context.Context, u *Unit, resume Cursor, cp Checkpoint) error {
	e := u.Entity
	if e.Streamed() {
		return s.syncStreamed(ctx, u, resume, cp)
	}
	if e.Printed() {
		// Before anything is written: the unit's writes end the trust in
		// the kept prints, unless it is complete and keeps new ones. Begin
		// claims them in its round trip; a unit synced without Begin
		// claims them here.
		from, live, err := u.claim.Result()
		if !u.claim.Queued() {
			from, live, err = store.ClaimPrints(ctx, s.Pool, e.Name, u.AccountID, e.Name, u.Complete())
		}
		u.claim = store.PrintsClaim{} // a second listing claims again
		if err != nil {
			return err
		}
		u.printsFrom, u.noneLive = from, !live
	}
	parts, err := s.parts(ctx, u)
	if err != nil {
		return err
	}
	start := 0
	if resume.Started {
		start = sort.SearchStrings(parts, resume.Part)
		if start < len(parts) && parts[start] == resume.Part && resume.Done {
			start++
		}
	}
	for i := start; i < len(parts); i++ {
		part := parts[i]
		next := ""
		if resume.Started && part == resume.Part && !resume.Done {
			next = resume.Next
		}
		u.lastPart = i == len(parts)-1
		if err := s.syncPart(ctx, u, part, next, cp); err != nil {
			return fmt.Errorf("%s %s: %w", e.Name, describe(u, part), err)
		}
	}
	return nil
}

func describe(u *Unit, part string) string {
	d := "account " + u.AccountID
	if u.AccountID == "" {
		d = "(global)"
	}
	if p := u.Entity.Parents; p != nil {
		// A chunk names up to Chunk ids: its ends and size are enough.
		ids := strings.Split(part, ",")
		return fmt.Sprintf("%s %s %s..%s (%d ids)", d, p.Param, ids[0], ids[len(ids)-1], len(ids))
	}
	if part != "" {
		d += " " + u.Entity.PartParam
		if u.Entity.Scope == PerParent {
			d += "parent"
		}
		d = strings.TrimSpace(d) + " " + part
	}
	return d
}

// parts lists the unit's lists: one per post type, one per live custom
// audience for per-parent entities, one per chunk of stored parent ids,
// else one.
func (s *Syncer) parts(ctx context.Context, u *Unit) ([]string, error) {
	e := u.Entity
	switch {
	case e.Parents != nil:
		return s.parentChunks(ctx, u)
	case e.Scope == PerParent:
		aud, _ := Lookup("custom_audiences")
		var ids []string
		lr := api.ListRequest{Base: api.BaseAds, Path: fill(aud.Path, u.AccountID, ""), Endpoint: aud.Endpoint,
			AccountID: u.AccountID, Query: url.Values{}}
		for page, err := range api.Pages[struct {
			ID      string `json:"id"`
			Deleted bool   `json:"deleted"`
		}](ctx, s.client(u), lr) {
			if err != nil {
				return nil, fmt.Errorf("%s: listing custom audiences of account %s: %w", e.Name, u.AccountID, err)
			}
			for _, a := range page.Items {
				if !a.Deleted {
					ids = append(ids, a.ID)
				}
			}
		}
		sort.Strings(ids)
		return ids, nil
	case e.PartsFrom != nil:
		return s.partsFrom(ctx, u)
	case len(e.Parts) > 0:
		p := append([]string(nil), e.Parts...)
		sort.Strings(p)
		return p, nil
	}
	return []string{""}, nil
}

// parentChunks are the parts of an entity listed by stored parents: the
// live parent ids of the unit's account, sorted bytewise and cut into
// chunks, each joined with commas. Since a comma sorts before every id
// character, the chunks are sorted as the ids are, as Sync's resume needs.
func (s *Syncer) parentChunks(ctx context.Context, u *Unit) ([]string, error) {
	p := u.Entity.Parents
	rows, err := s.Pool.Query(ctx, fmt.Sprintf(`SELECT id FROM %s WHERE account_id = $1 AND NOT deleted`,
		pgx.Identifier{p.Entity}.Sanitize()), u.AccountID)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the %s of account %s: %w", u.Entity.Name, p.Entity, u.AccountID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("%s: reading the %s of account %s: %w", u.Entity.Name, p.Entity, u.AccountID, err)
	}
	sort.Strings(ids)
	chunks := api.ChunkIDs(ids, p.Chunk)
	parts := make([]string, len(chunks))
	for i, c := range chunks {
		parts[i] = strings.Join(c, ",")
	}
	return parts, nil
}

func fill(path, account, parent string) string {
	return strings.NewReplacer("{account_id}", url.PathEscape(account), "{parent_id}", url.PathEscape(parent)).Replace(path)
}

func query(u *Unit, part string) url.Values {
	e := u.Entity
	q := url.Values{}
	for k, v := range e.Query {
		q.Set(k, v)
	}
	if e.PartParam != "" {
		q.Set(e.PartParam, part)
	}
	if e.Parents != nil {
		q.Set(e.Parents.Param, part)
	}
	if e.WithDeleted {
		q.Set("with_deleted", "true")
	}
	if e.Incremental {
		// An incremental listing reads the latest changes first and stops
		// at the bookmark. A complete one reads in creation order: a record
		// changed while the listing is read keeps its place (by updated_at
		// it would move to a page already read, and be swept as gone), and
		// new records come last, so the pages before them keep their bytes
		// and are found by their print (see store.ClaimPrints).
		if u.Complete() {
			q.Set("sort_by", "created_at-asc")
		} else {
			q.Set("sort_by", "updated_at-desc")
		}
	}
	return q
}

// ListRequest is the paged list request of a unit's part (pageSize 0: the
// endpoint's maximum), as the sync sends it. Benchmarks fetch the same
// pages with it.
func ListRequest(u *Unit, part string, pageSize int) api.ListRequest {
	// The page's records are not validated by the split: stage's
	// canonicalizer validates each one as it reads it.
	return api.ListRequest{Base: api.BaseAds, Path: fill(u.Entity.Path, u.AccountID, part), Endpoint: u.Entity.Endpoint,
		Query: query(u, part), Count: pageSize, AccountID: u.AccountID, UncheckedRecords: true}
}

func (s *Syncer) syncPart(ctx context.Context, u *Unit, part, next string, cp Checkpoint) error {
	e := u.Entity
	path := fill(e.Path, u.AccountID, part)
	q := query(u, part)
	if e.Single || e.NotPaged {
		resp, err := s.client(u).Do(ctx, &api.Request{Method: "GET", Base: api.BaseAds, Path: path, Endpoint: e.Endpoint,
			Query: q, Auth: api.AuthUser, AccountID: u.AccountID, Idempotent: true})
		if err != nil {
			return err
		}
		var raws []json.RawMessage
		if e.Single {
			env, err := api.Decode[api.Single[json.RawMessage]](e.Endpoint, resp.Body)
			if err != nil {
				return err
			}
			raws = []json.RawMessage{env.Data}
		} else {
			env, err := api.Decode[api.List[json.RawMessage]](e.Endpoint, resp.Body)
			if err != nil {
				return err
			}
			raws = env.Data
		}
		_, err = s.storePage(ctx, u, part, raws, Cursor{Part: part, Done: true, Started: true}, cp)
		return err
	}
	lr := ListRequest(u, part, s.PageSize)
	lr.Cursor = next
	// storePage keeps nothing of a page's bytes: the records' canonical
	// bytes are its own copies.
	lr.ReuseBody = true
	for page, err := range api.Pages[json.RawMessage](ctx, s.client(u), lr) {
		if err != nil {
			return err
		}
		c := Cursor{Part: part, Next: page.NextCursor, Done: page.NextCursor == "", Started: true}
		oldest, err := s.storePage(ctx, u, part, page.Raw, c, cp)
		if err != nil {
			return err
		}
		// Sorted by updated_at descending: once a page reaches records
		// older than the bookmark minus the overlap, the rest are known.
		if stop, ok := u.stopAt(); ok && oldest != nil && oldest.Before(stop) {
			if !c.Done && cp != nil {
				return s.checkpointDone(ctx, part, cp)
			}
			return nil
		}
	}
	return nil
}

// checkpointDone records that an incremental part stopped early.
func (s *Syncer) checkpointDone(ctx context.Context, part string, cp Checkpoint) error {
	return pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		return cp(ctx, tx, Cursor{Part: part, Done: true, Started: true})
	})
}

// stage canonicalizes one record (see canonicalizer) and hashes it, reusing
// c's buffers (one canonicalizer per page).
func (c *canonicalizer) stage(u *Unit, part string, raw json.RawMessage) (store.StagedRecord, error) {
	e := u.Entity
	c.deletedField, c.deletedValue = e.DeletedField, e.DeletedValue
	canon, err := c.canonical(raw, e.Key())
	if errors.Is(err, errSyntax) {
		// Not valid JSON: the page's decode would have refused it so
		// (the split left the records to this validator).
		if jerr := json.Unmarshal(raw, new(json.RawMessage)); jerr != nil {
			err = jerr
		}
		return store.StagedRecord{}, fmt.Errorf("%s: decoding the response: %w", e.Endpoint, err)
	}
	if err != nil {
		return store.StagedRecord{}, fmt.Errorf("a record is not a JSON object: %v", err)
	}
	id := c.id
	if id == "" {
		return store.StagedRecord{}, fmt.Errorf("a record has no %s", e.Key())
	}
	if e.Scope == PerParent && e.Key() != "id" {
		// Targeted-by entries are keyed by campaign within an audience.
		id = part + "/" + id
	}
	sum := sha256.Sum256(canon)
	r := store.StagedRecord{AccountID: u.AccountID, ID: id, Raw: c.keep(canon), DocHash: hex.EncodeToString(sum[:])}
	if e.Scope == PerParent {
		r.ParentID = part
	}
	r.CreatedAt, r.UpdatedAt = stamp(c.createdAt), stamp(c.updatedAt)
	r.Deleted = c.deleted
	return r, nil
}

// keep copies canon into the arena, or into a buffer of its own when the
// arena is full.
func (c *canonicalizer) keep(canon []byte) []byte {
	if cap(c.arena)-len(c.arena) < len(canon) {
		return bytes.Clone(canon)
	}
	start := len(c.arena)
	c.arena = append(c.arena, canon...)
	return c.arena[start:len(c.arena):len(c.arena)]
}

// stamp is an RFC 3339 time in UTC, nil when s is not one.
func stamp(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil
	}
	t = t.UTC()
	return &t
}

// canonicalizers are storePage's, kept from page to page.
var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

// stagedPage is a page's records read and canonicalized, ready to store.
type stagedPage struct {
	raws []json.RawMessage
	// recs are the distinct records (the last copy of a repeated id wins),
	// ids their ids.
	recs           []store.StagedRecord
	ids            []string
	oldest, newest *time.Time
}

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
	if u.printsFrom != 0 {
		// The page's print, its count and the unit's cursor in one
		// statement, no transaction (cp, when set, is the unit's own
		// cursor); a page not found is read and stored as any other.
		var resume []byte
		if cp != nil {
			resume = cursorJSON(c)
		}
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
	sorted, err := s.countIfUnchanged(ctx, u, p, c, cp)
	if err != nil || sorted.unchanged {
		return p.oldest, err
	}
	err = pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		if err := s.writePage(ctx, tx, u, part, p, print, sorted); err != nil {
			return err
		}
		if cp != nil {
			return cp(ctx, tx, c)
		}
		return nil
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
	fresh, changed    []store.StagedRecord
	sorted, unchanged bool
}

// sortOf splits a page's records by the indexes ChangedRecords returned.
func (p *stagedPage) sortOf(newIdx, changedIdx []int32) pageSort {
	ps := pageSort{sorted: true, unchanged: len(newIdx) == 0 && len(changedIdx) == 0}
	for _, i := range newIdx {
		ps.fresh = append(ps.fresh, p.recs[i])
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
func (s *Syncer) countIfUnchanged(ctx context.Context, u *Unit, p *stagedPage, c Cursor, cp Checkpoint) (pageSort, error) {
	e := u.Entity
	if u.Complete() || e.AccessList || len(p.recs) == 0 {
		return pageSort{}, nil
	}
	progress := p.unchangedProgress(u)
	if cp != nil {
		progress.Resume = cursorJSON(c)
	}
	newIdx, changedIdx, err := store.ChangedRecords(ctx, s.Pool, e.Name, e.HasAccount(), u.AccountID, p.ids, p.hashes(), nil, progress)
	if err != nil {
		return pageSort{}, fmt.Errorf("storing %s: %w", e.Name, err)
	}
	return p.sortOf(newIdx, changedIdx), nil
}

// pagePrint is the print of a listed page (see store.ClaimPrints): the
// SHA-256 of its part and its raw records, each preceded by its length.
func pagePrint(part string, raws []json.RawMessage) []byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(part)))
	h.Write(n[:])
	h.Write([]byte(part))
	for _, raw := range raws {
		binary.BigEndian.PutUint64(n[:], uint64(len(raw)))
		h.Write(n[:])
		h.Write(raw)
	}
	return h.Sum(nil)
}

// stagePage canonicalizes a page's records into c's arena.
func (c *canonicalizer) stagePage(u *Unit, part string, raws []json.RawMessage) (*stagedPage, error) {
	p := &stagedPage{raws: raws, recs: make([]store.StagedRecord, 0, len(raws))}
	index := make(map[string]int, len(raws))
	// A record's canonical bytes are at most a few bytes longer than its
	// raw ones, but for escapes.
	size := 0
	for _, raw := range raws {
		size += len(raw)
	}
	if size += size / 8; cap(c.arena) < size {
		c.arena = make([]byte, 0, size)
	}
	c.arena = c.arena[:0]
	for _, raw := range raws {
		r, err := c.stage(u, part, raw)
		if err != nil {
			return nil, err
		}
		if t := r.UpdatedAt; t != nil {
			if p.oldest == nil || t.Before(*p.oldest) {
				p.oldest = t
			}
			if p.newest == nil || t.After(*p.newest) {
				p.newest = t
			}
		}
		// One statement cannot update a row twice: the last copy wins.
		if i, ok := index[r.ID]; ok {
			p.recs[i] = r
			continue
		}
		index[r.ID] = len(p.recs)
		p.recs = append(p.recs, r)
	}
	p.ids = make([]string, len(p.recs))
	for i := range p.recs {
		p.ids[i] = p.recs[i].ID
	}
	return p, nil
}

// writePage merges a staged page and records its counts and seen ids (with
// its print, when it has one), in the page's transaction; ps, when sorted,
// is the page's records already told apart (countIfUnchanged's).
func (s *Syncer) writePage(ctx context.Context, tx pgx.Tx, u *Unit, part string, p *stagedPage, print []byte, ps pageSort) error {
	e := u.Entity
	// Records whose stored doc_hash is theirs are unchanged: they are
	// neither copied nor merged (the merge would leave them as they are),
	// only counted and marked seen. New records are copied straight into
	// the table when Go computed their typed columns; the others (changed
	// ones) are staged and merged.
	var err error
	if !ps.sorted {
		if ps, err = s.sortPage(ctx, tx, u, p, print); err != nil {
			return err
		}
	}
	fresh, changed, unchanged := ps.fresh, ps.changed, ps.unchanged
	var top []topMember
	direct := true
	for i := range fresh {
		if !direct {
			break
		}
		fresh[i].Typed, direct = typedValuesInto(e, part, fresh[i].Raw, &top)
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
		if err := store.PageProgress(ctx, tx, u.Key(), int64(len(p.raws)), mc, p.newest); err != nil {
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
// (unchanged reports it). An empty page needs no statement, and a first
// load's page only its mark.
func (s *Syncer) sortPage(ctx context.Context, tx pgx.Tx, u *Unit, p *stagedPage, print []byte) (pageSort, error) {
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
		return pageSort{fresh: p.recs, sorted: true}, nil
	}
	newIdx, changedIdx, err := store.ChangedRecords(ctx, tx, e.Name, e.HasAccount(), u.AccountID, p.ids, p.hashes(), seen, p.unchangedProgress(u))
	if err != nil {
		return pageSort{}, fmt.Errorf("storing %s: %w", e.Name, err)
	}
	return p.sortOf(newIdx, changedIdx), nil
}

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
	if !u.Inline && !u.sweeps() {
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
		// A unit that trusted prints and has no parents to sweep by: the
		// check of its pages, and their trust when none changed, travel
		// with the lock (see sweep).
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
// prints with its lock: a unit that trusted prints and has no parents to
// sweep by.
func (u *Unit) trustsWithLock() bool {
	return u.printsFrom != 0 && u.Complete() && u.Entity.Parents == nil
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
	return u.EndsWithLastPage && c.Done && u.lastPart && !u.Inline && u.sweeps() && u.trustsWithLock()
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

// sweeps says whether u's end may have rows to tombstone (see sweep):
// children of parents stored deleted, or what its listing did not return.
func (u *Unit) sweeps() bool {
	return u.Entity.Parents != nil || u.sweepsUnlisted()
}

// sweepsUnlisted says whether u's end tombstones what its listing did not
// return: a complete listing stored page by page (a streamed one made its
// tombstones with its records).
func (u *Unit) sweepsUnlisted() bool {
	return u.Complete() && !u.Entity.Streamed()
}

// sweep tombstones, in Finish's transaction, the rows of the unit's account
// that its listing leaves out: children of parents stored deleted, and
// for a complete listing what it did not return. A complete unit of a
// printed entity keeps its pages' prints (see store.ClaimPrints); one that
// found every kept page again and stored none has nothing to tombstone and
// skips the sweep. trust is the check Finish queued with its lock, if it
// did: when nothing changed, the prints are trusted already.
func (s *Syncer) sweep(ctx context.Context, tx pgx.Tx, u *Unit, trust *store.PrintsTrust) error {
	e := u.Entity
	var parentSwept int64
	if e.Parents != nil {
		// Whether or not the listing was complete: the children of
		// parents stored deleted were not asked for.
		tag, err := tx.Exec(ctx, e.ParentSweepSQL(), store.PlanEachCall(u.AccountID)...)
		if err != nil {
			return fmt.Errorf("sweeping %s of deleted %s: %w", e.Name, e.Parents.Entity, err)
		}
		if parentSwept = tag.RowsAffected(); parentSwept > 0 {
			if err := store.AddSwept(ctx, tx, u.Key(), parentSwept); err != nil {
				return err
			}
		}
	}
	if !u.sweepsUnlisted() {
		return nil
	}
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
	// Rows tombstoned as children of deleted parents may be on the pages
	// kept: the next unit reads every page again.
	if parentSwept > 0 {
		return nil
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
