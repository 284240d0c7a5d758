package export

import (
	"strings"
	"testing"

	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/sync/ads"
	"github.com/stretchr/testify/require"
)

func TestTheDocsQueryAndKeysAreTheExportsOwn(t *testing.T) {
	t.Parallel()
	q, err := exporttest.ParseExportDoc()
	require.NoError(t, err)
	want := map[string]string{}
	for _, tb := range Tables() {
		if tb.Name != testItems.Name {
			want[tb.Name] = strings.Join(tb.Key, ", ")
		}
	}
	require.Equal(t, want, q.Keys, "docs/export.md lists every table with its key")
	for _, e := range ads.Entities() {
		require.Equal(t, e.Refresh(), q.Refresh[e.Name], "docs/export.md says how %s is refreshed as its declaration does", e.Name)
	}
	for _, tb := range Tables() {
		if tb.Name == testItems.Name {
			continue
		}
		got, err := q.For(tb.Name, "out")
		require.NoError(t, err)
		require.Equal(t, tb.LatestQuery("out"), strings.Join(strings.Fields(got), " "), tb.Name)
	}
}
