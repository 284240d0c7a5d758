package insights

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/api"
)

// Endpoint is the rate-limit key and path of the keyword insights lookup.
const (
	Endpoint = "GET /12/insights/keywords/search"
	path     = "/12/insights/keywords/search"
)

// timeLayout is the ISO 8601 form the service accepts for start_time and
// end_time.
const timeLayout = "2006-01-02T15:04:05Z"

// Bucket is one value of a volume series.
type Bucket struct {
	Start  time.Time
	Volume int64
}

// Result is one request's answer for one group and window.
type Result struct {
	Group           Group
	Window          Window
	RelatedKeywords []string
	Buckets         []Bucket
	// Raw is the envelope's data object as the service sent it.
	Raw json.RawMessage
}

// searchData is the data object of the answer.
type searchData struct {
	RelatedKeywords []string `json:"related_keywords"`
	PostVolume      []int64  `json:"post_volume"`
}

// Fetch asks for one group of set over window w. Bucket i starts at
// w.Start + i*step: w.Start is aligned to the granularity, as the service's
// buckets are.
func Fetch(ctx context.Context, c *api.Client, set KeywordSet, g Group, w Window) (Result, error) {
	q := url.Values{}
	q.Set("granularity", set.Granularity)
	q.Set("keywords", strings.Join(g.Keywords, ","))
	if len(g.NegativeKeywords) > 0 {
		q.Set("negative_keywords", strings.Join(g.NegativeKeywords, ","))
	}
	q.Set("start_time", w.Start.UTC().Format(timeLayout))
	q.Set("end_time", w.End.UTC().Format(timeLayout))
	if set.Location != "" {
		q.Set("location", set.Location)
	}
	resp, err := c.Do(ctx, &api.Request{Method: "GET", Base: api.BaseAds, Path: path, Endpoint: Endpoint, Query: q, Auth: api.AuthUser})
	if err != nil {
		return Result{}, fmt.Errorf("keyword set %q, window %s: %w", set.Name, w.Start.Format(time.RFC3339), err)
	}
	env, err := api.Decode[api.Single[json.RawMessage]](Endpoint, resp.Body)
	if err != nil {
		return Result{}, err
	}
	var d searchData
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return Result{}, fmt.Errorf("%s: decoding data: %w", Endpoint, err)
	}
	step := set.Step()
	r := Result{Group: g, Window: w, RelatedKeywords: d.RelatedKeywords, Raw: env.Data}
	if r.RelatedKeywords == nil {
		r.RelatedKeywords = []string{}
	}
	for i, v := range d.PostVolume {
		r.Buckets = append(r.Buckets, Bucket{Start: w.Start.Add(time.Duration(i) * step), Volume: v})
	}
	return r, nil
}
