package stats_test

import (
	"fmt"
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
