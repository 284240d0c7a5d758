package stats

// Metric groups (spec analytics.md, Common parameters).
const (
	GroupEngagement = "ENGAGEMENT"
	GroupBilling    = "BILLING"
	GroupVideo      = "VIDEO"
	GroupMedia      = "MEDIA"
	GroupWebConv    = "WEB_CONVERSION"
	GroupMobileConv = "MOBILE_CONVERSION"
	GroupLTVConv    = "LIFE_TIME_VALUE_MOBILE_CONVERSION"
)

// Groups are every metric group, in the spec's order.
var Groups = []string{GroupEngagement, GroupBilling, GroupVideo, GroupMedia, GroupWebConv, GroupMobileConv, GroupLTVConv}

// AllowedGroups says which metric groups an entity takes (spec: ACCOUNT
// ENGAGEMENT only; FUNDING_INSTRUMENT ENGAGEMENT and BILLING; ORGANIC_POST
// ENGAGEMENT and VIDEO; the others any). Asking for another is a 400.
func AllowedGroups(entity string) []string {
	switch entity {
	case EntityAccount:
		return []string{GroupEngagement}
	case EntityFundingInstrument:
		return []string{GroupEngagement, GroupBilling}
	case EntityOrganicPost:
		return []string{GroupEngagement, GroupVideo}
	}
	return Groups
}

// Metric is one metric as the interface names it: an array of integers per
// bucket, or (Members non-empty) an object of such arrays.
type Metric struct {
	Name    string
	Group   string
	Members []string
}

// Conversion object members. WEB_CONVERSION's are in the spec; the mobile
// ones are those of the service's public "Metrics and Segmentation" page
// (the spec defers to it).
var (
	webConversionMembers    = []string{"metric", "order_quantity", "sale_amount", "post_engagement", "post_view", "assisted"}
	mobileConversionMembers = []string{"post_view", "post_engagement", "assisted", "order_quantity", "sale_amount"}
)

// Metrics is the catalogue, in column order.
var Metrics = func() []Metric {
	var out []Metric
	add := func(group string, members []string, names ...string) {
		for _, n := range names {
			out = append(out, Metric{Name: n, Group: group, Members: members})
		}
	}
	add(GroupEngagement, nil, "impressions", "engagements", "reposts", "replies", "likes", "follows",
		"card_engagements", "clicks", "app_clicks", "url_clicks", "qualified_impressions")
	add(GroupBilling, nil, "billed_engagements", "billed_charge_local_micro")
	add(GroupVideo, nil, "video_total_views", "video_views_25", "video_views_50", "video_views_75", "video_views_100",
		"video_cta_clicks", "video_content_starts", "video_3s100pct_views", "video_6s_views", "video_15s_views")
	add(GroupMedia, nil, "media_views", "media_engagements")
	add(GroupWebConv, webConversionMembers, "conversion_purchases", "conversion_sign_ups", "conversion_site_visits",
		"conversion_downloads", "conversion_custom")
	add(GroupMobileConv, mobileConversionMembers, "mobile_conversion_installs", "mobile_conversion_purchases",
		"mobile_conversion_sign_ups", "mobile_conversion_re_engages", "mobile_conversion_add_to_carts",
		"mobile_conversion_checkouts_initiated", "mobile_conversion_content_views", "mobile_conversion_spent_credits")
	add(GroupLTVConv, mobileConversionMembers, "mobile_conversion_lifetime_value_purchases",
		"mobile_conversion_lifetime_value_sign_ups", "mobile_conversion_lifetime_value_spent_credits")
	return out
}()

// Column is one typed metric column of the stats table: a scalar metric
// (Member empty) or one member of a conversion object, named
// metric_member.
type Column struct {
	Name   string
	Metric string
	Member string
}

// Columns are the stats table's metric columns, in catalogue order.
var Columns = func() []Column {
	var out []Column
	for _, m := range Metrics {
		if len(m.Members) == 0 {
			out = append(out, Column{Name: m.Name, Metric: m.Name})
			continue
		}
		for _, mem := range m.Members {
			out = append(out, Column{Name: m.Name + "_" + mem, Metric: m.Name, Member: mem})
		}
	}
	return out
}()

// ColumnNames are the metric columns' names, in order.
func ColumnNames() []string {
	out := make([]string, len(Columns))
	for i, c := range Columns {
		out[i] = c.Name
	}
	return out
}

// columnIndex finds a metric's column (member "" for a scalar); -1 when
// unknown (a metric the service added since: kept in raw only).
func columnIndex(metric, member string) int {
	if i, ok := columnAt[[2]string{metric, member}]; ok {
		return i
	}
	return -1
}

// columnAt indexes Columns by metric and member (Decode looks up every
// metric of every answer).
var columnAt = func() map[[2]string]int {
	m := make(map[[2]string]int, len(Columns))
	for i, c := range Columns {
		m[[2]string{c.Metric, c.Member}] = i
	}
	return m
}()
