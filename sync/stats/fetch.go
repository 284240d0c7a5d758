package stats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/api"
)

// Rate-limit keys of the analytics endpoints.
const (
	EndpointAccounts = "GET /12/accounts"
	EndpointActive   = "GET /12/stats/accounts/{account_id}/active_entities"
	EndpointSync     = "GET /12/stats/accounts/{account_id}"
)

// timeLayout is the ISO 8601 form of start_time and end_time.
const timeLayout = "2006-01-02T15:04:05Z"

// Accounts returns the records of ids (every account of the user when ids
// is empty).
func Accounts(ctx context.Context, c *api.Client, ids []string) ([]Account, error) {
	lr := api.ListRequest{Base: api.BaseAds, Path: "/12/accounts", Endpoint: EndpointAccounts, Query: url.Values{}}
	var recs []accountRecord
	if len(ids) == 0 {
		for page, err := range api.Pages[accountRecord](ctx, c, lr) {
			if err != nil {
				return nil, err
			}
			recs = append(recs, page.Items...)
		}
	} else {
		for page, err := range api.PagesByIDs[accountRecord](ctx, c, lr, "account_ids", ids) {
			if err != nil {
				return nil, err
			}
			recs = append(recs, page.Items...)
		}
	}
	out := make([]Account, 0, len(recs))
	for _, r := range recs {
		a, err := r.account()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Active is one entry of the active entities answer.
type Active struct {
	EntityID   string    `json:"entity_id"`
	Start      time.Time `json:"activity_start_time"`
	End        time.Time `json:"activity_end_time"`
	Placements []string  `json:"placements"`
}

// ActiveEntities asks which entities of type entity may have changed in
// [start, end), in requests of at most ActiveMaxDays.
func ActiveEntities(ctx context.Context, c *api.Client, accountID, entity string, start, end time.Time) ([]Active, int, error) {
	byID := map[string]*Active{}
	var order []string
	requests := 0
	for _, s := range (Span{Start: start, End: end}).split(ActiveMaxDays) {
		q := url.Values{}
		q.Set("entity", entity)
		q.Set("start_time", s.Start.UTC().Format(timeLayout))
		q.Set("end_time", s.End.UTC().Format(timeLayout))
		resp, err := c.Do(ctx, &api.Request{Method: "GET", Base: api.BaseAds, Endpoint: EndpointActive,
			Path: "/12/stats/accounts/" + url.PathEscape(accountID) + "/active_entities", Query: q, Auth: api.AuthUser, AccountID: accountID})
		requests++
		if err != nil {
			return nil, requests, fmt.Errorf("account %s: active %s: %w", accountID, entity, err)
		}
		env, err := api.Decode[api.Single[[]Active]](EndpointActive, resp.Body)
		if err != nil {
			return nil, requests, err
		}
		for _, a := range env.Data {
			if prev := byID[a.EntityID]; prev != nil {
				prev.Start, prev.End = minTime(prev.Start, a.Start), maxTime(prev.End, a.End)
				for _, p := range a.Placements {
					if !slices.Contains(prev.Placements, p) {
						prev.Placements = append(prev.Placements, p)
					}
				}
				continue
			}
			byID[a.EntityID] = &a
			order = append(order, a.EntityID)
		}
	}
	out := make([]Active, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	return out, requests, nil
}

// Query is one stats request: ids of one entity type on one placement over
// a span.
type Query struct {
	Account     Account
	Entity      string
	IDs         []string
	Placement   string
	Granularity string
	Groups      []string
	Span        Span
	// Segmentation is the segmentation_type ("" for none), TYPE:VALUE for
	// types that need a country or platform; rows keep it as segment_type.
	Segmentation string
}

// values are the request's parameters; now fixes the current offset of
// DAY boundaries.
func (q Query) values(now time.Time) url.Values {
	start, end := q.Account.requestTimes(q.Granularity, q.Span, now)
	v := url.Values{}
	v.Set("entity", q.Entity)
	v.Set("entity_ids", strings.Join(q.IDs, ","))
	v.Set("start_time", start.UTC().Format(timeLayout))
	v.Set("end_time", end.UTC().Format(timeLayout))
	v.Set("granularity", q.Granularity)
	v.Set("placement", q.Placement)
	v.Set("metric_groups", strings.Join(q.Groups, ","))
	if q.Segmentation != "" {
		typ, val, _ := strings.Cut(q.Segmentation, ":")
		v.Set("segmentation_type", typ)
		if val != "" {
			v.Set(needsValue[typ], val)
		}
	}
	return v
}

// FetchSync asks the synchronous endpoint (span at most SyncMaxDays, no
// segmentation) and decodes the answer into rows.
func FetchSync(ctx context.Context, c *api.Client, q Query, now time.Time) ([]Row, error) {
	asked := q.values(now)
	resp, err := c.Do(ctx, &api.Request{Method: "GET", Base: api.BaseAds, Endpoint: EndpointSync,
		Path: "/12/stats/accounts/" + url.PathEscape(q.Account.ID), Query: asked, Auth: api.AuthUser, AccountID: q.Account.ID})
	if err != nil {
		return nil, fmt.Errorf("account %s: stats of %s %s: %w", q.Account.ID, q.Entity, strings.Join(q.IDs, ","), err)
	}
	rows, err := Decode(q, asked, resp.Body)
	if err != nil {
		return nil, fmt.Errorf("account %s: stats of %s %s: %w", q.Account.ID, q.Entity, strings.Join(q.IDs, ","), err)
	}
	return rows, nil
}

// response is the stats answer, also an asynchronous job's file.
type response struct {
	Request *struct {
		Params *jobParams `json:"params"`
	} `json:"request"`
	TimeSeriesLength int `json:"time_series_length"`
	Data             []struct {
		ID     string `json:"id"`
		IDData []struct {
			Segment *struct {
				Name  string `json:"segment_name"`
				Value string `json:"segment_value"`
			} `json:"segment"`
			Metrics map[string]json.RawMessage `json:"metrics"`
		} `json:"id_data"`
	} `json:"data"`
}

// Row is one stored bucket.
type Row struct {
	EntityID     string
	SegmentName  string
	SegmentValue string
	Date         time.Time  // local date
	Start        *time.Time // UTC start, nil when unknown
	// Values are the metric columns (Columns order); nil is null.
	Values []*int64
}

// Decode turns a stats answer to q (sent with the values asked) into rows:
// one per id, segment and bucket with any non-zero value. An answer that is
// not the one asked for is a *MismatchError and gives no row: its
// request.params (when it echoes them) must be the request's, and its ids
// among those asked. Such an answer is an error rather than rows to filter:
// keeping the asked ids' rows of it would trust the very answer that shows
// it belongs to another request (its numbers may be another entity type's,
// placement's or span's), and dropping the others silently would hide
// that the service answered something else.
func Decode(q Query, asked url.Values, body []byte) ([]Row, error) {
	r, err := parseAnswer(body)
	if err != nil {
		return nil, fmt.Errorf("%s: decoding: %w", EndpointSync, err)
	}
	if r.params != nil {
		if err := checkParams("the stats answer", q.Account.ID, asked, *r.params); err != nil {
			return nil, err
		}
	}
	for _, d := range r.data {
		if !slices.Contains(q.IDs, d.id) {
			return nil, &MismatchError{What: "the stats answer", Asked: describeValues(q.Account.ID, asked),
				Got: fmt.Sprintf("stats of %s id %s", q.Entity, d.id), Fields: []string{"entity_ids"}}
		}
	}
	n := r.length
	var out []Row
	for _, d := range r.data {
		for _, idd := range d.idData {
			series := make([][]*int64, len(Columns)) // per column, per bucket
			for _, m := range idd.metrics {
				if err := decodeMetric(m.name, m.raw, series); err != nil {
					return nil, fmt.Errorf("%s: id %s: %w", EndpointSync, d.id, err)
				}
			}
			for i := 0; i < n; i++ {
				row := Row{EntityID: d.id, Values: make([]*int64, len(Columns))}
				if idd.segment {
					row.SegmentName, row.SegmentValue = idd.name, idd.value
				}
				some := false
				for c, xs := range series {
					if i < len(xs) && xs[i] != nil {
						row.Values[c] = xs[i]
						some = some || *xs[i] != 0
					}
				}
				if !some {
					continue
				}
				row.Date, row.Start = q.Account.bucket(q.Granularity, q.Span, i)
				out = append(out, row)
			}
		}
	}
	return out, nil
}

// decodeMetric files one metric's arrays under its columns. A metric the
// catalogue does not know is skipped (the service may add some).
func decodeMetric(name string, raw json.RawMessage, series [][]*int64) error {
	if string(raw) == "null" {
		return nil
	}
	if c := columnIndex(name, ""); c >= 0 {
		return decodeSeries(raw, &series[c])
	}
	members, values, ok := scanMembers(raw)
	if !ok {
		var obj map[string][]*int64
		if err := json.Unmarshal(raw, &obj); err != nil {
			if columnIndex(name, webConversionMembers[0]) < 0 && columnIndex(name, mobileConversionMembers[0]) < 0 {
				return nil // unknown metric of another shape
			}
			return fmt.Errorf("metric %s: %w", name, err)
		}
		members, values = members[:0], values[:0]
		for mem, xs := range obj {
			members, values = append(members, mem), append(values, xs)
		}
	}
	for k, mem := range members {
		if c := columnIndex(name, mem); c >= 0 {
			series[c] = values[k]
		}
	}
	return nil
}

// decodeSeries decodes a metric's series, a JSON array of integers and
// nulls, as json.Unmarshal into a []*int64 does. Canonical integers, null
// and spaces are read here with one allocation for the values; anything
// else (a fraction, an exponent, a leading zero, an integer past int64, a
// malformed array) is left to json.Unmarshal, whose answer or error it
// then is.
func decodeSeries(raw []byte, into *[]*int64) error {
	if xs, ok := scanSeries(raw); ok {
		*into = xs
		return nil
	}
	return json.Unmarshal(raw, into)
}

// scanSeries is decodeSeries' fast path: ok is false for anything it does
// not read exactly as encoding/json would.
func scanSeries(raw []byte) (xs []*int64, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	vals := make([]int64, 0, bytes.Count(raw, []byte(","))+1)
	xs = make([]*int64, 0, cap(vals))
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return xs, skipSpace(raw, i+1) == len(raw)
	}
	for {
		switch {
		case bytes.HasPrefix(raw[i:], []byte("null")):
			xs = append(xs, nil)
			i += 4
		default:
			j := i
			if j < len(raw) && raw[j] == '-' {
				j++
			}
			k := j
			for k < len(raw) && raw[k] >= '0' && raw[k] <= '9' {
				k++
			}
			if k == j || (raw[j] == '0' && k-j > 1) {
				return nil, false
			}
			v, err := strconv.ParseInt(string(raw[i:k]), 10, 64)
			if err != nil {
				return nil, false
			}
			vals = append(vals, v)
			xs = append(xs, &vals[len(vals)-1])
			i = k
		}
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return xs, skipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
}

// skipSpace is the index of the first byte of raw at or after i that is
// not JSON whitespace.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}
