package ads

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
)

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

// describe names a unit's part for an error: its account and the part
// (a post type, a parent, or a chunk of parent ids by its ends and size).
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
// parent ids of the unit's account that it asks for (see ParentsFrom),
// sorted bytewise and cut into chunks, each joined with commas. Since a
// comma sorts before every id character, the chunks are sorted as the ids
// are, as Sync's resume needs.
func (s *Syncer) parentChunks(ctx context.Context, u *Unit) ([]string, error) {
	p := u.Entity.Parents
	// A complete unit asks for every parent; an incremental one (stop set)
	// for the live ones and those deleted since it stops.
	var stop *time.Time
	if t, ok := u.stopAt(); ok {
		stop = &t
	}
	rows, err := s.Pool.Query(ctx, fmt.Sprintf(`SELECT id FROM %s
WHERE account_id = $1 AND ($2::timestamptz IS NULL OR NOT deleted OR api_updated_at >= $2)`,
		pgx.Identifier{p.Entity}.Sanitize()), u.AccountID, stop)
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

// fill puts the account and parent ids, escaped, into an endpoint's path.
func fill(path, account, parent string) string {
	return strings.NewReplacer("{account_id}", url.PathEscape(account), "{parent_id}", url.PathEscape(parent)).Replace(path)
}

// query is the list query of a unit's part: the entity's own parameters,
// the part, deleted records, and the order the listing needs.
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

// syncPart lists one part of the unit from the cursor next (a single
// record or an unpaged list in one request), storing each page with its
// cursor, and stops an incremental listing at the bookmark.
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
