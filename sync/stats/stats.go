package stats

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Pipeline is the sync_runs pipeline of analytics.
const Pipeline = "stats"

// Entity types (spec analytics.md, Common parameters).
const (
	EntityAccount           = "ACCOUNT"
	EntityFundingInstrument = "FUNDING_INSTRUMENT"
	EntityCampaign          = "CAMPAIGN"
	EntityLineItem          = "LINE_ITEM"
	EntityPromotedPost      = "PROMOTED_POST"
	EntityMediaCreative     = "MEDIA_CREATIVE"
	EntityPromotedAccount   = "PROMOTED_ACCOUNT"
	EntityOrganicPost       = "ORGANIC_POST"
)

// Entities are the entity types this pipeline pulls: those the active
// entities endpoint answers for (it takes neither ACCOUNT nor ORGANIC_POST,
// and asking for every id every day is what this pipeline exists to avoid).
var Entities = []string{EntityFundingInstrument, EntityCampaign, EntityLineItem, EntityPromotedPost,
	EntityMediaCreative, EntityPromotedAccount}

// DefaultEntities are what a warehouse user wants with no configuration.
var DefaultEntities = []string{EntityCampaign, EntityLineItem, EntityPromotedPost, EntityMediaCreative}

// Placements (one per request).
const (
	PlacementAllOnSvc         = "ALL_ON_SVC"
	PlacementPublisherNetwork = "PUBLISHER_NETWORK"
)

// Granularities this pipeline stores (TOTAL is a sum of DAY).
const (
	Day  = "DAY"
	Hour = "HOUR"
)

// Limits (spec analytics.md).
const (
	// MaxIDs is the most entity_ids one request takes.
	MaxIDs = 20
	// SyncMaxDays is the longest span of a synchronous request.
	SyncMaxDays = 7
	// SegmentedMaxDays is the longest span of a segmented job.
	SegmentedMaxDays = 45
	// ActiveMaxDays is the longest span of an active entities request.
	ActiveMaxDays = 90
)

// DefaultLookback is how far back every run re-pulls: spend and conversions
// change after the fact (billing for up to 3 days, conversions within the
// advertiser's attribution windows), and the most complete open-source
// puller re-pulls 14 days.
const DefaultLookback = 14 * 24 * time.Hour

// Settings are what a run pulls.
type Settings struct {
	// Entities are entity types (default DefaultEntities).
	Entities []string
	// MetricGroups are asked for every entity, each entity keeping those it
	// allows (default every group).
	MetricGroups []string
	// Granularity is DAY (default) or HOUR.
	Granularity string
	// Lookback is the trailing window of a run without an explicit span
	// (default DefaultLookback).
	Lookback time.Duration
	// Segmentations are pulled besides the unsegmented metrics, each a
	// segmentation_type (AGE, GENDER, DEVICES, ...) or TYPE:VALUE for the
	// types that need a country (REGIONS, METROS, POSTAL_CODES: the
	// country's location key as given, REGIONS:96683cc9126741d1 for the
	// United States) or a platform (PLATFORM_VERSIONS:1). Segmented
	// requests always go through asynchronous jobs.
	Segmentations []string
	// MaxBudgetShare is the most of the active entities endpoint's window
	// (ActiveBudget) one run may need: a run that needs more is refused
	// before its first request (CheckBudget). Above 1 a run may span
	// several windows. Default DefaultMaxBudgetShare.
	MaxBudgetShare float64
}

// Normalize applies the defaults and checks every field; errors name the
// setting.
func (s Settings) Normalize() (Settings, error) {
	out := s
	out.Entities = nil
	for _, e := range s.Entities {
		e = strings.ToUpper(strings.TrimSpace(e))
		if e == "" || slices.Contains(out.Entities, e) {
			continue
		}
		if !slices.Contains(Entities, e) {
			return out, fmt.Errorf("stats: entity %q: must be one of %s (ACCOUNT and ORGANIC_POST have no active entities)",
				e, strings.Join(Entities, ", "))
		}
		out.Entities = append(out.Entities, e)
	}
	if len(out.Entities) == 0 {
		out.Entities = slices.Clone(DefaultEntities)
	}
	out.MetricGroups = nil
	for _, g := range s.MetricGroups {
		g = strings.ToUpper(strings.TrimSpace(g))
		if g == "" || slices.Contains(out.MetricGroups, g) {
			continue
		}
		if !slices.Contains(Groups, g) {
			return out, fmt.Errorf("stats: metric group %q: must be one of %s", g, strings.Join(Groups, ", "))
		}
		out.MetricGroups = append(out.MetricGroups, g)
	}
	if len(out.MetricGroups) == 0 {
		out.MetricGroups = slices.Clone(Groups)
	}
	switch g := strings.ToUpper(strings.TrimSpace(s.Granularity)); g {
	case "":
		out.Granularity = Day
	case Day, Hour:
		out.Granularity = g
	default:
		return out, fmt.Errorf("stats: granularity %q: must be DAY or HOUR", s.Granularity)
	}
	out.Segmentations = nil
	for _, seg := range s.Segmentations {
		n, err := NormalizeSegmentation(seg)
		if err != nil {
			return out, err
		}
		if !slices.Contains(out.Segmentations, n) {
			out.Segmentations = append(out.Segmentations, n)
		}
	}
	if out.Lookback == 0 {
		out.Lookback = DefaultLookback
	}
	if out.Lookback < 0 {
		return out, fmt.Errorf("stats: lookback %s must be positive", out.Lookback)
	}
	if out.MaxBudgetShare == 0 {
		out.MaxBudgetShare = DefaultMaxBudgetShare
	}
	if out.MaxBudgetShare < 0 {
		return out, fmt.Errorf("stats: max_budget_share %g must be positive", out.MaxBudgetShare)
	}
	return out, nil
}

// groupsFor are the configured groups the entity allows, in catalogue order.
func (s Settings) groupsFor(entity string) []string {
	var out []string
	for _, g := range AllowedGroups(entity) {
		if slices.Contains(s.MetricGroups, g) {
			out = append(out, g)
		}
	}
	return out
}
