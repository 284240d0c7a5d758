package ads

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/adsync/adsync/sync/store"
)

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
	r.CreatedAt, r.UpdatedAt = c.stampOf(c.createdAt), c.stampOf(c.updatedAt)
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

// stampOf is an RFC 3339 time in UTC (nil when s is not one), kept in the page's times, which stagePage sized for
// two a record: no allocation of its own.
func (c *canonicalizer) stampOf(s string) *time.Time {
	t, ok := parseStamp(s)
	if !ok {
		return nil
	}
	if len(c.times) == cap(c.times) {
		return &t
	}
	c.times = append(c.times, t)
	return &c.times[len(c.times)-1]
}

// parseStamp is time.Parse(time.RFC3339, s) in UTC. The form the service
// writes, "2006-01-02T15:04:05Z", is read without time.Parse (a tenth of a
// fresh load's staging in the client's profile); any other goes through it.
func parseStamp(s string) (time.Time, bool) {
	if len(s) == len("2006-01-02T15:04:05Z") && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[19] == 'Z' {
		y, ok1 := decimal(s[0:4])
		mo, ok2 := decimal(s[5:7])
		d, ok3 := decimal(s[8:10])
		h, ok4 := decimal(s[11:13])
		mi, ok5 := decimal(s[14:16])
		sec, ok6 := decimal(s[17:19])
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && mo >= 1 && mo <= 12 && h < 24 && mi < 60 && sec < 60 {
			t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC)
			if t.Day() == d { // else a day the month does not have: time.Parse refuses it
				return t, true
			}
		}
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// decimal is the number s spells in decimal digits, false when s holds a non-digit.
func decimal(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// canonicalizers are storePage's, kept from page to page.
var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

// stagedPage is a page's records read and canonicalized, ready to store.
type stagedPage struct {
	raws []json.RawMessage
	// recs are the distinct records (the last copy of a repeated id wins),
	// ids their ids.
	recs []store.StagedRecord
	// tops are the members of each of recs (see typedValuesInto).
	tops           [][]topMember
	ids            []string
	oldest, newest *time.Time
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
	p := &stagedPage{raws: raws, recs: make([]store.StagedRecord, 0, len(raws)), tops: make([][]topMember, 0, len(raws))}
	var tops []topMember // the records' members, one array for the page
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
	// The page's records point into times: a new one each page.
	c.times = make([]time.Time, 0, 2*len(raws))
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
		if tops == nil {
			// Records of a page have about the same members.
			tops = make([]topMember, 0, (len(c.top)+1)*len(raws)*9/8)
		}
		n := len(tops)
		tops = append(tops, c.top...)
		top := tops[n:len(tops):len(tops)]
		// One statement cannot update a row twice: the last copy wins.
		if i, ok := index[r.ID]; ok {
			p.recs[i], p.tops[i] = r, top
			continue
		}
		index[r.ID] = len(p.recs)
		p.recs = append(p.recs, r)
		p.tops = append(p.tops, top)
	}
	p.ids = make([]string, len(p.recs))
	for i := range p.recs {
		p.ids[i] = p.recs[i].ID
	}
	return p, nil
}
