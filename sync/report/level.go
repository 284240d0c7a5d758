package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsync/adsync/sync/stats"
)

// Level is one report level: whose rows it reads and how they get their
// names and currency. Its SQL reads the level's base rows as b (see
// Base) and the account as a.
type Level struct {
	// Name is the level as adsync report takes it: campaign, line_item, ...
	Name string
	// Entity is the ad_stats entity_type of the rows it reads.
	Entity string
	// RolledUp levels sum their campaigns' rows: the stats pipeline pulls
	// no ACCOUNT rows (the service's active entities do not take ACCOUNT),
	// and FUNDING_INSTRUMENT rows carry neither clicks nor url_clicks.
	RolledUp bool
	// Columns are the level's own columns, its id first: ids and names.
	Columns []Column
	// Currency is the SQL of the currency column.
	Currency string
	// Joins name the level's records.
	Joins string
	// GroupBy and GroupJoins are a rolled-up level's own grouping keys
	// over ad_stats s and what they need joined to it.
	GroupBy    []Column
	GroupJoins string
}

// Column is one output column and the SQL expression producing it.
type Column struct {
	Name string
	SQL  string
}

// Levels are the report levels, from the account down.
var Levels = []Level{
	{
		Name: "account", Entity: stats.EntityCampaign, RolledUp: true,
		// An account's money is in its funding instruments' currency (the
		// account record has none), a live one's first; its campaigns'
		// while none is synced.
		Currency: "coalesce(" +
			"(SELECT f.currency FROM funding_instruments f WHERE f.account_id = b.account_id AND f.currency IS NOT NULL ORDER BY f.deleted, f.id LIMIT 1),\n" +
			"    (SELECT c.currency FROM campaigns c WHERE c.account_id = b.account_id AND c.currency IS NOT NULL ORDER BY c.deleted, c.id LIMIT 1))",
	},
	{
		Name: "funding_instrument", Entity: stats.EntityCampaign, RolledUp: true,
		Columns: []Column{
			{"funding_instrument_id", "b.funding_instrument_id"},
			{"funding_instrument_name", "f.name"},
		},
		// Its campaigns' while the funding instrument is not synced.
		Currency: "coalesce(f.currency, (SELECT c.currency FROM campaigns c WHERE c.account_id = b.account_id\n" +
			"    AND c.funding_instrument_id = b.funding_instrument_id AND c.currency IS NOT NULL ORDER BY c.deleted, c.id LIMIT 1))",
		Joins:      "LEFT JOIN funding_instruments f ON f.account_id = b.account_id AND f.id = b.funding_instrument_id",
		GroupBy:    []Column{{"funding_instrument_id", "c.funding_instrument_id"}},
		GroupJoins: "LEFT JOIN campaigns c ON c.account_id = s.account_id AND c.id = s.entity_id",
	},
	{
		Name: "campaign", Entity: stats.EntityCampaign,
		Columns: []Column{
			{"campaign_id", "b.entity_id"},
			{"campaign_name", "c.name"},
		},
		Currency: "c.currency",
		Joins:    "LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = b.entity_id",
	},
	{
		Name: "line_item", Entity: stats.EntityLineItem,
		Columns: []Column{
			{"line_item_id", "b.entity_id"},
			{"line_item_name", "li.name"},
			{"campaign_id", "li.campaign_id"},
			{"campaign_name", "c.name"},
		},
		Currency: "li.currency",
		Joins: "LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = b.entity_id\n" +
			"LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id",
	},
	{
		Name: "promoted_post", Entity: stats.EntityPromotedPost,
		Columns: []Column{
			{"promoted_post_id", "b.entity_id"},
			{"post_id", "pp.post_id"},
			{"line_item_id", "pp.line_item_id"},
			{"line_item_name", "li.name"},
			{"campaign_id", "li.campaign_id"},
			{"campaign_name", "c.name"},
		},
		// A promoted post spends in its line item's currency.
		Currency: "li.currency",
		Joins: "LEFT JOIN promoted_posts pp ON pp.account_id = b.account_id AND pp.id = b.entity_id\n" +
			"LEFT JOIN line_items li ON li.account_id = b.account_id AND li.id = pp.line_item_id\n" +
			"LEFT JOIN campaigns c ON c.account_id = b.account_id AND c.id = li.campaign_id",
	},
}

// LevelNames are the levels' names, in order.
func LevelNames() []string {
	out := make([]string, len(Levels))
	for i, l := range Levels {
		out[i] = l.Name
	}
	return out
}

// LookupLevel finds a level by name; the error names the levels there are.
func LookupLevel(name string) (Level, error) {
	i := slices.IndexFunc(Levels, func(l Level) bool { return l.Name == name })
	if i < 0 {
		return Level{}, fmt.Errorf("%w: level %q: want one of %s", ErrInput, name, strings.Join(LevelNames(), ", "))
	}
	return Levels[i], nil
}

// Relation is the level's daily relation: report_<level>_daily.
func (l Level) Relation() string { return "report_" + l.Name + "_daily" }

// Base is the view the level's relations read: the DAY rows of ad_stats
// with their metrics, or for a rolled-up level their campaigns' rows
// summed.
func (l Level) Base() string {
	if l.RolledUp {
		return "report_base_" + l.Name + "_day"
	}
	return "report_base_day"
}

// IDColumn is the level's id column ("" for the account level, whose id
// is account_id).
func (l Level) IDColumn() string {
	if len(l.Columns) == 0 {
		return ""
	}
	return l.Columns[0].Name
}

// Segment is one segmentation type the stats pipeline can pull.
type Segment struct {
	// Type is the segmentation_type (REGIONS).
	Type string
	// Parameter is the column of the country or platform the type was
	// pulled for (stored after the colon of segment_type: REGIONS:US), ""
	// for the types that take none.
	Parameter string
}

// Name is the segment as a relation names it: regions.
func (s Segment) Name() string { return strings.ToLower(s.Type) }

// Segments are every segmentation type stats pulls, in its order.
var Segments = func() []Segment {
	out := make([]Segment, len(stats.SegmentationTypes))
	for i, t := range stats.SegmentationTypes {
		out[i] = Segment{Type: t, Parameter: stats.SegmentationParameter(t)}
	}
	return out
}()

// Relation is one report relation: a level, by a segment or not.
type Relation struct {
	Level   Level
	Segment *Segment
}

// Name is the relation's name: report_<level>_daily or
// report_<level>_by_<segment>_daily.
func (r Relation) Name() string {
	if r.Segment == nil {
		return r.Level.Relation()
	}
	return "report_" + r.Level.Name + "_by_" + r.Segment.Name() + "_daily"
}

// Relations are every report relation: each level's daily relation, then
// each level by each segment.
func Relations() []Relation {
	var out []Relation
	for _, l := range Levels {
		out = append(out, Relation{Level: l})
	}
	for _, l := range Levels {
		for i := range Segments {
			out = append(out, Relation{Level: l, Segment: &Segments[i]})
		}
	}
	return out
}

// SegmentNames are the segments' names, in order.
func SegmentNames() []string {
	out := make([]string, len(Segments))
	for i, s := range Segments {
		out[i] = s.Name()
	}
	return out
}

// LookupSegment finds a segment by its name (regions) or type (REGIONS);
// the error names the segments there are.
func LookupSegment(name string) (*Segment, error) {
	i := slices.IndexFunc(Segments, func(s Segment) bool { return s.Name() == strings.ToLower(name) })
	if i < 0 {
		return nil, fmt.Errorf("%w: segment %q: want one of %s", ErrInput, name, strings.Join(SegmentNames(), ", "))
	}
	return &Segments[i], nil
}

// SegmentColumns are the columns a read by seg adds after the level's: the
// country or platform the type was pulled for, the segment's value and
// name.
func SegmentColumns(seg *Segment) []string {
	var out []string
	for _, c := range segmentColumns(seg) {
		out = append(out, c.Name)
	}
	return out
}
