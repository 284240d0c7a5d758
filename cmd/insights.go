package adsynccmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/insights"
	"github.com/spf13/cobra"
)

// insightsCommand is the parent of the keyword insights commands.
func (a *app) insightsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "insights", Short: "Look up keyword insights"}
	cmd.AddCommand(a.insightsKeywordsCommand())
	return cmd
}

func (a *app) insightsKeywordsCommand() *cobra.Command {
	var (
		kw, neg                     []string
		start, end, gran, loc, name string
	)
	cmd := &cobra.Command{
		Use:   "keywords",
		Short: "Fetch keyword insights once, print them and store them",
		Long: `Fetch the post volume and related keywords of --keywords (OR-ed) without the
--negative keywords, from --start to --end (default now), print one table per window and
request, and store them like the scheduled insights pipeline does (set name --name).
Times are UTC, as RFC 3339 or 2006-01-02[T15:04[:05]]; --start is rounded down to the
UTC hour (HOUR) or midnight (DAY). Ranges over 7 days are split into 7-day windows, and
more than 10 keywords and negatives into several requests, each with every negative.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, from, to, err := keywordsLookup(kw, neg, start, end, gran, loc, name)
			if err != nil {
				return err
			}
			deps, err := a.pipeline(cmd.Context())
			if err != nil {
				return err
			}
			return insights.Lookup(cmd.Context(), deps.API, deps.Pool, set, from, to, a.stdout)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&kw, "keywords", nil, "keywords, comma-separated (OR-ed)")
	f.StringSliceVar(&neg, "negative", nil, "negative keywords, comma-separated")
	f.StringVar(&start, "start", "", "start time (UTC)")
	f.StringVar(&end, "end", "", "end time (UTC; default now)")
	f.StringVar(&gran, "granularity", insights.Day, "DAY or HOUR")
	f.StringVar(&loc, "location", "", "one country-level targeting value (default worldwide)")
	f.StringVar(&name, "name", "", "set name the result is stored under (default adhoc:KEYWORDS)")
	return cmd
}

// keywordsLookup checks insights keywords' flags and returns the set and
// span they ask for; --end defaults to now and --name to adhoc:KEYWORDS.
func keywordsLookup(kw, neg []string, start, end, gran, loc, name string) (set insights.KeywordSet, from, to time.Time, err error) {
	if len(kw) == 0 {
		return set, from, to, usageError("insights keywords: --keywords is required")
	}
	if start == "" {
		return set, from, to, usageError("insights keywords: --start is required")
	}
	if from, err = parseUTC(start); err != nil {
		return set, from, to, usageError("insights keywords: --start: %v", err)
	}
	to = time.Now().UTC()
	if end != "" {
		if to, err = parseUTC(end); err != nil {
			return set, from, to, usageError("insights keywords: --end: %v", err)
		}
	}
	if name == "" {
		name = "adhoc:" + strings.Join(kw, ",")
	}
	set = insights.KeywordSet{Name: name, Keywords: kw, NegativeKeywords: neg, Location: loc, Granularity: gran}
	plans, err := insights.PlanSets([]insights.KeywordSet{set})
	if err != nil {
		return set, from, to, usageError("insights keywords: %v", err)
	}
	if _, err := insights.Windows(from, to, plans[0].Set.Step()); err != nil {
		return set, from, to, usageError("insights keywords: %v", err)
	}
	return set, from, to, nil
}

// parseUTC reads a time as RFC 3339 or a UTC date with an optional time.
func parseUTC(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (want RFC 3339 or 2006-01-02[T15:04[:05]], UTC)", s)
}

// insightsSettings are the configured keyword sets for the workers.
func (a *app) insightsSettings() jobs.InsightsSettings {
	return jobs.InsightsSettings{Sets: a.cfg.Insights.Sets(), Lookback: time.Duration(a.cfg.Insights.Lookback)}
}
