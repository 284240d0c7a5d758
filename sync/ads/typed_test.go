package ads

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/migrations"
	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

// A new record copied straight into its table (typed columns computed in
// Go) is the row the merge makes of it (typed columns computed in SQL from
// raw); a record Go cannot type for sure is left to the merge.
func TestTypedColumnsFromGoEqualTheMergesSQL(t *testing.T) {
	ctx := context.Background()
	pool, err := store.Connect(ctx, localpg.NewDatabase(t), store.ConnectOptions{MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = migrations.Migrate(ctx, pool, nil)
	require.NoError(t, err)

	cases := []struct {
		entity, part, raw string
		typed             bool
	}{
		{"campaigns", "", `{"id":"c1","name":"Caf\u00e9 <x>","funding_instrument_id":"f1","daily_budget_amount_local_micro":12000000,
			"total_budget_amount_local_micro":null,"servable":true,"reasons_not_servable":["A","\u00e9",null,7,true],
			"standard_delivery":false,"duration_in_days":-3,"frequency_cap":0,"currency":"USD","entity_status":7,
			"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05.123456+02:00","deleted":false}`, true},
		{"campaigns", "", `{"id":"c2","reasons_not_servable":"not an array","purchase_order_number":true,"deleted":true}`, true},
		{"campaigns", "", `{"id":"c3","reasons_not_servable":[],"name":null,"servable":null}`, true},
		{"campaigns", "", `{"id":"c4","name":1.5}`, false},
		{"campaigns", "", `{"id":"c5","name":{"a":1}}`, false},
		{"campaigns", "", `{"id":"c6","daily_budget_amount_local_micro":"12"}`, false},
		{"campaigns", "", `{"id":"c7","reasons_not_servable":[1.0]}`, false},
		{"posts", "DRAFT", `{"id":"p1","post_type":"DRAFT","nullcast":true,"media_keys":["m1","m2"],"scheduled_at":"2026-03-04T05:06:07.5Z",
			"completed_at":null,"text":"line\nbreak \"quoted\" \u2028"}`, true},
		{"posts", "DRAFT", `{"id":"p2","scheduled_at":"2026-03-04T05:06:07.1234567Z"}`, false},
		{"posts", "DRAFT", `{"id":"p3","scheduled_at":"2026-03-04 05:06:07"}`, false},
		{"cards", "", `{"id":"k1","components":[{"type":"X","b":[1,2.50,{"z":null}]}],"slides":null,"card_type":"IMAGE"}`, true},
		{"custom_audience_targeting", "aud9", `{"campaign_id":"c7","campaign_name":"n","line_items":[{"id":"l1","name":"x"}]}`, true},
		{"line_item_placements", "", `{"product_type":"PROMOTED_TWEETS","placements":[["ALL_ON_TWITTER"],["TWITTER_SEARCH"]]}`, true},
		{"accounts", "", `{"id":"a1","name":"A","timezone_switch_at":"2026-01-01T00:00:00-05:30","approval_status":"ACCEPTED"}`, true},
		{"content_categories", "", `{"id":"cc1","publishers_in_last_thirty_days":9223372036854775807,"iab_categories":["IAB1"]}`, true},
		{"content_categories", "", `{"id":"cc2","publishers_in_last_thirty_days":9223372036854775808}`, false},
		// Keys whose escapes sort apart from their decoded bytes.
		{"campaigns", "", `{"id":"c8","name":"n","<":9,"\u2028":9,"aZ":1,"a<":2}`, true},
	}
	row := func(e *Entity, r *store.StagedRecord) string {
		q := `SELECT (to_jsonb(t) - 'first_seen_at' - 'last_synced_at')::text FROM ` + e.Name + ` t WHERE id = $1`
		var s string
		require.NoError(t, pool.QueryRow(ctx, q, r.ID).Scan(&s))
		return s
	}
	for _, tc := range cases {
		e, ok := Lookup(tc.entity)
		require.True(t, ok)
		u := &Unit{AccountID: "acct1", Entity: e}
		r, err := stage(u, tc.part, json.RawMessage(tc.raw))
		require.NoError(t, err, tc.raw)
		r.Typed, ok = typedValues(e, tc.part, r.Raw)
		require.Equal(t, tc.typed, ok, tc.raw)
		if !ok {
			continue
		}
		var viaGo, viaSQL string
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			n, _, ok, err := store.InsertNew(ctx, tx, e.Name, e.insertColumns(), []store.StagedRecord{r}, e.insertRow)
			require.True(t, ok)
			require.EqualValues(t, 1, n)
			return err
		}))
		viaGo = row(e, &r)
		_, err = pool.Exec(ctx, `DELETE FROM `+e.Name)
		require.NoError(t, err)
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			mc, err := store.MergePage(ctx, tx, e.MergeSQL(), []store.StagedRecord{r})
			require.EqualValues(t, 1, mc.Inserted)
			return err
		}))
		viaSQL = row(e, &r)
		require.JSONEq(t, viaSQL, viaGo, tc.raw)
		// A second insert of the same id is refused without harm.
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, _, ok, err := store.InsertNew(ctx, tx, e.Name, e.insertColumns(), []store.StagedRecord{r}, e.insertRow)
			require.False(t, ok)
			return err
		}))
		_, err = pool.Exec(ctx, `DELETE FROM `+e.Name)
		require.NoError(t, err)
	}
}

// typedValues is typedValuesInto of a canonical record raw (staged), with
// its members as canonicalizing it lists them and an arena of its own.
func typedValues(e *Entity, part string, raw []byte) ([]any, bool) {
	var c canonicalizer
	canon, err := c.canonical(raw, e.Key())
	if err != nil || !bytes.Equal(canon, raw) {
		panic(fmt.Sprintf("typedValues: not a staged record: %s", raw))
	}
	return typedValuesInto(e, part, canon, c.top, newTypedArena(e, 1))
}

// plainValues are typed values as plain Go values, not boxed as pointers
// into their arena: what a test compares.
func plainValues(vals []any) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case *store.TextBytes:
			out[i] = string(*v)
		case *int64:
			out[i] = *v
		case *time.Time:
			out[i] = *v
		case *json.RawMessage:
			out[i] = *v
		case *string:
			out[i] = *v
		default:
			out[i] = v
		}
	}
	return out
}
