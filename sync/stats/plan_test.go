package stats_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// Plan asks only for active ids, only on the placements each lists, in
// groups of at most 20, over their activity rounded out to whole days (and
// split into spans the endpoint allows): never for every entity every day.
func TestPlanAsksOnlyForActiveIDsOnTheirPlacementsOverTheirActivity(t *testing.T) {
	t.Parallel()
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	a := stats.Account{ID: "a1", Zone: time.UTC}
	span := stats.Span{Start: day(1, 0), End: day(15, 0)}
	var active []stats.Active
	for i := range 24 { // active the whole span, in-app only
		active = append(active, stats.Active{EntityID: fmt.Sprintf("c%02d", i), Start: day(1, 0), End: day(15, 0),
			Placements: []string{stats.PlacementAllOnSvc}})
	}
	// Active on 3 and 4 March only, on both placements.
	active = append(active, stats.Active{EntityID: "short", Start: day(3, 5), End: day(4, 10),
		Placements: []string{stats.PlacementAllOnSvc, stats.PlacementPublisherNetwork}})

	qs := stats.Plan(a, stats.EntityCampaign, stats.Day, []string{"ENGAGEMENT"}, active, span, stats.SyncMaxDays)
	type key struct {
		placement string
		ids       int
		start     time.Time
		end       time.Time
	}
	var got []key
	asked := map[string]int{}
	for _, q := range qs {
		require.LessOrEqual(t, len(q.IDs), stats.MaxIDs)
		require.LessOrEqual(t, q.Span.End.Sub(q.Span.Start), stats.SyncMaxDays*24*time.Hour)
		got = append(got, key{q.Placement, len(q.IDs), q.Span.Start, q.Span.End})
		for _, id := range q.IDs {
			asked[id+"/"+q.Placement]++
		}
	}
	require.Equal(t, []key{
		// 20 ids, then the last 4 with "short" (sorted by start), each over the whole span in 7-day requests.
		{stats.PlacementAllOnSvc, 20, day(1, 0), day(8, 0)}, {stats.PlacementAllOnSvc, 20, day(8, 0), day(15, 0)},
		{stats.PlacementAllOnSvc, 5, day(1, 0), day(8, 0)}, {stats.PlacementAllOnSvc, 5, day(8, 0), day(15, 0)},
		// The publisher network: only "short", over its two days.
		{stats.PlacementPublisherNetwork, 1, day(3, 0), day(5, 0)},
	}, got)
	require.Len(t, asked, 26, "each active id once per placement it lists")
	for id, n := range asked {
		want := 2 // one request per 7-day window of the whole span
		if id == "short/"+stats.PlacementPublisherNetwork {
			want = 1 // its two days
		}
		require.Equal(t, want, n, id)
	}
	require.Empty(t, stats.Plan(a, stats.EntityCampaign, stats.Day, []string{"ENGAGEMENT"}, nil, span, stats.SyncMaxDays),
		"no active entity, no request")
}

// A request that can never finish for an account is refused, naming the
// account and the two days: one that ends at or before its start, or that
// starts after the account's today in its own zone. At the pinned instant
// it is already 11 March in Tokyo and still 10 March in Los Angeles.
func TestSpansThatCanNeverBePulledAreRefusedInTheAccountsZone(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	la, err := time.LoadLocation("America/Los_Angeles")
	require.NoError(t, err)
	accounts := []stats.Account{{ID: "tokyo", Zone: tokyo}, {ID: "la", Zone: la}}
	date := func(s string) stats.Bound {
		b, err := stats.ParseBound(s)
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		name        string
		granularity string
		start, end  string
		// want are the refusals by account ("" accepts).
		want map[string]string
	}{
		{name: "today in Tokyo is tomorrow in Los Angeles", granularity: stats.Day, start: "2026-03-11", want: map[string]string{
			"la": "account la: the span starts 2026-03-11, after today there (2026-03-10 in America/Los_Angeles)"}},
		{name: "the day after today everywhere", granularity: stats.Day, start: "2026-03-12", want: map[string]string{
			"tokyo": "account tokyo: the span starts 2026-03-12, after today there (2026-03-11 in Asia/Tokyo)",
			"la":    "account la: the span starts 2026-03-12, after today there (2026-03-10 in America/Los_Angeles)"}},
		{name: "end equal to start", granularity: stats.Day, start: "2026-03-05", end: "2026-03-05", want: map[string]string{
			"tokyo": "account tokyo: the span from 2026-03-05 to 2026-03-05 (exclusive, in Asia/Tokyo) is empty",
			"la":    "account la: the span from 2026-03-05 to 2026-03-05 (exclusive, in America/Los_Angeles) is empty"}},
		{name: "end before start", granularity: stats.Day, start: "2026-03-05", end: "2026-03-04", want: map[string]string{
			"tokyo": "the span from 2026-03-05 to 2026-03-04", "la": "the span from 2026-03-05 to 2026-03-04"}},
		{name: "end before the lookback's start", granularity: stats.Day, end: "2026-01-01", want: map[string]string{
			"tokyo": "the span from 2026-02-25 to 2026-01-01", "la": "the span from 2026-02-24 to 2026-01-01"}},
		{name: "a day", granularity: stats.Day, start: "2026-03-05", end: "2026-03-06"},
		{name: "today", granularity: stats.Day, start: "2026-03-10"},
		{name: "a later hour of today is today", granularity: stats.Day, start: "2026-03-10T23:00:00Z"},
		{name: "a later hour", granularity: stats.Hour, start: "2026-03-10T23:00:00Z", want: map[string]string{
			"tokyo": "the span starts 2026-03-10T23Z, after the current hour there (2026-03-10T20Z in UTC)",
			"la":    "the span starts 2026-03-10T23Z, after the current hour there (2026-03-10T20Z in UTC)"}},
		{name: "hours of a local day that began in Tokyo only", granularity: stats.Hour, start: "2026-03-11", want: map[string]string{
			"la": "account la: the span starts 2026-03-11T07Z, after the current hour there"}},
		{name: "hours ending where they start", granularity: stats.Hour, start: "2026-03-10T05:00:00Z", end: "2026-03-10T05:00:00Z",
			want: map[string]string{"tokyo": "the span from 2026-03-10T05Z to 2026-03-10T05Z (exclusive, in UTC) is empty",
				"la": "the span from 2026-03-10T05Z to 2026-03-10T05Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := stats.Settings{Granularity: tc.granularity}.Normalize()
			require.NoError(t, err)
			req := stats.Request{Start: date(tc.start), End: date(tc.end)}
			for _, a := range accounts {
				err := stats.CheckSpan([]stats.Account{a}, set, req, now)
				if tc.want[a.ID] == "" {
					require.NoError(t, err, a.ID)
					continue
				}
				require.ErrorContains(t, err, tc.want[a.ID], a.ID)
			}
			err = stats.CheckSpan(accounts, set, req, now)
			if len(tc.want) == 0 {
				require.NoError(t, err)
				return
			}
			require.Len(t, strings.Split(err.Error(), "\n"), len(tc.want), "one line per account refused")
		})
	}
}

// A full pull starts at the first local day the account could have
// delivery on, in the zone of that day: an account created on a Los Angeles
// evening, hours before it switched to Tokyo, where it was already the
// next day, starts on the Los Angeles day.
func TestAFullPullStartsOnTheFirstDayInTheZoneOfThatDay(t *testing.T) {
	t.Parallel()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	now := time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
	created := time.Date(2026, 3, 10, 4, 0, 0, 0, time.UTC)  // 9 March, 21:00 in Los Angeles; 10 March, 13:00 in Tokyo
	switchAt := time.Date(2026, 3, 10, 6, 0, 0, 0, time.UTC) // 9 March, 23:00 in Los Angeles; 10 March in Tokyo
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name        string
		a           stats.Account
		granularity string
		want        time.Time
	}{
		{name: "created the evening before the switch", granularity: stats.Day, want: day(9),
			a: stats.Account{ID: "a", Zone: tokyo, SwitchDate: stats.DateOf(switchAt.In(tokyo)), Created: created}},
		{name: "hours are instants", granularity: stats.Hour, want: created,
			a: stats.Account{ID: "a", Zone: tokyo, SwitchDate: stats.DateOf(switchAt.In(tokyo)), Created: created}},
		{name: "created after the switch", granularity: stats.Day, want: day(10),
			a: stats.Account{ID: "b", Zone: tokyo, SwitchDate: day(1), Created: created}},
		{name: "never switched", granularity: stats.Day, want: day(10),
			a: stats.Account{ID: "c", Zone: tokyo, Created: created}},
	} {
		set, err := stats.Settings{Granularity: tc.granularity}.Normalize()
		require.NoError(t, err)
		span := tc.a.SpanFor(stats.Request{Full: true}, set, now)
		require.Equal(t, tc.want, span.Start, tc.name)
		require.NoError(t, stats.CheckSpan([]stats.Account{tc.a}, set, stats.Request{Full: true}, now), tc.name)
	}
}

// A requested span is clamped to the account's life: it starts no earlier
// than the account's first bucket (its creation's local day, or hour) and
// ends no later than today there (the current hour). A line says which
// explicit bound moved and why; the lookback of an account younger than it
// is narrowed quietly. At the pinned instant it is 10 March in New York.
func TestASpanIsClampedToTheAccountsLife(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	now := time.Date(2026, 3, 10, 20, 30, 0, 0, time.UTC)
	created := time.Date(2024, 3, 1, 15, 20, 0, 0, time.UTC) // 10:20 on 1 March in New York
	a := stats.Account{ID: "a1", Zone: ny, Created: created}
	young := stats.Account{ID: "young", Zone: ny, Created: time.Date(2026, 3, 5, 15, 0, 0, 0, time.UTC)}
	date := func(s string) stats.Bound {
		b, err := stats.ParseBound(s)
		require.NoError(t, err)
		return b
	}
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name        string
		a           stats.Account
		granularity string
		start, end  string
		want        stats.Span
		line        string
	}{
		{name: "from 1900", a: a, granularity: stats.Day, start: "1900-01-01",
			want: stats.Span{Start: day(2024, 3, 1), End: day(2026, 3, 11)},
			line: "account a1: span clamped to 2024-03-01..2026-03-10 in America/New_York (it was created 2024-03-01T15:20:00Z)"},
		{name: "to 2100", a: a, granularity: stats.Day, start: "2026-01-01", end: "2100-01-01",
			want: stats.Span{Start: day(2026, 1, 1), End: day(2026, 3, 11)},
			line: "account a1: span clamped to 2026-01-01..2026-03-10 in America/New_York (later days have no data yet)"},
		{name: "an instant in 2100", a: a, granularity: stats.Day, start: "2026-01-01", end: "2100-01-01T00:00:00Z",
			want: stats.Span{Start: day(2026, 1, 1), End: day(2026, 3, 11)},
			line: "account a1: span clamped to 2026-01-01..2026-03-10 in America/New_York (later days have no data yet)"},
		{name: "both", a: a, granularity: stats.Day, start: "1900-01-01", end: "2100-01-01",
			want: stats.Span{Start: day(2024, 3, 1), End: day(2026, 3, 11)},
			line: "account a1: span clamped to 2024-03-01..2026-03-10 in America/New_York (it was created 2024-03-01T15:20:00Z; later days have no data yet)"},
		{name: "hours from 1900 to 2100", a: a, granularity: stats.Hour, start: "1900-01-01T00:00:00Z", end: "2100-01-01T00:00:00Z",
			want: stats.Span{Start: time.Date(2024, 3, 1, 15, 0, 0, 0, time.UTC), End: time.Date(2026, 3, 10, 21, 0, 0, 0, time.UTC)},
			line: "account a1: span clamped to 2024-03-01T15Z..2026-03-10T20Z in UTC (it was created 2024-03-01T15:20:00Z; later hours have no data yet)"},
		{name: "within its life", a: a, granularity: stats.Day, start: "2025-01-01", end: "2025-02-01",
			want: stats.Span{Start: day(2025, 1, 1), End: day(2025, 2, 1)}},
		{name: "through today", a: a, granularity: stats.Day, start: "2026-03-01", end: "2026-03-11",
			want: stats.Span{Start: day(2026, 3, 1), End: day(2026, 3, 11)}},
		{name: "the lookback of a young account", a: young, granularity: stats.Day,
			want: stats.Span{Start: day(2026, 3, 5), End: day(2026, 3, 11)}},
		{name: "the creation is unknown", a: stats.Account{ID: "old", Zone: ny}, granularity: stats.Day, start: "1900-01-01",
			want: stats.Span{Start: day(1900, 1, 1), End: day(2026, 3, 11)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := stats.Settings{Granularity: tc.granularity}.Normalize()
			require.NoError(t, err)
			req := stats.Request{Start: date(tc.start), End: date(tc.end)}
			require.Equal(t, tc.want, tc.a.SpanFor(req, set, now))
			require.Equal(t, tc.line, tc.a.Clamped(req, set, now))
			require.NoError(t, stats.CheckSpan([]stats.Account{tc.a}, set, req, now))
		})
	}

	// A span that ends before the account's first day has nothing to pull.
	set, err := stats.Settings{}.Normalize()
	require.NoError(t, err)
	req := stats.Request{Start: date("1900-01-01"), End: date("1950-01-01")}
	require.EqualError(t, stats.CheckSpan([]stats.Account{a}, set, req, now), "account a1: the span from 1900-01-01 to 1950-01-01 "+
		"(exclusive, in America/New_York) ends before the account's first day, 2024-03-01 (it was created 2024-03-01T15:20:00Z): it has no data")
	require.Empty(t, a.Clamped(req, set, now), "the refusal says it")
}

// The budget check counts, before any request, the active entities
// requests a run makes: one per account, entity type and 90 days of the
// account's span clamped to its life (widened by a day on each side), and
// refuses a run that needs more than stats.max_budget_share of the
// endpoint's window, with the figure. An account created ten years before
// the pinned day has 3,653 days through today, asked about as 3,655 days:
// 41 requests per entity type.
func TestTheBudgetCheckRefusesARunOverItsShareWithTheFigure(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	old := func(n int) []stats.Account {
		var out []stats.Account
		for i := range n {
			out = append(out, stats.Account{ID: fmt.Sprint("a", i), Zone: time.UTC, Created: time.Date(2016, 3, 10, 12, 0, 0, 0, time.UTC)})
		}
		return out
	}
	from1900 := stats.Request{Start: stats.Bound{T: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), Date: true}}
	set, err := stats.Settings{}.Normalize()
	require.NoError(t, err)
	require.Equal(t, stats.DefaultMaxBudgetShare, set.MaxBudgetShare)
	require.NoError(t, stats.CheckBudget(old(6), set, from1900, now), "6 x 4 x 41 = 984 of the 1000 allowed")

	err = stats.CheckBudget(old(7), set, from1900, now)
	var be *stats.BudgetError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 7*4*41, be.Requests)
	require.Equal(t, 1000, be.Allowed())
	require.True(t, be.Permanent(), "a queued run over budget is not retried")
	require.EqualError(t, err, "this run needs at least 1148 active entities requests (7 accounts x 4 entity types, one for each 90 days "+
		"of an account's span); stats.max_budget_share 0.5 allows 1000 of the 2000 the endpoint takes in a 15-minute window: "+
		"pull a shorter span, fewer accounts or fewer entity types, or raise stats.max_budget_share")

	raised, err := stats.Settings{MaxBudgetShare: 0.6}.Normalize()
	require.NoError(t, err)
	require.NoError(t, stats.CheckBudget(old(7), raised, from1900, now), "the share is configurable")

	// The lookback of a scheduled run costs one request per account and
	// entity type: 250 accounts of the default four fit the default share.
	require.NoError(t, stats.CheckBudget(old(250), set, stats.Request{}, now))
	require.Error(t, stats.CheckBudget(old(251), set, stats.Request{}, now))

	// An account whose span can never be pulled costs nothing.
	empty := stats.Request{Start: stats.Bound{T: time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC), Date: true}}
	require.NoError(t, stats.CheckBudget(old(1000), set, empty, now))

	_, err = stats.Settings{MaxBudgetShare: -1}.Normalize()
	require.EqualError(t, err, "stats: max_budget_share -1 must be positive")
}
