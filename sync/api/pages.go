package api

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxIDsPerFilter is the most ids one *_ids filter takes.
const MaxIDsPerFilter = 200

// CountLimits returns the default and maximum page size of a list endpoint:
// 100 and 200 for the cards, scheduled posts and draft posts lists, 20 and
// 50 for the media library, 50 and 50 for TV shows, 200 and 1000 elsewhere.
func CountLimits(endpoint string) (def, max int) {
	for _, l := range []struct {
		suffix   string
		def, max int
	}{
		{"/accounts/{account_id}/cards", 100, 200},
		{"/accounts/{account_id}/scheduled_posts", 100, 200},
		{"/accounts/{account_id}/draft_posts", 100, 200},
		{"/accounts/{account_id}/media_library", 20, 50},
	} {
		if strings.HasSuffix(endpoint, l.suffix) {
			return l.def, l.max
		}
	}
	if endpoint == "GET /12/targeting_criteria/tv_shows" {
		return 50, 50
	}
	return 200, 1000
}

// ChunkIDs splits ids into filters of at most size ids each.
func ChunkIDs(ids []string, size int) [][]string {
	if size <= 0 {
		size = MaxIDsPerFilter
	}
	var out [][]string
	for len(ids) > 0 {
		n := min(size, len(ids))
		out = append(out, ids[:n:n])
		ids = ids[n:]
	}
	return out
}

// ListRequest describes a paged list call.
type ListRequest struct {
	Base     Base
	Path     string
	Endpoint string // rate-limit and count-limit key, e.g. "GET /12/accounts/{account_id}/campaigns"
	Query    url.Values
	// Count is the page size; 0 means the endpoint's maximum (fewest requests).
	Count int
	// Cursor resumes paging from a saved next_cursor.
	Cursor string
	// WithTotalCount asks for total_count on the first page. It is
	// exclusive with Cursor and counts against a much lower rate limit.
	WithTotalCount bool
	AccountID      string
	// UncheckedRecords splits each page with SplitRawList: the records
	// are not validated, the caller validates each one it reads (when T is
	// not json.RawMessage, decoding the records validates them).
	UncheckedRecords bool
	// ReuseBody reads each page into the buffer of a page already used
	// (see Request.ReuseBody): a page's Raw records are valid only until
	// the loop body that received it returns.
	ReuseBody bool
}

// ErrTotalCountWithCursor is returned for a ListRequest asking for both.
var ErrTotalCountWithCursor = errors.New("with_total_count cannot be combined with cursor")

// Page is one page of a list: its records (raw and decoded) and the cursor
// of the next page ("" at the end).
type Page[T any] struct {
	Items      []T
	Raw        []json.RawMessage
	NextCursor string
	TotalCount *int64
	// Date is the service's clock when it answered the page (its Date
	// header, whole seconds), zero when the answer had none.
	Date time.Time
}

// Pages iterates the pages of a list, following next_cursor. Save
// Page.NextCursor to resume after a crash with ListRequest.Cursor.
func Pages[T any](ctx context.Context, c *Client, lr ListRequest) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		if lr.WithTotalCount && lr.Cursor != "" {
			yield(nil, ErrTotalCountWithCursor)
			return
		}
		_, maxCount := CountLimits(lr.Endpoint)
		count := lr.Count
		if count == 0 {
			count = maxCount
		}
		if count < 1 || count > maxCount {
			yield(nil, errors.New(lr.Endpoint+": count "+strconv.Itoa(count)+" out of range 1-"+strconv.Itoa(maxCount)))
			return
		}
		cursor := lr.Cursor
		first := true
		for {
			q := url.Values{}
			for k, v := range lr.Query {
				q[k] = v
			}
			q.Set("count", strconv.Itoa(count))
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			if first && lr.WithTotalCount {
				q.Set("with_total_count", "true")
			}
			resp, err := c.Do(ctx, &Request{Method: "GET", Base: lr.Base, Path: lr.Path, Endpoint: lr.Endpoint,
				Query: q, Auth: AuthUser, Idempotent: true, AccountID: lr.AccountID, ReuseBody: lr.ReuseBody})
			if err != nil {
				yield(nil, err)
				return
			}
			decode := DecodeRawList
			if _, raw := any((*T)(nil)).(*json.RawMessage); !raw || lr.UncheckedRecords {
				// Records decoded into T are checked by that decode: only
				// raw records are validated with the page, and only when
				// asked.
				decode = SplitRawList
			}
			env, err := decode(lr.Endpoint, resp.Body)
			if err != nil {
				yield(nil, err)
				return
			}
			page := &Page[T]{Raw: env.Data, TotalCount: env.TotalCount}
			if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
				page.Date = d.UTC()
			}
			if env.NextCursor != nil {
				page.NextCursor = *env.NextCursor
			}
			if raws, ok := any(env.Data).([]T); ok {
				// T is json.RawMessage: the records are the raw ones, decoded
				// (and validated, unless UncheckedRecords) once with the page.
				page.Items = raws
			} else if page.Items, err = decodeItems[T](env.Data); err != nil {
				yield(nil, errors.New(lr.Endpoint+": decoding a record: "+err.Error()))
				return
			}
			more := yield(page, nil)
			// The page's records are the caller's only within its loop
			// body: with ReuseBody, the next answer is read into their bytes.
			resp.Release()
			if !more {
				return
			}
			if page.NextCursor == "" || page.NextCursor == cursor {
				return
			}
			cursor, first = page.NextCursor, false
		}
	}
}

func decodeItems[T any](raws []json.RawMessage) ([]T, error) {
	items := make([]T, 0, len(raws))
	for _, raw := range raws {
		var item T
		if err := json.Unmarshal(raw, &item); err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// PagesByIDs iterates the pages of a list filtered by many ids: the ids are
// split into filters of at most 200 (param=a,b,...) and each filter is paged.
func PagesByIDs[T any](ctx context.Context, c *Client, lr ListRequest, param string, ids []string) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		for _, chunk := range ChunkIDs(ids, MaxIDsPerFilter) {
			sub := lr
			sub.Query = url.Values{}
			for k, v := range lr.Query {
				sub.Query[k] = v
			}
			sub.Query.Set(param, strings.Join(chunk, ","))
			for page, err := range Pages[T](ctx, c, sub) {
				if !yield(page, err) || err != nil {
					return
				}
			}
		}
	}
}
