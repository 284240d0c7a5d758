package stats

import (
	"fmt"
	"time"
	_ "time/tzdata" // account time zones must resolve on machines without a zoneinfo database
)

// Account is what the analytics rules need of an account record.
type Account struct {
	ID string
	// Zone is the account's time zone (the record's timezone).
	Zone *time.Location
	// SwitchDate is the local date (as a UTC midnight) of
	// timezone_switch_at: days before it are in the zone the account had
	// then, which the service does not show.
	SwitchDate time.Time
	// Created is when the account was created: a full pull starts there.
	Created time.Time
}

// accountRecord is the part of an account record the rules read.
type accountRecord struct {
	ID               string `json:"id"`
	Timezone         string `json:"timezone"`
	TimezoneSwitchAt string `json:"timezone_switch_at"`
	CreatedAt        string `json:"created_at"`
}

func (r accountRecord) account() (Account, error) {
	loc, err := time.LoadLocation(r.Timezone)
	if err != nil {
		return Account{}, fmt.Errorf("account %s: time zone %q: %w", r.ID, r.Timezone, err)
	}
	a := Account{ID: r.ID, Zone: loc}
	if t, err := time.Parse(time.RFC3339, r.CreatedAt); err == nil {
		a.Created = t.UTC()
	}
	if r.TimezoneSwitchAt != "" {
		sw, err := time.Parse(time.RFC3339, r.TimezoneSwitchAt)
		if err != nil {
			return Account{}, fmt.Errorf("account %s: timezone_switch_at %q: %w", r.ID, r.TimezoneSwitchAt, err)
		}
		a.SwitchDate = dateOf(sw.In(loc))
	}
	return a, nil
}

// dateOf is t's calendar date (in t's location) as a UTC midnight.
func dateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// LocalDate is the account's date of instant t in its current zone. For
// instants before the zone switch the date may be one off (the old zone is
// unknown); callers that round out widen by a day there.
func (a Account) LocalDate(t time.Time) time.Time { return dateOf(t.In(a.Zone)) }

// RequestMidnight is how a DAY request writes the start of local date:
// midnight written with the zone's UTC offset at now, not at that date
// (spec analytics.md: across a daylight-saving change the requested
// midnight is an hour off; the service maps it back to the day).
func (a Account) RequestMidnight(date, now time.Time) time.Time {
	_, off := now.In(a.Zone).Zone()
	return date.Add(-time.Duration(off) * time.Second)
}

// DayStart is the UTC instant local date begins, and false for dates
// before the zone switch (their zone is unknown).
func (a Account) DayStart(date time.Time) (time.Time, bool) {
	if date.Before(a.SwitchDate) {
		return time.Time{}, false
	}
	y, m, d := date.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, a.Zone).UTC(), true
}

// Span is a pull's range: for DAY local dates [Start, End) (UTC
// midnights), for HOUR UTC hours [Start, End).
type Span struct {
	Start, End time.Time
}

// days is the span's length in days, rounded up.
func (s Span) days() int {
	return int((s.End.Sub(s.Start) + 24*time.Hour - 1) / (24 * time.Hour))
}

// split cuts s into consecutive spans of at most n days.
func (s Span) split(n int) []Span {
	var out []Span
	step := time.Duration(n) * 24 * time.Hour
	for t := s.Start; t.Before(s.End); t = t.Add(step) {
		out = append(out, Span{Start: t, End: minTime(t.Add(step), s.End)})
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// requestTimes are the start_time and end_time of span at granularity.
func (a Account) requestTimes(granularity string, s Span, now time.Time) (time.Time, time.Time) {
	if granularity == Hour {
		return s.Start, s.End
	}
	return a.RequestMidnight(s.Start, now), a.RequestMidnight(s.End, now)
}

// instants is the UTC range a span covers, for the active entities
// request: DAY spans are widened by a day on each side (the zone of days
// before the switch is unknown, and a day never starts more than 26 hours
// from its UTC midnight), which is harmless since activity is clipped back
// to the span.
func (a Account) instants(granularity string, s Span) (time.Time, time.Time) {
	if granularity == Hour {
		return s.Start, s.End
	}
	return s.Start.Add(-24 * time.Hour).Truncate(time.Hour), s.End.Add(24 * time.Hour)
}

// roundOut is the span of granularity's buckets that covers activity
// [from, to), clipped to within.
func (a Account) roundOut(granularity string, from, to time.Time, within Span) (Span, bool) {
	var s Span
	if granularity == Hour {
		s = Span{Start: from.Truncate(time.Hour), End: to.Add(time.Hour - 1).Truncate(time.Hour)}
	} else {
		s = Span{Start: a.LocalDate(from), End: a.LocalDate(to.Add(-time.Nanosecond)).AddDate(0, 0, 1)}
		// Dates before the switch are in the old zone, which is unknown: a
		// day wider on that side covers any zone.
		if s.Start.Before(a.SwitchDate) {
			s.Start = s.Start.AddDate(0, 0, -1)
		}
		if !s.End.After(a.SwitchDate) {
			s.End = s.End.AddDate(0, 0, 1)
		}
	}
	s.Start, s.End = maxTime(s.Start, within.Start), minTime(s.End, within.End)
	return s, s.End.After(s.Start)
}

// bucket is the local date and UTC start (nil when unknown) of bucket i of
// a request over span.
func (a Account) bucket(granularity string, s Span, i int) (time.Time, *time.Time) {
	if granularity == Hour {
		t := s.Start.Add(time.Duration(i) * time.Hour)
		return a.LocalDate(t), &t
	}
	d := s.Start.AddDate(0, 0, i)
	if t, ok := a.DayStart(d); ok {
		return d, &t
	}
	return d, nil
}

// Lookback is the span of a run without an explicit one: the last lookback
// up to now, in whole buckets (for DAY the local days from today minus
// lookback through today; today's row is partial until the next run).
func (a Account) Lookback(granularity string, lookback time.Duration, now time.Time) Span {
	end := a.spanEnd(granularity, now)
	if granularity == Hour {
		return Span{Start: end.Add(-lookback - time.Hour), End: end}
	}
	days := int((lookback + 24*time.Hour - 1) / (24 * time.Hour))
	return Span{Start: end.AddDate(0, 0, -days-1), End: end}
}

// spanEnd is where the account's data ends at now, as a span's exclusive
// end: after today in its zone, or for HOUR after the current hour.
func (a Account) spanEnd(granularity string, now time.Time) time.Time {
	if granularity == Hour {
		return now.UTC().Truncate(time.Hour).Add(time.Hour)
	}
	return a.LocalDate(now).AddDate(0, 0, 1)
}
