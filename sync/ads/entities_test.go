package ads

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRegistryNamesAreUniqueAndEndpointsMatchPaths(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, e := range Entities() {
		require.False(t, seen[e.Name], "entity %s listed twice", e.Name)
		seen[e.Name] = true
		require.True(t, strings.HasPrefix(e.Endpoint, "GET /"), e.Name)
		// The rate-limit key is the path with its parameters named.
		require.Equal(t, strings.Count(e.Path, "/"), strings.Count(strings.TrimPrefix(e.Endpoint, "GET "), "/"), e.Name)
		require.Equal(t, e.Scope == PerParent, strings.Contains(e.Path, "{parent_id}"), e.Name)
		require.Equal(t, e.Scope != Global, strings.Contains(e.Path, "{account_id}"), e.Name)
		cols := map[string]bool{}
		for _, c := range e.Columns {
			require.False(t, cols[c.Name], "%s.%s twice", e.Name, c.Name)
			require.NotContains(t, []string{"id", "account_id", "raw", "deleted", "doc_hash"}, c.Name, e.Name)
			cols[c.Name] = true
		}
	}
	require.Len(t, seen, 45)
}

func TestParseNamesRejectsUnknownNamesListingTheValidOnes(t *testing.T) {
	t.Parallel()
	got, err := ParseNames([]string{"campaigns", " posts ", "campaigns", ""})
	require.NoError(t, err)
	require.Equal(t, []string{"campaigns", "posts"}, got)
	_, err = ParseNames([]string{"campaign"})
	require.ErrorContains(t, err, `unknown entity "campaign"`)
	require.ErrorContains(t, err, "account_user_access, accounts, advertiser_business_categories")
}

func TestDocHashIgnoresKeyOrderAndSpacingButNotValues(t *testing.T) {
	t.Parallel()
	e, _ := Lookup("campaigns")
	u := &Unit{AccountID: "a1", Entity: e}
	a, err := stage(u, "", json.RawMessage(`{"id":"c1","name":"x","daily_budget_amount_local_micro":12000000000000000001,"updated_at":"2026-01-02T03:04:05Z","deleted":true}`))
	require.NoError(t, err)
	b, err := stage(u, "", json.RawMessage(`{ "deleted": true, "updated_at": "2026-01-02T03:04:05Z",
		"daily_budget_amount_local_micro": 12000000000000000001, "name": "x", "id": "c1" }`))
	require.NoError(t, err)
	require.Equal(t, a.DocHash, b.DocHash)
	require.Contains(t, string(a.Raw), "12000000000000000001", "large integers survive exactly")
	require.True(t, a.Deleted)
	require.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), *a.UpdatedAt)
	require.Nil(t, a.CreatedAt)
	c, err := stage(u, "", json.RawMessage(`{"id":"c1","name":"y","daily_budget_amount_local_micro":12000000000000000001,"updated_at":"2026-01-02T03:04:05Z","deleted":true}`))
	require.NoError(t, err)
	require.NotEqual(t, a.DocHash, c.DocHash)
}

func TestStageNamesWhatIsWrongWithARecord(t *testing.T) {
	t.Parallel()
	e, _ := Lookup("bidding_rules")
	u := &Unit{Entity: e}
	_, err := stage(u, "", json.RawMessage(`{"id":"x"}`))
	require.ErrorContains(t, err, "a record has no currency")
	_, err = stage(u, "", json.RawMessage(`[1]`))
	require.ErrorContains(t, err, "not a JSON object")
	// The page's split leaves records unvalidated: one that is not valid
	// JSON is refused as the page's decode refused it.
	for _, bad := range []string{`{"currency":"USD","x":01}`, "{\"currency\":\"US\x01D\"}", `{"currency":"USD"`, `[1,]`} {
		_, err = stage(u, "", json.RawMessage(bad))
		var syn *json.SyntaxError
		require.ErrorAs(t, err, &syn, bad)
		require.ErrorContains(t, err, e.Endpoint+": decoding the response: ", bad)
	}
}

func TestTargetedByEntriesAreKeyedByAudienceAndCampaign(t *testing.T) {
	t.Parallel()
	e, _ := Lookup("custom_audience_targeting")
	r, err := stage(&Unit{AccountID: "a1", Entity: e}, "aud9", json.RawMessage(`{"campaign_id":"c7","line_items":[]}`))
	require.NoError(t, err)
	require.Equal(t, "aud9/c7", r.ID)
	require.Equal(t, "aud9", r.ParentID)
}

func TestOnlyIncompleteListingsStopAtTheBookmark(t *testing.T) {
	t.Parallel()
	camp, _ := Lookup("campaigns")
	posts, _ := Lookup("posts")
	bm := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	inc := &Unit{Entity: camp, Bookmark: &bm, Overlap: time.Hour}
	at, ok := inc.stopAt()
	require.True(t, ok)
	require.Equal(t, bm.Add(-time.Hour), at)
	require.False(t, inc.Complete())
	for _, u := range []*Unit{{Entity: camp}, {Entity: camp, Bookmark: &bm, Full: true}, {Entity: posts, Bookmark: &bm}} {
		_, ok := u.stopAt()
		require.False(t, ok)
		require.True(t, u.Complete())
	}
}

func TestAScheduledPostShownDeletedIsStoredDeleted(t *testing.T) {
	t.Parallel()
	e, _ := Lookup("scheduled_posts")
	u := &Unit{AccountID: "a1", Entity: e}
	for status, deleted := range map[string]bool{"DELETED": true, "SCHEDULED": false, "SUCCESS": false} {
		r, err := stage(u, "", json.RawMessage(`{"id":"1","scheduled_status":"`+status+`","updated_at":"2026-01-02T03:04:05Z"}`))
		require.NoError(t, err)
		require.Equal(t, deleted, r.Deleted, status)
	}
	// Only the declared entity reads the field so: a campaign's is data.
	c, _ := Lookup("campaigns")
	r, err := stage(&Unit{AccountID: "a1", Entity: c}, "", json.RawMessage(`{"id":"1","scheduled_status":"DELETED"}`))
	require.NoError(t, err)
	require.False(t, r.Deleted)
}

// A TV show's key is a JSON number: its text is the row's id, and the typed
// column is a bigint, in Go as in SQL.
func TestOptionListKeysMayBeNumbers(t *testing.T) {
	t.Parallel()
	e, ok := Lookup("targeting_criteria_tv_shows")
	require.True(t, ok)
	require.True(t, e.Streamed())
	u := &Unit{Entity: e}
	r, err := stage(u, "en-US", json.RawMessage(`{"name":"Show","targeting_value":10004321,"genre":"Drama","locales":[{"language":"en","country":"US"}],"estimated_users":1000}`))
	require.NoError(t, err)
	require.Equal(t, "10004321", r.ID)
	require.Empty(t, r.ParentID, "a global list keeps no parent")
	vals, ok := typedValues(e, "en-US", r.Raw)
	require.True(t, ok)
	require.Equal(t, []any{"Show", int64(10004321), "Drama", json.RawMessage(`[{"country":"US","language":"en"}]`), int64(1000)}, plainValues(vals))
	m, _ := Lookup("targeting_criteria_tv_markets")
	r, err = stage(&Unit{Entity: m}, "", json.RawMessage(`{"name":"United States","country_code":"US","locale":"en-US"}`))
	require.NoError(t, err)
	require.Equal(t, "en-US", r.ID)
	for _, name := range []string{"targeting_criteria_app_store_categories", "targeting_criteria_platform_versions", "targeting_criteria_tv_markets"} {
		e, _ := Lookup(name)
		require.False(t, e.Streamed(), name)
	}
}
