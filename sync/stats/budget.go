package stats

import (
	"fmt"
	"math"
	"time"

	"github.com/adsync/adsync/sync/api"
)

// ActiveBudget is the rate limit of the active entities endpoint, which
// every process acting for a user shares. The analytics companion states
// none, so it is the advertising interface's "other account GETs" (spec
// targeting-and-more.md, Limits: 2,000 per 15 minutes per endpoint), which
// the fake enforces too (fixtures.RateLimitOptions.Limit).
var ActiveBudget = api.Budget{Limit: 2000, Window: 15 * time.Minute}

// DefaultMaxBudgetShare is the share of ActiveBudget one run may need when
// Settings.MaxBudgetShare is not set: half a window, leaving the other half
// to the other runs and processes of the user.
const DefaultMaxBudgetShare = 0.5

// BudgetError refuses a run that needs more active entities requests than
// its share of ActiveBudget. It is permanent: the same run needs as many
// requests when tried again.
type BudgetError struct {
	// Requests is the least number of active entities requests the run
	// makes; Accounts and Entities are the accounts and entity types it
	// pulls.
	Requests, Accounts, Entities int
	// Share is Settings.MaxBudgetShare and Budget ActiveBudget.
	Share  float64
	Budget api.Budget
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("this run needs at least %d active entities requests (%d accounts x %d entity types, one for each %d days "+
		"of an account's span); stats.max_budget_share %g allows %d of the %d the endpoint takes in a %g-minute window: "+
		"pull a shorter span, fewer accounts or fewer entity types, or raise stats.max_budget_share",
		e.Requests, e.Accounts, e.Entities, ActiveMaxDays, e.Share, e.Allowed(), e.Budget.Limit, e.Budget.Window.Minutes())
}

// Allowed is the most active entities requests the share allows a run
// (the product rounded down, after forgiving its floating-point error: a
// share of 0.57 of 100 allows 57).
func (e *BudgetError) Allowed() int { return int(math.Floor(e.Share*float64(e.Budget.Limit) + 1e-9)) }

// Permanent says no retry changes the answer.
func (e *BudgetError) Permanent() bool { return true }

// CheckBudget refuses, with a *BudgetError, a run of req over accounts (at
// now, with set, normalized) that needs more active entities requests than
// set.MaxBudgetShare of ActiveBudget. The figure is what is known before
// the first request: one active entities request per account, entity type
// and ActiveMaxDays of the account's span (clamped to its life), exactly
// what the run asks; the stats requests that follow depend on the answers
// and have windows of their own. Accounts whose span can never be pulled
// cost nothing: the run ends them at once. The windows are the user's, and
// all accounts are counted against one: a run whose accounts act through
// several users is held to less than it could take.
func CheckBudget(accounts []Account, set Settings, req Request, now time.Time) error {
	e := &BudgetError{Entities: len(set.Entities), Share: set.MaxBudgetShare, Budget: ActiveBudget}
	for _, a := range accounts {
		asked, s := a.spans(req, set, now)
		if a.checkSpan(asked, s, set.Granularity, now) != nil {
			continue
		}
		e.Accounts++
		e.Requests += a.activeRequests(set, s)
	}
	if e.Requests <= e.Allowed() {
		return nil
	}
	return e
}

// activeRequests is how many active entities requests pulling span of the
// account makes: one per entity type and ActiveMaxDays of the instants it
// asks about (ActiveEntities).
func (a Account) activeRequests(set Settings, s Span) int {
	from, to := a.instants(set.Granularity, s)
	return len(set.Entities) * len(Span{Start: from, End: to}.split(ActiveMaxDays))
}

// Preflight checks req over accounts at now before anything is recorded or
// queued: CheckSpan's refusals first, then CheckBudget's. clamped has a
// line for each account whose requested span was narrowed to its life
// (Account.Clamped), also when the budget refuses it (the figure is of the
// clamped spans).
func Preflight(accounts []Account, set Settings, req Request, now time.Time) (clamped []string, err error) {
	if err := CheckSpan(accounts, set, req, now); err != nil {
		return nil, err
	}
	for _, a := range accounts {
		if line := a.Clamped(req, set, now); line != "" {
			clamped = append(clamped, line)
		}
	}
	return clamped, CheckBudget(accounts, set, req, now)
}
