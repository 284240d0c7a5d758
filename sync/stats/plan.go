package stats

import (
	"fmt"
	"slices"
	"time"
)

// Plan turns the active entities of one entity type into queries: per
// placement, the ids that list it, each over its activity rounded out to
// the granularity's buckets and clipped to span; ids sorted by the start of
// their activity and taken MaxIDs at a time, each group over the union of
// its ids' spans cut into pieces of at most maxDays. An entity not listed
// active is not asked for at all.
func Plan(a Account, entity, granularity string, groups []string, active []Active, span Span, maxDays int) []Query {
	type item struct {
		id   string
		span Span
	}
	var out []Query
	for _, pl := range []string{PlacementAllOnSvc, PlacementPublisherNetwork} {
		var items []item
		for _, e := range active {
			if !slices.Contains(e.Placements, pl) {
				continue
			}
			if s, ok := a.roundOut(granularity, e.Start, e.End, span); ok {
				items = append(items, item{e.EntityID, s})
			}
		}
		slices.SortStableFunc(items, func(x, y item) int { return x.span.Start.Compare(y.span.Start) })
		for i := 0; i < len(items); i += MaxIDs {
			group := items[i:min(i+MaxIDs, len(items))]
			u := group[0].span
			ids := make([]string, 0, len(group))
			for _, it := range group {
				ids = append(ids, it.id)
				u.Start, u.End = minTime(u.Start, it.span.Start), maxTime(u.End, it.span.End)
			}
			for _, s := range u.split(maxDays) {
				out = append(out, Query{Account: a, Entity: entity, IDs: ids, Placement: pl, Granularity: granularity,
					Groups: groups, Span: s})
			}
		}
	}
	return out
}

// Bound is one end of a requested span: an instant, or (Date) a local date
// of each account.
type Bound struct {
	T    time.Time
	Date bool
}

// spanOf resolves a requested span for account a: zero bounds default to
// the lookback's start and now.
func (a Account) spanOf(granularity string, from, to Bound, lookback time.Duration, now time.Time) Span {
	s := a.Lookback(granularity, lookback, now)
	resolve := func(b Bound, def time.Time, end bool) time.Time {
		switch {
		case b.T.IsZero():
			return def
		case granularity == Hour && b.Date:
			t, ok := a.DayStart(dateOf(b.T))
			if !ok {
				t = dateOf(b.T).Add(-14 * time.Hour) // the old zone is unknown: the earliest any zone starts the day
			}
			return t
		case granularity == Hour:
			if end {
				return b.T.UTC().Add(time.Hour - 1).Truncate(time.Hour)
			}
			return b.T.UTC().Truncate(time.Hour)
		case b.Date:
			return dateOf(b.T)
		case end:
			return a.LocalDate(b.T.Add(-time.Nanosecond)).AddDate(0, 0, 1)
		}
		return a.LocalDate(b.T)
	}
	if !from.T.IsZero() {
		s.Start = resolve(from, s.Start, false)
	}
	if !to.T.IsZero() {
		s.End = resolve(to, s.End, true)
	}
	return s
}

// ParseBound reads a span bound: "" (none), a date YYYY-MM-DD (that local
// day of each account), or an RFC 3339 instant.
func ParseBound(s string) (Bound, error) {
	if s == "" {
		return Bound{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return Bound{T: t, Date: true}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return Bound{}, fmt.Errorf("stats: %q is neither a date (2006-01-02, the account's local day) nor an RFC 3339 time", s)
	}
	return Bound{T: t.UTC()}, nil
}
