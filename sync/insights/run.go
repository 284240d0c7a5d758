package insights

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Runner fetches and stores keyword sets.
type Runner struct {
	Client *api.Client
	Pool   *pgxpool.Pool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// WindowResult is one stored (set, window) with its groups' results.
type WindowResult struct {
	Set     KeywordSet
	Window  Window
	Results []Result
}

// Report sums up a run.
type Report struct {
	Sets, Windows, Requests, Buckets int
	// Stored lists what was stored, in order.
	Stored []WindowResult
}

// Plan is a validated set with its request groups.
type Plan struct {
	Set    KeywordSet
	Groups []Group
}

// PlanSets normalizes every set and splits it into groups. It fails on the
// first invalid or rejected set, before anything is fetched, naming the set;
// two sets with the same name are an error too (their windows would replace
// each other).
func PlanSets(sets []KeywordSet) ([]Plan, error) {
	var out []Plan
	names := map[string]bool{}
	for _, s := range sets {
		ns, err := s.Normalize()
		if err != nil {
			return nil, err
		}
		if names[ns.Name] {
			return nil, fmt.Errorf("keyword set %q: the name is used twice", ns.Name)
		}
		names[ns.Name] = true
		groups, err := ns.Groups()
		if err != nil {
			return nil, err
		}
		out = append(out, Plan{Set: ns, Groups: groups})
	}
	return out, nil
}

// Run fetches every set over [start, end) window by window and stores each
// window as soon as all its groups are fetched, so a failure loses at most
// the window in progress. A window of a rate-limited request fails with the
// client's *api.RetryAtError, which callers turn into a snooze.
func (r *Runner) Run(ctx context.Context, sets []KeywordSet, start, end time.Time) (Report, error) {
	return r.run(ctx, sets, func(KeywordSet) (time.Time, time.Time) { return start, end })
}

// RunLookback fetches every set over the lookback before now, ending at the
// last whole bucket of the set's granularity (UTC midnight for DAY, the
// hour for HOUR) so no stored value counts a bucket still in progress.
func (r *Runner) RunLookback(ctx context.Context, sets []KeywordSet, lookback time.Duration) (Report, error) {
	if lookback <= 0 {
		return Report{}, fmt.Errorf("insights: lookback %s must be positive", lookback)
	}
	now := r.clock()()
	return r.run(ctx, sets, func(s KeywordSet) (time.Time, time.Time) {
		end := Align(now, s.Step())
		return end.Add(-lookback), end
	})
}

func (r *Runner) clock() func() time.Time {
	if r.Now == nil {
		return time.Now
	}
	return r.Now
}

func (r *Runner) run(ctx context.Context, sets []KeywordSet, span func(KeywordSet) (time.Time, time.Time)) (Report, error) {
	plans, err := PlanSets(sets)
	if err != nil {
		return Report{}, err
	}
	if len(plans) == 0 {
		return Report{}, errors.New("insights: no keyword sets to fetch")
	}
	now := r.clock()
	var rep Report
	for _, p := range plans {
		start, end := span(p.Set)
		windows, err := Windows(start, end, p.Set.Step())
		if err != nil {
			return rep, fmt.Errorf("keyword set %q: %w", p.Set.Name, err)
		}
		rep.Sets++
		for _, w := range windows {
			wr := WindowResult{Set: p.Set, Window: w}
			for _, g := range p.Groups {
				res, err := Fetch(ctx, r.Client, p.Set, g, w)
				if err != nil {
					return rep, err
				}
				rep.Requests++
				rep.Buckets += len(res.Buckets)
				wr.Results = append(wr.Results, res)
			}
			if err := ReplaceWindow(ctx, r.Pool, p.Set, w, wr.Results, now().UTC()); err != nil {
				return rep, err
			}
			rep.Windows++
			rep.Stored = append(rep.Stored, wr)
		}
	}
	return rep, nil
}
