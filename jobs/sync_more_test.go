package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/ads"
	"github.com/stretchr/testify/require"
)

// moreTables are the tables of spec targeting-and-more.md with their fake
// kind, and the line items whose columns it widened.
var moreTables = map[string]string{
	"promotable_users": "promotable_users", "scheduled_promoted_posts": "scheduled_promoted_posts",
	"preroll_call_to_actions": "preroll_call_to_actions", "web_event_tags": "web_event_tags",
	"app_event_tags": "app_event_tags", "scheduled_posts": "posts_scheduled", "draft_posts": "posts_draft",
	"media_library": "media_library", "line_items": "line_items", "promoted_posts": "promoted_posts",
}

// storedColumns reads one row's typed columns as JSON values, timestamps in
// the service's format, so they compare with the record's fields.
func storedColumns(t *testing.T, b *syncBundle, e *ads.Entity, acct, id string) map[string]any {
	t.Helper()
	var sel []string
	for _, c := range e.LiveColumns() {
		v := c.Name
		if c.Type == ads.Timestamptz {
			v = fmt.Sprintf(`to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`, c.Name)
		}
		sel = append(sel, fmt.Sprintf("'%s', %s", c.Name, v))
	}
	var raw []byte
	q := fmt.Sprintf(`SELECT jsonb_build_object(%s) FROM %s WHERE account_id = $1 AND id = $2`, joinComma(sel), e.Name)
	require.NoError(t, b.pool.QueryRow(context.Background(), q, acct, id).Scan(&raw), "%s %s", e.Name, id)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// requireColumnsEqualRecord checks every typed column of a stored record
// against the fake's record as its single GET shows it.
func requireColumnsEqualRecord(t *testing.T, b *syncBundle, table, acct, id string) {
	t.Helper()
	e, ok := ads.Lookup(table)
	require.True(t, ok, table)
	rec, ok := b.fake.Srv.AdsRecord(acct, table, id)
	require.True(t, ok, "%s %s in the fake", table, id)
	got := storedColumns(t, b, e, acct, id)
	for _, c := range e.LiveColumns() {
		want := rec[c.Name]
		if xs, ok := want.([]any); ok && len(xs) == 0 {
			want = []any{} // an empty array stays an empty array
		}
		require.Equal(t, want, got[c.Name], "%s %s column %s", table, id, c.Name)
	}
	var deleted bool
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`SELECT deleted FROM `+table+` WHERE account_id = $1 AND id = $2`, acct, id).Scan(&deleted))
	if d, ok := rec["deleted"].(bool); ok {
		require.Equal(t, d, deleted, "%s %s deleted", table, id)
	}
	if table == "scheduled_posts" {
		require.Equal(t, rec["scheduled_status"] == "DELETED", deleted, "%s %s deleted", table, id)
	}
}

// requireMoreTablesMatchTruth compares live and deleted counts per account;
// gone counts records the service removed for good (draft posts) or stops
// listing (deleted media items) that the sweep tombstoned.
func requireMoreTablesMatchTruth(t *testing.T, b *syncBundle, gone map[string]map[string]int) {
	t.Helper()
	truth := b.fake.Srv.AdsTruth()
	for table, kind := range moreTables {
		got := tableCounts(t, b.pool, table)
		for acct, per := range truth.Accounts {
			want := [2]int{per[kind].Live, per[kind].Deleted}
			if table == "media_library" {
				want[1] = 0
			}
			want[1] += gone[table][acct]
			if want == [2]int{} {
				continue
			}
			require.Equal(t, want, got[acct], "%s of account %s (live, deleted)", table, acct)
		}
	}
}

func TestTargetingAndMoreTablesEqualTheFakeFullyThenIncrementally(t *testing.T) {
	t.Parallel()
	b := setupSync(t, nil, nil)
	r := b.run(t, jobs.SyncRunArgs{Full: true})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	requireMoreTablesMatchTruth(t, b, nil)
	truth := b.fake.Srv.AdsTruth()
	var acct string
	for id, per := range truth.Accounts {
		if per["line_items"].Live > 0 && (acct == "" || id < acct) {
			acct = id
		}
	}
	for table, kind := range moreTables {
		kt := truth.Accounts[acct][kind]
		require.Positive(t, kt.Live, table)
		for _, id := range append(slices.Clone(kt.IDs), kt.DeletedIDs...) {
			if table == "media_library" && slices.Contains(kt.DeletedIDs, id) {
				continue // never listed
			}
			requireColumnsEqualRecord(t, b, table, acct, id)
		}
	}

	gone := map[string]map[string]int{}
	changed := map[string]fixtures.AdsMutationResult{}
	for table, kind := range moreTables {
		res, err := b.fake.Srv.AdsMutate(fixtures.AdsMutation{Kind: kind, Add: 2, Change: 1, Delete: 1})
		require.NoError(t, err, kind)
		changed[table] = res
		if table == "draft_posts" || table == "media_library" {
			gone[table] = map[string]int{}
			for a, ids := range res.ByAccount {
				gone[table][a] = len(ids["deleted"])
			}
		}
	}
	r = b.run(t, jobs.SyncRunArgs{})
	require.Equal(t, "succeeded", r.Outcome, r.Error)
	requireMoreTablesMatchTruth(t, b, gone)
	for table, res := range changed {
		ids := res.ByAccount[acct]
		for _, id := range append(append(slices.Clone(ids["added"]), ids["changed"]...), ids["deleted"]...) {
			if (table == "draft_posts" || table == "media_library") && slices.Contains(ids["deleted"], id) {
				var deleted bool
				require.NoError(t, b.pool.QueryRow(context.Background(),
					`SELECT deleted FROM `+table+` WHERE account_id = $1 AND id = $2`, acct, id).Scan(&deleted))
				require.True(t, deleted, "%s %s is a tombstone", table, id)
				continue
			}
			requireColumnsEqualRecord(t, b, table, acct, id)
		}
	}
}
