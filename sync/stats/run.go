package stats

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Runner pulls analytics into Postgres.
type Runner struct {
	Client *api.Client
	// ClientFor, when set, is the client that acts on an account (a user
	// whose role there allows analytics); nil: Client for every account.
	ClientFor func(ctx context.Context, accountID string) (*api.Client, error)
	Pool      *pgxpool.Pool
	Settings  Settings
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Enqueue, when set, sends requests over SyncMaxDays through durable
	// asynchronous jobs of run RunID (see Advance); without it they are
	// split into synchronous requests.
	Enqueue Enqueuer
	RunID   int64
	// HTTP downloads result files (a 5-minute timeout when nil).
	HTTP *http.Client
	// Checkpoint, when set, records the report in tx after each account,
	// in the transaction that adds the account's asynchronous jobs: a run
	// that stops (a rate-limit snooze, a crash) resumes from it through
	// Request.Resume instead of pulling the accounts it finished again.
	Checkpoint func(ctx context.Context, tx pgx.Tx, rep Report) error
}

// client is the client that acts on account.
func (r *Runner) client(ctx context.Context, accountID string) (*api.Client, error) {
	if r.ClientFor == nil {
		return r.Client, nil
	}
	return r.ClientFor(ctx, accountID)
}

// Request is what one run pulls.
type Request struct {
	// AccountIDs are the accounts (every account of the user when empty).
	AccountIDs []string
	// Entities override the settings' entity types when not empty.
	Entities []string
	// Start and End bound the span; zero ones default to the lookback and
	// now.
	Start, End Bound
	// Full pulls from each account's creation when Start is zero (a
	// backfill), instead of the lookback.
	Full bool
	// Granularity overrides the settings' granularity when set.
	Granularity string
	// Segmentation, when set, pulls only that segmentation (TYPE or
	// TYPE:VALUE) instead of the unsegmented metrics and the settings'
	// segmentations.
	Segmentation string
	// Resume is the last checkpoint of this run: its accounts are done.
	Resume Report
}

// For is s with req's overrides applied, normalized: the settings a run of
// req uses (and the check of its flags before it is queued).
func (s Settings) For(req Request) (Settings, error) {
	if len(req.Entities) > 0 {
		s.Entities = req.Entities
	}
	if req.Granularity != "" {
		s.Granularity = req.Granularity
	}
	if req.Segmentation != "" {
		s.Segmentations = []string{req.Segmentation}
	}
	return s.Normalize()
}

// ErrSegmentedNeedsJobs is a segmented pull without asynchronous jobs (the
// synchronous endpoint takes no segmentation).
var ErrSegmentedNeedsJobs = errors.New("stats: segmented requests go through asynchronous jobs, which this runner has not got")

// Report sums up a run.
type Report struct {
	Accounts int `json:"accounts"`
	// AccountDays are the days of every account the run covered.
	AccountDays int `json:"account_days"`
	// ActiveRequests and Requests count active entities and stats requests.
	ActiveRequests int `json:"active_requests"`
	Requests       int `json:"requests"`
	// Active counts the active (entity type, id) pairs found.
	Active int `json:"active"`
	// Rows counts the rows stored.
	Rows int `json:"rows"`
	// Jobs counts the asynchronous jobs planned; their rows are counted
	// as they are stored.
	Jobs int `json:"jobs"`
	// JobRequests counts the requests the asynchronous jobs made (job
	// POSTs, listings, file downloads) and RateLimited the 429 answers of
	// the whole run, synchronous pulls and jobs (apart: a request answered
	// 429 and then served is one request and one 429).
	JobRequests int `json:"job_requests"`
	RateLimited int `json:"rate_limited"`
	// Missing names the ids and days of jobs that kept failing.
	Missing []string `json:"missing,omitempty"`
	// Done are the accounts finished (their asynchronous jobs recorded).
	Done []string `json:"done_accounts,omitempty"`
	// Planned says every account is done: only the jobs remain.
	Planned bool `json:"planned,omitempty"`
	// Empty says, one line per account, why its span can never be pulled
	// (the account is done without a request).
	Empty []string `json:"empty_spans,omitempty"`
}

// Outcome is how a run that pulled r ends once its asynchronous jobs are
// all stored or given up: succeeded; partial, naming the requests that
// kept failing and the accounts whose span can never be pulled; failed when
// every account was such an account.
func (r Report) Outcome() (outcome, reason string) {
	var why []string
	if len(r.Missing) > 0 {
		why = append(why, fmt.Sprintf("%d requests kept failing; missing: %s", len(r.Missing), strings.Join(r.Missing, "; ")))
	}
	why = append(why, r.Empty...)
	switch {
	case len(why) == 0:
		return store.RunSucceeded, ""
	case r.Accounts == 0:
		return store.RunFailed, strings.Join(why, "; ")
	}
	return store.RunPartial, strings.Join(why, "; ")
}

func (r *Runner) clock() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// Run pulls req: for each account and entity type, the active entities of
// the span (clamped to the account's life: Account.SpanFor), then their
// stats, each synchronous answer stored as soon as it arrives (replacing
// the same ids and span); the account's asynchronous requests are recorded
// (and Checkpoint called) in one transaction when the account is done. An
// account whose span can never be pulled (it starts after the account's
// today, ends at or before its start, or ends before the account's first
// day) is done at once, its reason in Report.Empty: trying again cannot
// help. A run that needs more active entities requests than its share of
// the endpoint's window fails with a *BudgetError before its first request
// (CheckBudget, over the accounts not done yet), so a scheduled or queued
// run is held to the share the command checks. A rate-limited request
// fails with the client's *api.RetryAtError, which callers turn into a
// snooze; running again with the checkpoint as Request.Resume goes on from
// the first account not done (re-pulling an account replaces, so never
// double counts).
func (r *Runner) Run(ctx context.Context, req Request) (Report, error) {
	// The 429 answers of the synchronous pulls (the requests are counted
	// by kind below); a 429 that ends the attempt is in the Report
	// returned with the error.
	tally := &api.Tally{}
	ctx = api.WithTally(ctx, tally)
	set, err := r.Settings.For(req)
	if err != nil {
		return Report{}, err
	}
	if len(set.Segmentations) > 0 && r.Enqueue == nil {
		return Report{}, ErrSegmentedNeedsJobs
	}
	accounts, err := Accounts(ctx, r.Client, req.AccountIDs)
	if err != nil {
		return Report{}, err
	}
	rep := req.Resume
	accounts = slices.DeleteFunc(accounts, func(a Account) bool { return slices.Contains(rep.Done, a.ID) })
	if err := CheckBudget(accounts, set, req, r.clock()); err != nil {
		return rep, err
	}
	for _, a := range accounts {
		now := r.clock()
		asked, span := a.spans(req, set, now)
		var async []Query
		if why := a.checkSpan(asked, span, set.Granularity, now); why != nil {
			rep.Empty = append(slices.Clone(rep.Empty), why.Error())
		} else {
			rep.Accounts++
			rep.AccountDays += span.days()
			async, err = r.pullAccount(ctx, a, set, req.Segmentation == "", span, now, &rep)
			_, limited := tally.Take()
			rep.RateLimited += limited
			if err != nil {
				return rep, err
			}
		}
		if len(async) == 0 && r.Checkpoint == nil {
			continue
		}
		next := rep
		next.Done = append(slices.Clone(rep.Done), a.ID)
		next.Jobs += len(async)
		err := pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
			if _, err := AddJobs(ctx, tx, r.RunID, async, r.Enqueue); err != nil {
				return err
			}
			if r.Checkpoint != nil {
				return r.Checkpoint(ctx, tx, next)
			}
			return nil
		})
		if err != nil {
			return rep, err
		}
		rep = next
	}
	rep.Planned = true
	return rep, nil
}

// pullAccount pulls the account's synchronous requests over span (adding
// to rep as it goes) and returns its asynchronous ones, for the caller to
// record with the account's checkpoint. unsegmented says the unsegmented
// metrics are wanted besides set's segmentations.
func (r *Runner) pullAccount(ctx context.Context, a Account, set Settings, unsegmented bool, span Span, now time.Time,
	rep *Report) ([]Query, error) {
	var async []Query
	c, err := r.client(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	for _, entity := range set.Entities {
		from, to := a.instants(set.Granularity, span)
		active, n, err := ActiveEntities(ctx, c, a.ID, entity, from, to)
		rep.ActiveRequests += n
		if err != nil {
			return nil, err
		}
		rep.Active += len(active)
		var qs []Query
		for _, seg := range set.Segmentations {
			for _, q := range Plan(a, entity, set.Granularity, set.groupsFor(entity), active, span, SegmentedMaxDays) {
				q.Segmentation = seg
				async = append(async, q)
			}
		}
		if !unsegmented {
			continue
		}
		for _, q := range Plan(a, entity, set.Granularity, set.groupsFor(entity), active, span, AsyncMaxDays) {
			switch {
			case q.Span.days() <= SyncMaxDays:
				qs = append(qs, q)
			case r.Enqueue != nil:
				async = append(async, q)
			default:
				for _, s := range q.Span.split(SyncMaxDays) {
					q.Span = s
					qs = append(qs, q)
				}
			}
		}
		for _, q := range qs {
			rows, err := FetchSync(ctx, c, q, now)
			rep.Requests++
			if err != nil {
				return nil, err
			}
			n, err := Replace(ctx, r.Pool, q, rows, "")
			if err != nil {
				return nil, err
			}
			rep.Rows += n
		}
		if err := Sweep(ctx, r.Pool, a, entity, set.Granularity, Pulled(set, unsegmented), span, append(qs, async...)); err != nil {
			return nil, err
		}
	}
	return async, nil
}
