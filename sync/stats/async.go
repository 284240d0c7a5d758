package stats

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/api"
)

// Endpoints of asynchronous analytics jobs.
const (
	EndpointJobCreate = "POST /12/stats/jobs/accounts/{account_id}"
	EndpointJobList   = "GET /12/stats/jobs/accounts/{account_id}"
)

// Limits of asynchronous jobs (spec analytics.md).
const (
	// AsyncMaxDays is the longest span of an unsegmented job.
	AsyncMaxDays = 90
	// MaxActiveJobs is how many jobs an account may have queued or
	// processing at once.
	MaxActiveJobs = 100
)

// Service job statuses.
const (
	JobQueued     = "QUEUED"
	JobProcessing = "PROCESSING"
	JobSuccess    = "SUCCESS"
	JobFailed     = "FAILED"
)

// ServiceJob is a job record as the service shows it: its state and the
// parameters of the request it answers.
type ServiceJob struct {
	ID        string  `json:"id_str"`
	Status    string  `json:"status"`
	URL       *string `json:"url"`
	ExpiresAt *string `json:"expires_at"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	jobParams
}

func jobsPath(accountID string) string { return "/12/stats/jobs/accounts/" + url.PathEscape(accountID) }

// ErrTooManyJobs is the service's TOO_MANY_JOBS: the account has
// MaxActiveJobs queued or processing.
var ErrTooManyJobs = errors.New("stats: the account has too many queued or processing jobs")

// CreateJob posts an asynchronous job for q.
func CreateJob(ctx context.Context, c *api.Client, q Query, now time.Time) (ServiceJob, error) {
	resp, err := c.Do(ctx, &api.Request{Method: "POST", Base: api.BaseAds, Path: jobsPath(q.Account.ID), Endpoint: EndpointJobCreate,
		Form: q.values(now), Auth: api.AuthUser, AccountID: q.Account.ID})
	if err != nil {
		var ae *api.AdsError
		if errors.As(err, &ae) && ae.HasCode("TOO_MANY_JOBS") {
			return ServiceJob{}, fmt.Errorf("account %s: %w", q.Account.ID, ErrTooManyJobs)
		}
		return ServiceJob{}, fmt.Errorf("account %s: creating a stats job: %w", q.Account.ID, err)
	}
	env, err := api.Decode[api.Single[ServiceJob]](EndpointJobCreate, resp.Body)
	return env.Data, err
}

// ListJobs returns the account's jobs (ids: only those), newest first.
func ListJobs(ctx context.Context, c *api.Client, accountID string, ids []string) ([]ServiceJob, error) {
	lr := api.ListRequest{Base: api.BaseAds, Path: jobsPath(accountID), Endpoint: EndpointJobList, Query: url.Values{}, AccountID: accountID}
	if len(ids) > 0 {
		lr.Query.Set("job_ids", strings.Join(ids, ","))
	}
	var out []ServiceJob
	for page, err := range api.Pages[ServiceJob](ctx, c, lr) {
		if err != nil {
			return nil, fmt.Errorf("account %s: listing stats jobs: %w", accountID, err)
		}
		out = append(out, page.Items...)
		if len(ids) == 0 && len(out) >= 1000 {
			break // newest first: a job created since a crash is among these
		}
	}
	return out, nil
}

// ErrFileUnavailable is a result URL that does not answer the file (yet,
// or any more).
var ErrFileUnavailable = errors.New("stats: the job's result file is not available")

// Download fetches a job's result file (public, unsigned) and gunzips it.
func Download(ctx context.Context, hc *http.Client, fileURL string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fileURL, nil)
	if err != nil {
		return nil, err
	}
	tally := api.TallyFrom(ctx)
	tally.AddRequest()
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &api.TransportError{Endpoint: "GET stats file", Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		tally.AddRateLimited()
	}
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, fmt.Errorf("%w (HTTP %d)", ErrFileUnavailable, resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<30))
	if err != nil {
		return nil, &api.TransportError{Endpoint: "GET stats file", Err: err}
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("stats file: %w", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("stats file: %w", err)
	}
	return out, nil
}

// storedQuery is a Query as a stats_jobs row keeps it.
type storedQuery struct {
	AccountID   string    `json:"account_id"`
	Zone        string    `json:"zone"`
	SwitchDate  time.Time `json:"switch_date"`
	Entity      string    `json:"entity"`
	IDs         []string  `json:"ids"`
	Placement   string    `json:"placement"`
	Granularity string    `json:"granularity"`
	Groups      []string  `json:"groups"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Segment     string    `json:"segmentation_type,omitempty"`
}

func (q Query) marshal() ([]byte, error) {
	return json.Marshal(storedQuery{AccountID: q.Account.ID, Zone: q.Account.Zone.String(), SwitchDate: q.Account.SwitchDate,
		Entity: q.Entity, IDs: q.IDs, Placement: q.Placement, Granularity: q.Granularity, Groups: q.Groups,
		Start: q.Span.Start, End: q.Span.End, Segment: q.Segmentation})
}

func unmarshalQuery(b []byte) (Query, error) {
	var s storedQuery
	if err := json.Unmarshal(b, &s); err != nil {
		return Query{}, err
	}
	loc, err := time.LoadLocation(s.Zone)
	if err != nil {
		return Query{}, err
	}
	return Query{Account: Account{ID: s.AccountID, Zone: loc, SwitchDate: s.SwitchDate}, Entity: s.Entity, IDs: s.IDs,
		Placement: s.Placement, Granularity: s.Granularity, Groups: s.Groups, Span: Span{Start: s.Start, End: s.End},
		Segmentation: s.Segment}, nil
}

// Describe names a query's ids and days, for the run's list of what is
// missing.
func (q Query) Describe() string {
	last := q.Span.End.AddDate(0, 0, -1)
	layout := time.DateOnly
	if q.Granularity == Hour {
		last, layout = q.Span.End.Add(-time.Hour), "2006-01-02T15Z"
	}
	seg := ""
	if q.Segmentation != "" {
		seg = " by " + q.Segmentation
	}
	return fmt.Sprintf("account %s %s %s on %s%s, %s to %s", q.Account.ID, q.Entity, strings.Join(q.IDs, ","), q.Placement, seg,
		q.Span.Start.Format(layout), last.Format(layout))
}
