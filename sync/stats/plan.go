package stats

import (
	"errors"
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

// SpanFor is the span req pulls for the account with set's granularity and
// lookback, at now: the lookback through today unless req bounds it, and
// with req.Full and no start from the account's first day.
func (a Account) SpanFor(req Request, set Settings, now time.Time) Span {
	start := req.Start
	if req.Full && start.T.IsZero() && !a.Created.IsZero() {
		start = a.fullStart(set.Granularity)
	}
	return a.spanOf(set.Granularity, start, req.End, set.Lookback, now)
}

// fullStart is where a full pull starts: the hour the account was created,
// or for DAY the local date of its creation in the zone of that day. A
// creation on or before the zone switch's date may precede the switch, and
// then its date is the old zone's, which can be the day before the current
// zone's: as LocalDate says, the start widens by a day there (a day before
// the creation only adds an empty day).
func (a Account) fullStart(granularity string) Bound {
	if granularity == Hour {
		return Bound{T: a.Created}
	}
	d := a.LocalDate(a.Created)
	if !d.After(a.SwitchDate) {
		d = d.AddDate(0, 0, -1)
	}
	return Bound{T: d, Date: true}
}

// CheckSpan refuses a request that can never finish: for any of accounts,
// a span that starts after the account's today (its current hour for
// HOUR) in its zone, or that ends at or before its start. set is what the
// run uses (Settings.For of req). The error has one line per account
// refused, naming it and the two days.
func CheckSpan(accounts []Account, set Settings, req Request, now time.Time) error {
	var errs []error
	for _, a := range accounts {
		if err := a.checkSpan(a.SpanFor(req, set, now), set.Granularity, now); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkSpan says why span can never be pulled for the account (nil when it
// can): the command refuses such a request, a queued run ends the account
// at once with the reason.
func (a Account) checkSpan(s Span, granularity string, now time.Time) error {
	layout, today, what, zone := time.DateOnly, a.LocalDate(now), "today", a.Zone.String()
	if granularity == Hour {
		layout, today, what, zone = "2006-01-02T15Z", now.UTC().Truncate(time.Hour), "the current hour", "UTC"
	}
	switch {
	case s.Start.After(today):
		return fmt.Errorf("account %s: the span starts %s, after %s there (%s in %s): it has no data yet",
			a.ID, s.Start.Format(layout), what, today.Format(layout), zone)
	case !s.End.After(s.Start):
		return fmt.Errorf("account %s: the span from %s to %s (exclusive, in %s) is empty: the end must be after the start",
			a.ID, s.Start.Format(layout), s.End.Format(layout), zone)
	}
	return nil
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
