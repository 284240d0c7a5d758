package jobs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/measure"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"
)

// setHistory enables or disables the history's triggers of the entities'
// tables: the test-only switch that gives the baseline, the same sync
// without history.
func setHistory(b *testing.B, pool *pgxpool.Pool, entities []string, on bool) {
	b.Helper()
	verb := "DISABLE"
	if on {
		verb = "ENABLE"
	}
	for _, name := range entities {
		e, ok := ads.Lookup(name)
		require.True(b, ok)
		_, err := pool.Exec(context.Background(), "ALTER TABLE "+e.Name+" "+verb+" TRIGGER "+e.History())
		require.NoError(b, err)
	}
}

// pastVersions counts the versions the entities' histories closed.
func pastVersions(b *testing.B, pool *pgxpool.Pool, entities []string) int {
	b.Helper()
	n := 0
	for _, name := range entities {
		var m int
		require.NoError(b, pool.QueryRow(context.Background(), `SELECT count(*) FROM `+name+`_history WHERE valid_to IS NOT NULL`).Scan(&m))
		n += m
	}
	return n
}

// mutateFake changes records of the fake at base through its control path
// (POST /_fixtures/mutate), change of each kind in every account, and
// returns how many records changed.
func mutateFake(b *testing.B, base string, change map[string]int) int {
	b.Helper()
	n := 0
	for kind, c := range change {
		body, err := json.Marshal(fixtures.AdsMutation{Kind: kind, Change: c})
		require.NoError(b, err)
		resp, err := http.Post(base+fixtures.ControlPrefix+"/mutate", "application/json", strings.NewReader(string(body)))
		require.NoError(b, err)
		var res fixtures.AdsMutationResult
		err = json.NewDecoder(resp.Body).Decode(&res)
		_ = resp.Body.Close()
		require.NoError(b, err)
		require.Equal(b, http.StatusOK, resp.StatusCode)
		n += len(res.Changed)
	}
	return n
}

// benchHistory measures what the history costs BenchmarkSync's syncs
// (docs/history.md), each beside the same sync with the history's
// triggers disabled:
//   - sync_no_history: the fresh load without history, the baseline of
//     BenchmarkSync/sync (which writes no version: a new row is its
//     record's first version);
//   - resync_1pct: a full re-sync after 1% of the records changed in the
//     service (10 campaigns and 2 cards of each account), which writes one
//     past version per changed record (reported as versions, with
//     changed);
//   - resync_1pct_no_history: the same re-sync without history.
func benchHistory(b *testing.B, pool *pgxpool.Pool, deps *jobs.Deps, c *river.Client[pgx.Tx], cpu measure.CPU,
	fakeBase string, full jobs.SyncRunArgs, records int) {
	ctx := context.Background()
	report := func(b *testing.B, wall time.Duration, used cpuSpan) {
		b.ReportMetric(float64(records)/wall.Seconds(), "records/s")
		used.report(b, wall)
	}
	b.Run("sync_no_history", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			_, err := pool.Exec(ctx, `TRUNCATE campaigns, cards, accounts, sync_bookmarks`)
			require.NoError(b, err)
			setHistory(b, pool, full.Entities, false)
			b.StartTimer()
			c0, start := startCPU(cpu), time.Now()
			runSync(b, deps, c, full)
			settle(b, pool)
			report(b, time.Since(start), c0)
			b.StopTimer()
			setHistory(b, pool, full.Entities, true)
			b.StartTimer()
		}
	})
	for _, history := range []bool{true, false} {
		name := "resync_1pct"
		if !history {
			name += "_no_history"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				setHistory(b, pool, full.Entities, history)
				changed := mutateFake(b, fakeBase, map[string]int{"campaigns": 10, "cards": 2})
				before := pastVersions(b, pool, full.Entities)
				b.StartTimer()
				c0, start := startCPU(cpu), time.Now()
				id := runSync(b, deps, c, full)
				settle(b, pool)
				report(b, time.Since(start), c0)
				b.StopTimer()
				var written int
				require.NoError(b, pool.QueryRow(ctx, `SELECT sum(inserted + updated + deleted) FROM sync_run_units
WHERE run_id = $1 AND entity = ANY($2)`, id, full.Entities).Scan(&written))
				require.Equal(b, changed, written, "the re-sync writes the changed records")
				versions := pastVersions(b, pool, full.Entities) - before
				if history {
					require.Equal(b, changed, versions, "one past version per changed record")
				} else {
					require.Zero(b, versions)
				}
				b.ReportMetric(float64(versions), "versions")
				b.ReportMetric(float64(changed), "changed")
				setHistory(b, pool, full.Entities, true)
				b.StartTimer()
			}
		})
	}
}
