package stats

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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
// lookback, at now: see spans.
func (a Account) SpanFor(req Request, set Settings, now time.Time) Span {
	_, s := a.spans(req, set, now)
	return s
}

// spans are the span req asks of the account (the lookback through today
// unless req bounds it; with req.Full and no start, from the account's first
// day) and that span clamped to the account's life, which is what a run
// pulls: from its first bucket (firstBucket; when its creation is known)
// through today in its zone (the current hour for HOUR). Days outside it
// hold no data, yet each 90 of them would cost an active entities request
// per entity type: a span from 1900 would spend the endpoint's whole window.
// One place for the command's check and every run, queued or scheduled.
func (a Account) spans(req Request, set Settings, now time.Time) (asked, clamped Span) {
	start := req.Start
	if req.Full && start.T.IsZero() && !a.Created.IsZero() {
		start = a.fullStart(set.Granularity)
	}
	asked = a.spanOf(set.Granularity, start, req.End, set.Lookback, now)
	clamped = asked
	if first, ok := a.firstBucket(set.Granularity); ok {
		clamped.Start = maxTime(clamped.Start, first)
	}
	clamped.End = minTime(clamped.End, a.spanEnd(set.Granularity, now))
	return asked, clamped
}

// firstBucket is the first bucket the account can have data in: the start
// of a full pull (fullStart), as a span's start; false when its creation is
// unknown.
func (a Account) firstBucket(granularity string) (time.Time, bool) {
	if a.Created.IsZero() {
		return time.Time{}, false
	}
	if granularity == Hour {
		return a.Created.UTC().Truncate(time.Hour), true
	}
	return a.fullStart(granularity).T, true
}

// Clamped says in one line how the span req asks of the account was
// narrowed to its life (see spans), or "" when req's own bounds were not
// narrowed or the span can never be pulled (CheckSpan says why). The
// lookback's quiet narrowing to a young account's first day is not news.
func (a Account) Clamped(req Request, set Settings, now time.Time) string {
	asked, s := a.spans(req, set, now)
	if a.checkSpan(asked, s, set.Granularity, now) != nil {
		return ""
	}
	var why []string
	if !req.Start.T.IsZero() && s.Start.After(asked.Start) {
		why = append(why, "it was created "+a.Created.UTC().Format(time.RFC3339))
	}
	layout, zone, last, later := time.DateOnly, a.Zone.String(), s.End.AddDate(0, 0, -1), "later days have no data yet"
	if set.Granularity == Hour {
		layout, zone, last, later = hourLayout, "UTC", s.End.Add(-time.Hour), "later hours have no data yet"
	}
	if !req.End.T.IsZero() && s.End.Before(asked.End) {
		why = append(why, later)
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("account %s: span clamped to %s..%s in %s (%s)", a.ID, s.Start.Format(layout), last.Format(layout), zone,
		strings.Join(why, "; "))
}

// hourLayout writes an HOUR span's bounds.
const hourLayout = "2006-01-02T15Z"

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
// HOUR) in its zone, that ends at or before its start, or that ends before
// the account's first day. set is what the run uses (Settings.For of req).
// The error has one line per account refused, naming it and the two days.
func CheckSpan(accounts []Account, set Settings, req Request, now time.Time) error {
	var errs []error
	for _, a := range accounts {
		asked, s := a.spans(req, set, now)
		if err := a.checkSpan(asked, s, set.Granularity, now); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkSpan says why the span asked, clamped to the account's life, can
// never be pulled for the account (nil when it can): the command refuses
// such a request, a queued run ends the account at once with the reason.
func (a Account) checkSpan(asked, clamped Span, granularity string, now time.Time) error {
	layout, today, what, zone := time.DateOnly, a.LocalDate(now), "today", a.Zone.String()
	if granularity == Hour {
		layout, today, what, zone = hourLayout, now.UTC().Truncate(time.Hour), "the current hour", "UTC"
	}
	switch {
	case asked.Start.After(today):
		return fmt.Errorf("account %s: the span starts %s, after %s there (%s in %s): it has no data yet",
			a.ID, asked.Start.Format(layout), what, today.Format(layout), zone)
	case !asked.End.After(asked.Start):
		return fmt.Errorf("account %s: the span from %s to %s (exclusive, in %s) is empty: the end must be after the start",
			a.ID, asked.Start.Format(layout), asked.End.Format(layout), zone)
	case !clamped.End.After(clamped.Start):
		return fmt.Errorf("account %s: the span from %s to %s (exclusive, in %s) ends before the account's first day, %s (it was created %s): it has no data",
			a.ID, asked.Start.Format(layout), asked.End.Format(layout), zone, clamped.Start.Format(layout),
			a.Created.UTC().Format(time.RFC3339))
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
