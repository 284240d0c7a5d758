package ads

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"sort"

	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
)

// Paged reference lists are always read whole (Complete), and one of them,
// the location list, holds tens of thousands of entries. They are stored in
// one pass: every page of every part streams into one COPY to the staging
// table, a page fetched only when the previous one's rows are consumed, and
// the same transaction then merges the changed rows and tombstones the rows
// the listing no longer holds (store.MergeStaged). Memory is one page; a
// crash or failure leaves the previous complete list as it was; the unit's
// counts are recorded once, for all its pages, in that transaction.

// Streamed says the entity takes the one-pass path: a paged reference list.
func (e *Entity) Streamed() bool { return e.Reference && !e.NotPaged && !e.Single }

// syncStreamed stores the unit's whole listing in one transaction. A
// resumed unit whose transaction committed (its checkpoint says so) has
// nothing left to do.
func (s *Syncer) syncStreamed(ctx context.Context, u *Unit, resume Cursor, cp Checkpoint) error {
	e := u.Entity
	if resume.Started {
		return nil
	}
	parts, err := s.parts(ctx, u)
	if err != nil {
		return err
	}
	src := &pageSource{ctx: ctx, s: s, u: u, parts: parts, canon: new(canonicalizer)}
	defer src.stop()
	return pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		if _, err := store.StageAll(ctx, tx, src); err != nil {
			if src.err != nil {
				return fmt.Errorf("%s %s: %w", e.Name, describe(u, src.part), src.err)
			}
			return fmt.Errorf("storing %s: %w", e.Name, err)
		}
		mc, swept, err := store.MergeStaged(ctx, tx, e.Name, e.MergeSQL())
		if err != nil {
			return fmt.Errorf("storing %s: %w", e.Name, err)
		}
		mc.Deleted += swept
		if err := store.PagesProgress(ctx, tx, u.Key(), src.pages, src.fetched, mc, nil); err != nil {
			return err
		}
		if cp != nil {
			last := ""
			if len(parts) > 0 {
				last = parts[len(parts)-1]
			}
			return cp(ctx, tx, Cursor{Part: last, Done: true, Started: true})
		}
		return nil
	})
}

// pageSource is a pgx.CopyFromSource over every page of a unit's parts: it
// holds one page's staged rows and fetches the next page when they are
// consumed.
type pageSource struct {
	ctx   context.Context
	s     *Syncer
	u     *Unit
	parts []string
	canon *canonicalizer

	part    string // the part being read
	next    func() (*api.Page[json.RawMessage], error, bool)
	stopFn  func()
	rows    []store.StagedRecord
	i       int
	row     []any
	err     error
	pages   int64
	fetched int64
}

// Next moves to the next row, loading pages (and parts) as needed.
func (p *pageSource) Next() bool {
	p.i++
	for p.i >= len(p.rows) {
		if !p.load() {
			return false
		}
	}
	r := &p.rows[p.i]
	p.row = append(p.row[:0], r.AccountID, r.ID, r.ParentID, json.RawMessage(r.Raw), r.CreatedAt, r.UpdatedAt, r.Deleted, r.DocHash)
	return true
}

// load replaces the held rows with the next page's; false at the end or on
// an error (kept in err).
func (p *pageSource) load() bool {
	p.rows, p.i = p.rows[:0], 0
	for {
		if p.next == nil {
			if len(p.parts) == 0 {
				return false
			}
			p.part, p.parts = p.parts[0], p.parts[1:]
			// Reference lists are read at the endpoint's maximum page size
			// whatever PageSize says: a smaller page would take the location
			// list's tens of thousands of entries past the targeting
			// category's budget (400 requests per 15 minutes).
			lr := ListRequest(p.u, p.part, 0)
			p.next, p.stopFn = iter.Pull2(api.Pages[json.RawMessage](p.ctx, p.s.client(p.u), lr))
		}
		page, err, ok := p.next()
		if !ok {
			p.stop()
			continue
		}
		if err != nil {
			p.err = err
			return false
		}
		p.pages++
		p.fetched += int64(len(page.Raw))
		if err := p.stage(page.Raw); err != nil {
			p.err = err
			return false
		}
		if h := p.s.PageHook; h != nil {
			h(p.u.Entity.Name, len(p.rows))
		}
		if len(p.rows) > 0 {
			return true
		}
	}
}

// stage canonicalizes a page's records into rows, reusing the buffers of
// the previous page (whose rows the copy has consumed).
func (p *pageSource) stage(raws []json.RawMessage) error {
	size := 0
	for _, raw := range raws {
		size += len(raw)
	}
	if size += size / 8; cap(p.canon.arena) < size {
		p.canon.arena = make([]byte, 0, size)
	}
	p.canon.arena = p.canon.arena[:0]
	for _, raw := range raws {
		r, err := p.canon.stage(p.u, p.part, raw)
		if err != nil {
			return err
		}
		p.rows = append(p.rows, r)
	}
	return nil
}

func (p *pageSource) stop() {
	if p.stopFn != nil {
		p.stopFn()
	}
	p.next, p.stopFn = nil, nil
}

// Values is the current row.
func (p *pageSource) Values() ([]any, error) { return p.row, nil }

// Err is the error that ended the rows.
func (p *pageSource) Err() error { return p.err }

// partsFrom lists the unit's parts from its PartsFrom list: the distinct
// values of its field (a string, or a number as written), sorted.
func (s *Syncer) partsFrom(ctx context.Context, u *Unit) ([]string, error) {
	src := u.Entity.PartsFrom
	q := url.Values{}
	for k, v := range src.Query {
		q.Set(k, v)
	}
	var raws []json.RawMessage
	if src.NotPaged {
		resp, err := s.client(u).Do(ctx, &api.Request{Method: "GET", Base: api.BaseAds, Path: src.Path, Endpoint: src.Endpoint,
			Query: q, Auth: api.AuthUser, Idempotent: true})
		if err != nil {
			return nil, fmt.Errorf("%s: listing its parts: %w", u.Entity.Name, err)
		}
		env, err := api.Decode[api.List[json.RawMessage]](src.Endpoint, resp.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: listing its parts: %w", u.Entity.Name, err)
		}
		raws = env.Data
	} else {
		lr := api.ListRequest{Base: api.BaseAds, Path: src.Path, Endpoint: src.Endpoint, Query: q}
		for page, err := range api.Pages[json.RawMessage](ctx, s.client(u), lr) {
			if err != nil {
				return nil, fmt.Errorf("%s: listing its parts: %w", u.Entity.Name, err)
			}
			raws = append(raws, page.Raw...)
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, raw := range raws {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, fmt.Errorf("%s: listing its parts: a record is not a JSON object: %w", u.Entity.Name, err)
		}
		v, ok := scalarJSON(rec[src.Field])
		if !ok || v == "" {
			return nil, fmt.Errorf("%s: listing its parts: a record of %s has no %s", u.Entity.Name, src.Endpoint, src.Field)
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out, nil
}
