package config

import (
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/sync/insights"
	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

func noEnv(string) string { return "" }

func TestInsightsAndPostsSectionsDecode(t *testing.T) {
	t.Parallel()
	file := writeFile(t, `insights:
  lookback: 72h
  keyword_sets:
    - name: coffee
      keywords: [coffee, espresso]
      negative_keywords: [decaf]
      location: US
      granularity: HOUR
    - name: tea
      keywords: [tea]
posts:
  ids: ["1600000000000000001", "1600000000000000002"]
`)
	cfg, err := Load(Source{File: file, Getenv: noEnv})
	require.NoError(t, err)
	require.Equal(t, Duration(72*time.Hour), cfg.Insights.Lookback)
	require.Equal(t, []insights.KeywordSet{
		{Name: "coffee", Keywords: []string{"coffee", "espresso"}, NegativeKeywords: []string{"decaf"}, Location: "US", Granularity: "HOUR"},
		{Name: "tea", Keywords: []string{"tea"}},
	}, cfg.Insights.Sets())
	require.Equal(t, []string{"1600000000000000001", "1600000000000000002"}, cfg.Posts.IDs)
}

func TestInsightsLookbackDefaultsToSevenDays(t *testing.T) {
	t.Parallel()
	cfg, err := Load(Source{Getenv: noEnv})
	require.NoError(t, err)
	require.Equal(t, Duration(7*24*time.Hour), cfg.Insights.Lookback)
	require.Empty(t, cfg.Insights.KeywordSets)
	require.Empty(t, cfg.Posts.IDs)
}

func TestBadInsightsAndPostsSettingsNameTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, want string }{
		{"insights:\n  lookback: 0s\n", "insights.lookback: must be positive"},
		{"insights:\n  lookback: 10m\n", "insights.lookback: 10m0s is shorter than one hour"},
		{"insights:\n  keyword_sets:\n    - name: a\n      keywords: [x]\n      granularity: WEEK\n",
			`insights.keyword_sets[0]: keyword set "a": granularity "WEEK": must be DAY or HOUR`},
		{"insights:\n  keyword_sets:\n    - name: a\n      keywords: [x]\n    - name: a\n      keywords: [y]\n",
			`insights.keyword_sets[1]: name "a" is already used by insights.keyword_sets[0]`},
		{"insights:\n  keyword_sets:\n    - keywords: [x]\n", "insights.keyword_sets[0]: keyword set: name is empty"},
		{"insights:\n  keyword_sets:\n    - name: neg\n      keywords: [x]\n      negative_keywords: [a, b, c, d, e, f, g, h, i, j]\n",
			`insights.keyword_sets[0]: keyword set rejected: keyword set "neg" has 10 negative keywords`},
		{"posts:\n  ids: [\"123\", \"abc\"]\n", `posts.ids: post id "abc" (position 2): want 1 to 19 digits`},
	} {
		_, err := Load(Source{File: writeFile(t, tc.yaml), Getenv: noEnv})
		require.ErrorContains(t, err, tc.want, tc.yaml)
	}
}

func TestBadStatsSettingsNameTheSettingOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, want string }{
		{"stats:\n  granularity: WEEK\n", `stats: granularity "WEEK": must be DAY or HOUR`},
		{"stats:\n  entities: [nope]\n", `stats: entity "NOPE": must be one of `},
		{"stats:\n  segmentations: [AGES]\n", `stats: segmentation "AGES": unknown segmentation_type AGES`},
	} {
		_, err := Load(Source{File: writeFile(t, tc.yaml), Getenv: noEnv})
		require.Error(t, err, tc.yaml)
		require.True(t, strings.HasPrefix(err.Error(), tc.want), "%s: %v", tc.yaml, err)
	}
}

func TestUnknownKeyInAKeywordSetIsAnError(t *testing.T) {
	t.Parallel()
	_, err := Load(Source{File: writeFile(t, "insights:\n  keyword_sets:\n    - name: a\n      keyword: [x]\n"), Getenv: noEnv})
	require.ErrorContains(t, err, `unknown key "keyword"`)
}

// stats.max_budget_share defaults to sync/stats' share, is what the runs
// get, and must be positive.
func TestStatsMaxBudgetShareDefaultsToHalfTheWindowAndMustBePositive(t *testing.T) {
	t.Parallel()
	cfg, err := Load(Source{Getenv: noEnv})
	require.NoError(t, err)
	require.Equal(t, stats.DefaultMaxBudgetShare, cfg.Stats.Settings().MaxBudgetShare)
	entries, err := cfg.Entries()
	require.NoError(t, err)
	require.Contains(t, entries, Entry{Key: "stats.max_budget_share", Value: "0.5", Origin: "default"})

	cfg, err = Load(Source{File: writeFile(t, "stats:\n  max_budget_share: 0.8\n"), Getenv: noEnv})
	require.NoError(t, err)
	require.Equal(t, 0.8, cfg.Stats.Settings().MaxBudgetShare)

	for _, v := range []string{"0", "-0.5"} {
		_, err := Load(Source{File: writeFile(t, "stats:\n  max_budget_share: "+v+"\n"), Getenv: noEnv})
		require.ErrorContains(t, err, "stats.max_budget_share: "+v+" must be positive", v)
	}
}
