package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// optionEntities are the targeting option lists' entities.
func optionEntities() []string {
	var out []string
	for _, l := range fixtures.TargetingOptionLists {
		out = append(out, "targeting_criteria_"+l)
	}
	return out
}

// optionTruth is the fake's list as a full read returns it, by key: events
// not over at the fake's now, TV shows of the markets tv_markets lists.
func optionTruth(t *testing.T, srv *fixtures.Server, list string) map[string]map[string]any {
	t.Helper()
	key := "targeting_value"
	if list == "tv_markets" {
		key = "locale"
	}
	now := srv.Now()
	markets := map[string]bool{}
	if list == "tv_shows" {
		for _, m := range srv.TargetingOptions("tv_markets") {
			markets[m["locale"].(string)] = true
		}
	}
	out := map[string]map[string]any{}
	for _, r := range srv.TargetingOptions(list) {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		if list == "events" {
			end, err := time.Parse(time.RFC3339, m["end_time"].(string))
			require.NoError(t, err)
			if end.Before(now) {
				continue
			}
		}
		if list == "tv_shows" && !slices.ContainsFunc(m["locales"].([]any), func(l any) bool {
			lm := l.(map[string]any)
			return markets[fmt.Sprintf("%s-%s", lm["language"], lm["country"])]
		}) {
			continue // listed only in a market tv_markets no longer lists
		}
		out[fmt.Sprint(jsonKey(m[key]))] = m
	}
	return out
}

func jsonKey(v any) any {
	if f, ok := v.(float64); ok {
		return fmt.Sprintf("%.0f", f)
	}
	return v
}

// optionDeleted reads each row's deleted flag of table, by id.
func (b *syncBundle) optionDeleted(t *testing.T, table string) map[string]bool {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT id, deleted FROM `+table)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct {
		id      string
		deleted bool
	}, error) {
		var v struct {
			id      string
			deleted bool
		}
		return v, r.Scan(&v.id, &v.deleted)
	})
	require.NoError(t, err)
	m := make(map[string]bool, len(out))
	for _, v := range out {
		m[v.id] = v.deleted
	}
	return m
}

// optionRows reads the rows of table with the given ids: every column as
// JSON, by id. (Decoding every row of the 20,000-entry location list as
// JSON would cost more than the sync it checks.)
func (b *syncBundle) optionRows(t *testing.T, table string, ids []string) map[string]map[string]any {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT id, to_jsonb(t) FROM `+table+` t WHERE id = ANY($1)`, ids)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]map[string]any{}
	for rows.Next() {
		var id string
		var m map[string]any
		require.NoError(t, rows.Scan(&id, &m))
		out[id] = m
	}
	require.NoError(t, rows.Err())
	return out
}

// requireOptionTable holds table equal to the fake's list: the live ids are
// the list's keys, the others tombstones, and for a sample of records every
// typed column and the raw record equal the fake's. It returns the list as
// a full read returns it (optionTruth).
func (b *syncBundle) requireOptionTable(t *testing.T, list string) map[string]map[string]any {
	t.Helper()
	table := "targeting_criteria_" + list
	e, ok := ads.Lookup(table)
	require.True(t, ok)
	want := optionTruth(t, b.fake.Srv, list)
	live := 0
	for id, deleted := range b.optionDeleted(t, table) {
		_, listed := want[id]
		require.Equal(t, !listed, deleted, "%s %s: deleted exactly when the list no longer holds it", table, id)
		if listed {
			live++
		}
	}
	require.Equal(t, len(want), live, "%s: live rows", table)
	var sample []string
	i := 0
	for id := range want {
		i++
		if i%97 == 1 || len(want) <= 50 {
			sample = append(sample, id)
		}
	}
	got := b.optionRows(t, table, sample)
	for _, id := range sample {
		rec, row := want[id], got[id]
		require.NotNil(t, row, "%s %s", table, id)
		require.Equal(t, rec, row["raw"], "%s %s: raw", table, id)
		for _, c := range e.Columns {
			w, g := rec[c.Name], row[c.Name]
			if c.Type == ads.Timestamptz && g != nil {
				gt, err := time.Parse(time.RFC3339, g.(string))
				require.NoError(t, err)
				g = gt.UTC().Format("2006-01-02T15:04:05Z")
			}
			require.Equal(t, w, g, "%s %s: column %s", table, id, c.Name)
		}
	}
	return want
}

// Every option list is stored equal to the fake's, the location list in
// one COPY pass holding one page at a time; after the fake's lists change a
// --full run stores them again with the removed entries tombstoned; a run
// within a day reads nothing.
func TestTargetingOptionListsEqualTheServicesAndRefreshWhole(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	held := map[string]int{}
	loads := map[string]int{}
	// The fake's clock (the sync's too) stands still at the suite's
	// instant: the events list holds the events not ended by now, and a
	// run across an event's end (at a UTC midnight) would find the list
	// changed between the sync and the check.
	now, err := fixtures.SuiteNow()
	require.NoError(t, err)
	b := setupSync(t, func(o *fixtures.Options) {
		o.Locations = 0 // the whole list
		o.Now = func() time.Time { return now }
		o.TimestampWindow = max(o.TimestampWindow, time.Since(now).Abs()+time.Hour)
	}, func(d *jobs.Deps, _ *synctest.Fake) {
		d.SyncPageHook = func(entity string, n int) {
			mu.Lock()
			defer mu.Unlock()
			held[entity] = max(held[entity], n)
			loads[entity]++
		}
	})
	entities := optionEntities()
	r := b.run(t, jobs.SyncRunArgs{Entities: entities})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	for _, list := range fixtures.TargetingOptionLists {
		n := int64(len(b.requireOptionTable(t, list)))
		c := entityCounts(r, "targeting_criteria_"+list)
		require.Equal(t, n, c.Inserted, "%s %+v", list, c)
		require.Zero(t, c.Updated+c.Deleted, list)
		if list == "tv_shows" {
			// A show of two markets is fetched with each.
			require.Greater(t, c.Fetched, c.Inserted+c.Updated+c.Unchanged, list)
			continue
		}
		require.Equal(t, c.Fetched, c.Inserted+c.Updated+c.Unchanged, list)
	}
	// Locations: one request per page of 1,000, one page held at a time
	// (and one more request: the countries network operators are read for).
	nLoc := len(b.fake.Srv.TargetingOptions("locations"))
	require.Greater(t, nLoc, 20_000)
	pages := (nLoc + 999) / 1000
	var unitPages int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT pages FROM sync_run_units
WHERE run_id = $1 AND entity = 'targeting_criteria_locations'`, r.ID).Scan(&unitPages))
	require.Equal(t, pages, unitPages)
	require.Equal(t, pages+1, b.fake.Srv.Stats().Family("GET /12/targeting_criteria/locations").Requests)
	mu.Lock()
	require.Equal(t, pages, loads["targeting_criteria_locations"])
	require.LessOrEqual(t, held["targeting_criteria_locations"], 1000, "the copy holds at most one page")
	require.LessOrEqual(t, held["targeting_criteria_tv_shows"], 50)
	mu.Unlock()

	// The lists change: a --full run stores them again.
	changes := map[string]fixtures.TargetingOptionsMutationResult{}
	for _, m := range []fixtures.TargetingOptionsMutation{
		{List: "locations", Add: 3, Rename: 2, Remove: 4},
		{List: "tv_shows", Add: 2, Rename: 1, Remove: 2},
		{List: "languages", Add: 1, Rename: 1, Remove: 1},
		{List: "tv_markets", Remove: 1},
	} {
		res, err := b.fake.Srv.MutateTargetingOptions(m)
		require.NoError(t, err)
		changes[m.List] = res
	}
	r = b.run(t, jobs.SyncRunArgs{Entities: entities, Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	for _, list := range fixtures.TargetingOptionLists {
		b.requireOptionTable(t, list)
	}
	c := entityCounts(r, "targeting_criteria_locations")
	require.Equal(t, [3]int64{3, 2, 4}, [3]int64{c.Inserted, c.Updated, c.Deleted})
	require.EqualValues(t, nLoc-4-2, c.Unchanged, "the entries kept but not renamed are unchanged")
	rows := b.optionRows(t, "targeting_criteria_locations", slices.Concat(changes["locations"].Renamed, changes["locations"].Removed))
	for _, k := range changes["locations"].Renamed {
		require.True(t, strings.HasSuffix(rows[k]["name"].(string), " (renamed)"), k)
	}
	for _, k := range changes["locations"].Removed {
		require.Equal(t, true, rows[k]["deleted"], k)
		require.Equal(t, "", rows[k]["doc_hash"], k)
	}

	// Within a day the lists are skipped: no request.
	before := b.fake.Srv.Stats()
	r = b.run(t, jobs.SyncRunArgs{Entities: entities})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	after := b.fake.Srv.Stats()
	for _, list := range fixtures.TargetingOptionLists {
		require.Equal(t, 1, entityCounts(r, "targeting_criteria_"+list).SkippedUnits, list)
		fam := "GET /12/targeting_criteria/" + list
		require.Equal(t, before.Family(fam).Requests, after.Family(fam).Requests, list)
	}
}
