package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/export"
	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// TestEveryEntityTableReadBackByDuckDBEqualsPostgres syncs every entity
// after changes in the service, exports every entity table and reads each
// back with DuckDB: every row and every column equals Postgres, value for
// value (timestamps to the millisecond, the Parquet precision).
func TestEveryEntityTableReadBackByDuckDBEqualsPostgres(t *testing.T) {
	t.Parallel()
	// A location list of 2,000 entries, not the service's 50,000: exported
	// in one row group either way, its size taught this test nothing and
	// cost most of its rows.
	b := setupSync(t, func(o *fixtures.Options) { o.Accounts, o.Locations = 2, 2000 }, nil)
	ctx := context.Background()
	r := b.run(t, jobs.SyncRunArgs{Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	for _, kind := range []string{"line_items", "targeting_criteria", "promotable_users", "app_event_tags", "web_event_tags"} {
		_, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: kind, Add: 2, Change: 2, Delete: 1})
		require.NoError(t, err, kind)
	}
	r = b.run(t, jobs.SyncRunArgs{})
	require.Equal(t, "succeeded", r.Outcome, r.Error)

	byName := map[string]export.Table{}
	for _, tb := range export.Tables() {
		byName[tb.Name] = tb
	}
	var names []string
	for _, e := range ads.Entities() {
		names = append(names, e.Name, e.History())
	}
	out := t.TempDir()
	res, err := export.Run(ctx, b.pool, export.Options{Out: out, Tables: names})
	require.NoError(t, err)
	require.Len(t, res.Tables, len(names))
	queries := map[string]string{}
	for _, n := range names {
		queries[n] = duckRowsQuery(byName[n], filepath.Join(out, n))
	}
	d := exporttest.Duck(t, nil, queries)
	for _, n := range names {
		want := postgresRows(t, b.pool, byName[n])
		require.NotEmpty(t, want, "%s has rows", n)
		var got []string
		if v := d.Queries[n][0]["rows"]; v != nil {
			for _, s := range v.([]any) {
				got = append(got, s.(string))
			}
		}
		require.Len(t, got, len(want), "DuckDB reads as many %s rows as Postgres holds", n)
		for i := range want {
			var w, g any
			require.NoError(t, json.Unmarshal([]byte(want[i]), &w))
			require.NoError(t, json.Unmarshal([]byte(got[i]), &g))
			require.Equal(t, w, g, "%s row %d", n, i)
		}
	}
}

// duckRowsQuery reads an exported table's rows as JSON objects, in key
// order, with each kind in a form Postgres can give too.
func duckRowsQuery(tb export.Table, dir string) string {
	var fields []string
	for _, c := range tb.Columns {
		v := quoteDuck(c.Name)
		switch c.Kind {
		case export.Timestamp:
			v = "epoch_ms(" + v + ")::VARCHAR"
		case export.Int64:
			v += "::VARCHAR"
		case export.JSON:
			v = "json(" + v + ")"
		}
		fields = append(fields, fmt.Sprintf("'%s': %s", c.Name, v))
	}
	return fmt.Sprintf("SELECT list(to_json({%s})::VARCHAR ORDER BY %s) AS rows FROM read_parquet('%s/*/*.parquet')",
		strings.Join(fields, ", "), strings.Join(tb.Key, ", "), dir)
}

// postgresRows is duckRowsQuery's answer computed from Postgres.
func postgresRows(t *testing.T, pool *pgxpool.Pool, tb export.Table) []string {
	t.Helper()
	var fields []string
	for _, c := range tb.Columns {
		v := c.SQL
		if v == "" {
			v = c.Name
		}
		switch c.Kind {
		case export.Timestamp:
			v = "(floor(extract(epoch FROM " + v + ") * 1000))::bigint::text"
		case export.Int64:
			v += "::text"
		case export.StringList:
			v = "coalesce(to_jsonb(" + v + "), '[]'::jsonb)"
		}
		fields = append(fields, fmt.Sprintf("'%s', %s", c.Name, v))
	}
	kinds := map[string]export.Kind{}
	for _, c := range tb.Columns {
		kinds[c.Name] = c.Kind
	}
	var order []string
	for _, k := range tb.Key {
		if kinds[k] == export.String {
			k += ` COLLATE "C"` // DuckDB's order
		}
		order = append(order, k)
	}
	rows, err := pool.Query(context.Background(), fmt.Sprintf("SELECT jsonb_build_object(%s)::text FROM %s ORDER BY %s",
		strings.Join(fields, ", "), tb.From, strings.Join(order, ", ")))
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

func quoteDuck(name string) string { return `"` + name + `"` }
