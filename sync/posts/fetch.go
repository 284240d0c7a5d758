package posts

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// idPattern is the form the lookup accepts for a post id.
var idPattern = regexp.MustCompile(`^[0-9]{1,19}$`)

// Fetcher hydrates posts.
type Fetcher struct {
	Client *api.Client
	Pool   *pgxpool.Pool
	// Now is the clock that dates metrics rows (time.Now when nil).
	Now func() time.Time
}

// Summary counts a fetch.
type Summary struct {
	// Requested is the number of distinct ids asked for.
	Requested int `json:"requested"`
	Found     int `json:"found"`
	NotFound  int `json:"not_found"`
	// Media and Users count the distinct includes stored.
	Media    int `json:"media"`
	Users    int `json:"users"`
	Requests int `json:"requests"`
	// NotFoundIDs lists the ids the service could not find.
	NotFoundIDs []string `json:"not_found_ids,omitempty"`
}

// CheckIDs returns ids without duplicates, in their first order, or an
// error naming the first id the lookup would refuse.
func CheckIDs(ids []string) ([]string, error) {
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		if !idPattern.MatchString(id) {
			return nil, fmt.Errorf("post id %q (position %d): want 1 to 19 digits", id, i+1)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// Fetch looks ids up MaxIDs at a time under the bearer token and stores each
// answer in its own transaction, so a failure keeps what earlier requests
// stored. Ids the service cannot find are recorded as not found and the run
// goes on. A rate-limited request fails with the client's *api.RetryAtError.
func (f *Fetcher) Fetch(ctx context.Context, ids []string) (Summary, error) {
	ids, err := CheckIDs(ids)
	if err != nil {
		return Summary{}, err
	}
	now := f.Now
	if now == nil {
		now = time.Now
	}
	sum := Summary{Requested: len(ids)}
	media, users := map[string]bool{}, map[string]bool{}
	for start := 0; start < len(ids); start += MaxIDs {
		chunk := ids[start:min(start+MaxIDs, len(ids))]
		resp, err := f.Client.Do(ctx, &api.Request{Method: "GET", Base: api.BaseAPI, Path: path, Endpoint: Endpoint,
			Query: Query(chunk), Auth: api.AuthBearer})
		if err != nil {
			return sum, fmt.Errorf("looking up posts %d-%d of %d: %w", start+1, start+len(chunk), len(ids), err)
		}
		sum.Requests++
		body, err := api.Decode[Response](Endpoint, resp.Body)
		if err != nil {
			return sum, err
		}
		var st Stored
		err = pgx.BeginFunc(ctx, f.Pool, func(tx pgx.Tx) error {
			st, err = StoreResponse(ctx, tx, chunk, body, now())
			return err
		})
		if err != nil {
			return sum, err
		}
		sum.Found += len(st.Found)
		sum.NotFound += len(st.NotFound)
		sum.NotFoundIDs = append(sum.NotFoundIDs, st.NotFound...)
		for _, k := range st.Media {
			media[k] = true
		}
		for _, u := range st.Users {
			users[u] = true
		}
	}
	sum.Media, sum.Users = len(media), len(users)
	return sum, nil
}
