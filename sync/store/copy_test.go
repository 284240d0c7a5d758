package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// InsertNew encodes the values of the types the entity tables hold itself
// (see copyBinary): what it stores must equal what pgx's CopyFrom stores
// from the same values, NULLs, empty arrays, escapes, sub-microseconds and
// values it leaves to pgx (an int32, a numeric) included.
func TestInsertNewStoresEveryValueAsPgxCopyFromDoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := synctest.Pool(t, synctest.MigratedDatabase(t))
	const cols = `(id text PRIMARY KEY, v varchar, n bigint, i integer, b boolean, ts timestamptz, j jsonb, arr text[], num numeric)`
	_, err := pool.Exec(ctx, `CREATE TABLE by_pgx `+cols+`; CREATE TABLE by_insert_new `+cols)
	require.NoError(t, err)
	columns := []string{"id", "v", "n", "i", "b", "ts", "j", "arr", "num"}
	s := func(v string) *string { return &v }
	at := time.Date(2026, 3, 1, 23, 59, 58, 123456789, time.FixedZone("", -5*3600))
	early := time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC)
	var nilTime *time.Time
	raw, nilRaw := json.RawMessage(`{"p":"\u00e9"}`), json.RawMessage(nil)
	rows := [][]any{
		{"plain", "ascii", int64(42), int32(7), true, at, json.RawMessage(`{"a":[1,2.5,"é\u2028"],"b":null}`), []*string{s("x"), nil, s("é,\"{}")}, "12.50"},
		{"nulls", nil, nil, nil, nil, nil, nil, nil, nil},
		{"typed nils", (*string)(nil), nil, nil, false, nilTime, json.RawMessage(nil), []*string(nil), nil},
		{"empties", "", int64(-9223372036854775808), int32(-1), false, &early, json.RawMessage(`[]`), []*string{}, "0"},
		{"pointers", s("by pointer"), int64(1), int32(1), true, &at, &raw, []*string{s("y")}, "1"},
		{"nil pointers", (*string)(nil), nil, nil, true, nilTime, &nilRaw, nil, nil},
		{"é \\ \t\n", "naïve", int64(0), int32(0), true, &at, json.RawMessage(`"s"`), []*string{s("")}, "-0.001"},
	}
	_, err = pool.CopyFrom(ctx, pgx.Identifier{"by_pgx"}, columns, pgx.CopyFromRows(rows))
	require.NoError(t, err)
	recs := make([]store.StagedRecord, len(rows))
	for i := range recs {
		recs[i].ID = fmt.Sprint(i)
	}
	var inserted int64
	var ok bool
	tx(t, pool, func(tx pgx.Tx) error {
		inserted, _, ok, err = store.InsertNew(ctx, tx, "by_insert_new", columns, recs, func(r *store.StagedRecord, vals []any) []any {
			var i int
			_, _ = fmt.Sscan(r.ID, &i)
			return append(vals, rows[i]...)
		})
		return err
	})
	require.True(t, ok)
	require.EqualValues(t, len(rows), inserted)
	read := func(table string) []string {
		r, err := pool.Query(ctx, `SELECT t::text FROM `+table+` t ORDER BY id`)
		require.NoError(t, err)
		out, err := pgx.CollectRows(r, pgx.RowTo[string])
		require.NoError(t, err)
		return out
	}
	require.Equal(t, read("by_pgx"), read("by_insert_new"))
	require.Len(t, read("by_pgx"), len(rows))
}
