package main

import (
	"context"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// truthKinds maps entity tables to the fake's kinds.
var truthKinds = map[string][]string{
	"funding_instruments": {"funding_instruments"}, "campaigns": {"campaigns"}, "line_items": {"line_items"},
	"cards": {"cards"}, "cards_poll": {"cards_poll"}, "cards_image_conversation": {"cards_image_conversation"},
	"cards_video_conversation": {"cards_video_conversation"}, "account_media": {"account_media"},
	"media_creatives": {"media_creatives"}, "promoted_accounts": {"promoted_accounts"},
	"promoted_posts": {"promoted_posts"}, "tracking_tags": {"tracking_tags"},
	"posts":            {"posts_draft", "posts_published", "posts_scheduled"},
	"custom_audiences": {"custom_audiences"},
}

// requireEntitiesMatchTruth checks that every entity of the fake is stored
// exactly once (its id, per account) with its deleted flag, and nothing else.
func (e *env) requireEntitiesMatchTruth(t *testing.T) {
	t.Helper()
	requireEntitiesMatch(t, e.pool, e.srv.AdsTruth())
}

// requireEntitiesMatch checks that the database of pool holds every entity
// of truth exactly once (its id, per account) with its deleted flag, and
// nothing else.
func requireEntitiesMatch(t *testing.T, pool *pgxpool.Pool, truth fixtures.AdsTruth) {
	t.Helper()
	requireTablesMatch(t, pool, truth, slices.Collect(maps.Keys(truthKinds))...)
}

// requireTablesMatch is requireEntitiesMatch for some tables only.
func requireTablesMatch(t testing.TB, pool *pgxpool.Pool, truth fixtures.AdsTruth, tables ...string) {
	t.Helper()
	ctx := context.Background()
	for _, table := range tables {
		kinds := truthKinds[table]
		require.NotEmpty(t, kinds, "table %s has no kinds in truthKinds", table)
		for acct, per := range truth.Accounts {
			var want, wantDeleted []string
			for _, k := range kinds {
				want = append(want, per[k].IDs...)
				wantDeleted = append(wantDeleted, per[k].DeletedIDs...)
			}
			rows, err := pool.Query(ctx, `SELECT id, deleted FROM `+table+` WHERE account_id = $1`, acct)
			require.NoError(t, err)
			var got, gotDeleted []string
			for rows.Next() {
				var id string
				var deleted bool
				require.NoError(t, rows.Scan(&id, &deleted))
				if deleted {
					gotDeleted = append(gotDeleted, id)
				} else {
					got = append(got, id)
				}
			}
			rows.Close()
			sort.Strings(want)
			sort.Strings(got)
			sort.Strings(wantDeleted)
			sort.Strings(gotDeleted)
			require.Equal(t, nonNil(want), nonNil(got), "%s of account %s: live ids", table, acct)
			require.Equal(t, nonNil(wantDeleted), nonNil(gotDeleted), "%s of account %s: tombstones", table, acct)
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
