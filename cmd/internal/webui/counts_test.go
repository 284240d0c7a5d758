package webui

import (
	"encoding/json"
	"testing"

	"github.com/adsync/adsync/sync/store"
	"github.com/stretchr/testify/require"
)

// A run's counts read as a sentence in its pipeline's words, zeros left
// out; a shape the page does not know keeps the key=value form.
func TestRunCountsReadAsASentence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ pipeline, counts, want string }{
		{"sync", `{"campaigns": {"fetched": 55000, "inserted": 54907, "updated": 0, "unchanged": 93, "deleted": 190, "failed_units": 0},
            "cards": {"fetched": 590, "inserted": 590, "deleted": 3}, "inaccessible_accounts": ["x"]}`,
			"55,590 fetched: 55,497 new, 93 unchanged, 193 deleted"},
		{"sync", `{"campaigns": {"fetched": 2, "updated": 2, "units": 3, "failed_units": 1}}`, "2 fetched: 2 updated; 1 unit failed"},
		{"sync", `{"campaigns": {"fetched": 0, "units": 1}}`, "nothing fetched"},
		{"stats", `{"accounts": 3, "account_days": 45, "requests": 220, "jobs": 4, "rows": 12345, "rate_limited": 0}`,
			"12,345 rows from 220 requests, 4 jobs, 3 accounts"},
		{"export", `{"campaigns": 1200, "cards": 34, "ad_stats": 0}`, "1,234 rows exported from 3 tables"},
		{"audience", `{"rows_read": 10010, "rows_invalid": 10, "users": 10000, "adds": 9990, "deletes": 10, "batches": 4,
            "batches_done": 4}`, "10,000 users: 9,990 added, 10 deleted, 10 invalid rows; 4 of 4 batches sent"},
		{"insights", `{"sets": 2, "windows": 6, "requests": 6, "buckets": 120}`, "120 buckets in 6 windows, 2 keyword sets"},
		{"posts", `{"requested": 31, "found": 30, "not_found": 1, "media": 12, "users": 20, "requests": 1}`,
			"30 posts found of 31 asked for, 12 media, 20 users"},
		{"mcp", `{"calls": 3}`, "calls=3"},
		{"sync", `{}`, ""},
	} {
		r := store.RunSummary{Pipeline: tc.pipeline}
		require.NoError(t, json.Unmarshal([]byte(tc.counts), &r.Counts))
		require.Equal(t, tc.want, countsSentence(r), "%s %s", tc.pipeline, tc.counts)
	}
}
