package export

import (
	"slices"
	"strings"
	"testing"

	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/posts"
	"github.com/stretchr/testify/require"
)

func TestTheDocsQueryAndKeysAreTheExportsOwn(t *testing.T) {
	t.Parallel()
	q, err := exporttest.ParseExportDoc()
	require.NoError(t, err)
	want := map[string]string{}
	for _, tb := range Tables() {
		if tb.Name != testItems.Name && histories[tb.Name] == "" {
			want[tb.Name] = strings.Join(tb.Key, ", ")
		}
	}
	require.Equal(t, want, q.Keys, "docs/export.md lists every table with its key")
	for _, e := range ads.Entities() {
		require.Equal(t, e.Refresh(), q.Refresh[e.Name], "docs/export.md says how %s is refreshed as its declaration does", e.Name)
	}
	for _, tb := range Tables() {
		if tb.Name == testItems.Name || histories[tb.Name] != "" {
			continue
		}
		got, err := q.For(tb.Name, "out")
		require.NoError(t, err)
		require.Equal(t, tb.LatestQuery("out"), strings.Join(strings.Fields(got), " "), tb.Name)
	}
}

// histories are the histories of the entity tables and of the v2 tables
// (view name to table name), which docs/history.md documents (see
// TestTheHistoryDocsQueryAndKeysAreTheExportsOwn).
var histories = func() map[string]string {
	out := map[string]string{}
	for _, e := range ads.Entities() {
		out[e.History()] = e.Name
	}
	for _, h := range posts.Histories() {
		out[h.View()] = h.Table
	}
	return out
}()

func TestTheHistoryDocsQueryAndKeysAreTheExportsOwn(t *testing.T) {
	t.Parallel()
	q, err := exporttest.ParseDoc("docs/history.md")
	require.NoError(t, err)
	require.NotEmpty(t, histories[q.Example], "the doc's query reads a history")
	for view, table := range histories {
		tb, ok := registry[view]
		require.True(t, ok, "%s is exported", view)
		// The doc's rule: a history's key is its table's and valid_from.
		require.Equal(t, append(slices.Clone(registry[table].Key), "valid_from"), tb.Key, tb.Name)
		q.Keys = map[string]string{tb.Name: strings.Join(tb.Key, ", ")}
		got, err := q.For(tb.Name, "out")
		require.NoError(t, err)
		require.Equal(t, tb.LatestQuery("out"), strings.Join(strings.Fields(got), " "), tb.Name)
	}
}
