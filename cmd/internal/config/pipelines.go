package config

import (
	"fmt"
	"time"

	"github.com/adsync/adsync/sync/insights"
	"github.com/adsync/adsync/sync/posts"
	"github.com/adsync/adsync/sync/stats"
)

// withPipelineDefaults sets the insights and posts defaults.
func (c Config) withPipelineDefaults() Config {
	c.Insights.Lookback = Duration(7 * 24 * time.Hour)
	c.Stats.Lookback = Duration(stats.DefaultLookback)
	c.Stats.Granularity = stats.Day
	c.Stats.MaxBudgetShare = stats.DefaultMaxBudgetShare
	return c
}

// Sets converts the configured sets to the insights package's type.
func (i Insights) Sets() []insights.KeywordSet {
	out := make([]insights.KeywordSet, len(i.KeywordSets))
	for n, s := range i.KeywordSets {
		out[n] = insights.KeywordSet{Name: s.Name, Keywords: s.Keywords, NegativeKeywords: s.NegativeKeywords,
			Location: s.Location, Granularity: s.Granularity}
	}
	return out
}

// Effective returns c with the defaults a pipeline applies to an empty
// setting filled in, so people see what runs rather than an empty list:
// the analytics entities and metric groups (sync/stats is their one
// source), and the audiences' mode and max_delete. The configuration was
// validated at load; a section that would not normalize is left as it is.
func (c Config) Effective() Config {
	if s, err := c.Stats.Settings().Normalize(); err == nil {
		c.Stats.Entities, c.Stats.MetricGroups = s.Entities, s.MetricGroups
	}
	c.Audiences = effectiveAudiences(c.Audiences)
	return c
}

// Settings converts the section to the stats package's type.
func (s Stats) Settings() stats.Settings {
	return stats.Settings{Entities: s.Entities, MetricGroups: s.MetricGroups, Granularity: s.Granularity,
		Lookback: time.Duration(s.Lookback), Segmentations: s.Segmentations, MaxBudgetShare: s.MaxBudgetShare}
}

// validatePipelines checks the insights and posts sections with the rules
// the pipelines apply, so a bad set stops a worker at start rather than at
// its first scheduled run.
func (c Config) validatePipelines() error {
	if c.Insights.Lookback <= 0 {
		return fmt.Errorf("insights.lookback: must be positive")
	}
	if time.Duration(c.Insights.Lookback) < time.Hour {
		return fmt.Errorf("insights.lookback: %s is shorter than one hour", time.Duration(c.Insights.Lookback))
	}
	names := map[string]int{}
	for i, s := range c.Insights.Sets() {
		ns, err := s.Normalize()
		if err == nil {
			_, err = ns.Groups()
		}
		if err != nil {
			return fmt.Errorf("insights.keyword_sets[%d]: %w", i, err)
		}
		if j, dup := names[ns.Name]; dup {
			return fmt.Errorf("insights.keyword_sets[%d]: name %q is already used by insights.keyword_sets[%d]", i, ns.Name, j)
		}
		names[ns.Name] = i
	}
	if c.Stats.MaxBudgetShare <= 0 {
		return fmt.Errorf("stats.max_budget_share: %g must be positive: it is the share of the active entities endpoint's window (%d requests per %s) one run may need",
			c.Stats.MaxBudgetShare, stats.ActiveBudget.Limit, stats.ActiveBudget.Window)
	}
	if _, err := c.Stats.Settings().Normalize(); err != nil {
		return err // it names the setting: "stats: granularity ..."
	}
	if time.Duration(c.Stats.Lookback) < 24*time.Hour {
		return fmt.Errorf("stats.lookback: %s is shorter than one day", time.Duration(c.Stats.Lookback))
	}
	if _, err := posts.CheckIDs(c.Posts.IDs); err != nil {
		return fmt.Errorf("posts.ids: %w", err)
	}
	return c.validateAudiences()
}
