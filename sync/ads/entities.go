package ads

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Scope says how many units an entity has per run.
type Scope int

// Scopes.
const (
	// Global entities have one unit per run and no account (accounts and
	// reference data).
	Global Scope = iota
	// PerAccount entities have one unit per account.
	PerAccount
	// PerParent entities have one unit per account that pages one list per
	// parent record (custom audience).
	PerParent
)

// ColType is the Postgres type of a typed column.
type ColType string

// Column types.
const (
	Text        ColType = "text"
	BigInt      ColType = "bigint"
	Bool        ColType = "boolean"
	Timestamptz ColType = "timestamptz"
	TextArray   ColType = "text[]"
	JSONB       ColType = "jsonb"
)

// Column is a typed column filled from a record's JSON field.
type Column struct {
	Name string
	// Field is the record's JSON field (default Name).
	Field string
	Type  ColType
	// FromParent fills the column with the unit part's parent id rather
	// than a field of the record.
	FromParent bool
	// Migration is the app migration that added the column to a table
	// created earlier (0: the column came with its table). Applied
	// migrations never change, so a later column is an ALTER TABLE of its
	// own migration (see AlterSQL), not part of CreateTableSQL.
	Migration int
	// Dropped is the app migration that dropped the column (0: the table
	// has it). A dropped column stays in the registry only so the DDL of
	// the migration that created it is still generated.
	Dropped int
}

// Entity describes one synced entity: where it is listed and how it is
// stored.
type Entity struct {
	// Name is the entity's name and its table's.
	Name  string
	Scope Scope
	// Path is the list path, with {account_id} and {parent_id} to fill.
	Path string
	// Endpoint is the rate-limit key.
	Endpoint string
	// Query is sent with every page.
	Query map[string]string
	// Parts split the unit into several lists (posts: one per post_type);
	// each part's query parameter is PartParam.
	Parts     []string
	PartParam string
	// Parents, when set, split the unit into one list per chunk of the
	// ids of parent records the sync stored (targeting criteria: by line
	// item).
	Parents *ParentsFrom
	// PartsFrom, when set, gives the parts instead of Parts: the values of
	// a field of another list, read before the unit's own (TV shows: one
	// list per TV market's locale).
	PartsFrom *PartSource
	// Incremental entities take sort_by=updated_at-desc (the spec lists
	// sort_by for them), so an incremental run stops at the bookmark.
	// The others are paged fully on every run.
	Incremental bool
	// WithDeleted sends with_deleted=true so deletions arrive as tombstones.
	WithDeleted bool
	// IncrementalFrom is the app migration in which an entity created
	// earlier became Incremental: its updated_at index is added there (0:
	// with its table).
	IncrementalFrom int
	// DeletedField and DeletedValue mark records deleted that carry no
	// deleted field: a record whose DeletedField is DeletedValue is stored
	// with deleted=true (scheduled posts show deletion as
	// scheduled_status DELETED).
	DeletedField, DeletedValue string
	// Single endpoints answer one object, not a list.
	Single bool
	// NotPaged endpoints answer one list page without cursor or count.
	NotPaged bool
	// Reference entities are refreshed at most daily.
	Reference bool
	// AccessList marks the list of what the user may reach (accounts). A
	// record it no longer returns is not deleted but out of reach: the list
	// is paged completely on every run, and the sweep marks such records
	// inaccessible (and records listed again accessible) instead of
	// tombstoning them.
	AccessList bool
	// KeyField is the record's JSON field holding its key (default "id").
	KeyField string
	Columns  []Column
	// Migration is the app migration that created the entity's table when
	// it came after the first release: applied migrations never change, so
	// a later entity's table is not in 0003_ads.sql's generated part but in
	// its own file (0 for the generated part).
	Migration int
}

// ParentsFrom declares an entity listed by the ids of its parent records,
// taken from the parent entity's table for the unit's account. The service
// does not cascade a parent's deletion to its children (spec
// targeting-and-more.md, Line items: DELETE "does not cascade"), and lists
// a deleted parent's children when asked with with_deleted=true, so
// deleted parents are asked for too: a complete unit asks for every stored
// parent, and an incremental one for the live parents and those deleted
// since its bookmark minus the overlap (the children of a parent deleted
// earlier were listed by the first run after its deletion, and change no
// more). The children are stored as the service shows them: a deleted
// parent leaves them deleted=false. The unit's parts are the sorted ids cut
// into chunks of at most Chunk, each sent as Param=id,id,... and named by
// that very list, so a resumed unit finds its part again. The parent
// entity's unit of the same run and account ends before this one starts
// (see Syncer.WaitingFor), so a run lists the children of the parents it
// has just stored.
type ParentsFrom struct {
	// Entity is the parent entity (its table holds the ids).
	Entity string
	// Field is the child record's field naming its parent; it is a typed
	// column of the child's table.
	Field string
	// Param is the list's query parameter taking the chunk.
	Param string
	// Chunk is the most ids one request takes.
	Chunk int
}

// LiveColumns are the typed columns the table has now (without dropped
// ones), in the order its stored values are computed.
func (e *Entity) LiveColumns() []Column {
	if !slices.ContainsFunc(e.Columns, func(c Column) bool { return c.Dropped != 0 }) {
		return e.Columns
	}
	var out []Column
	for _, c := range e.Columns {
		if c.Dropped == 0 {
			out = append(out, c)
		}
	}
	return out
}

// PartSource is a global list whose records' Field values are a unit's
// parts.
type PartSource struct {
	Path     string
	Endpoint string
	Query    map[string]string
	Field    string
	// NotPaged lists answer one page without count or cursor.
	NotPaged bool
}

// Key is the JSON field of the record key.
func (e *Entity) Key() string {
	if e.KeyField == "" {
		return "id"
	}
	return e.KeyField
}

// HasAccount says whether the table is keyed by (account_id, id).
func (e *Entity) HasAccount() bool { return e.Scope != Global }

const acct = "/12/accounts/{account_id}"

func cols(spec string) []Column {
	var out []Column
	for _, f := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(f, ":")
		t := Text
		switch typ {
		case "":
		case "i":
			t = BigInt
		case "b":
			t = Bool
		case "t":
			t = Timestamptz
		case "a":
			t = TextArray
		case "j":
			t = JSONB
		default:
			panic("ads: bad column spec " + f)
		}
		out = append(out, Column{Name: name, Type: t})
	}
	return out
}

// since sets the migration of columns added to a table created earlier.
func since(migration int, cs []Column) []Column {
	for i := range cs {
		cs[i].Migration = migration
	}
	return cs
}

func perAccount(name, path string, incremental bool, columns string) *Entity {
	return &Entity{Name: name, Scope: PerAccount, Path: acct + path, Endpoint: "GET " + acct + path,
		Incremental: incremental, WithDeleted: true, Columns: cols(columns)}
}

func reference(name, path, key, columns string) *Entity {
	return &Entity{Name: name, Scope: Global, Path: "/12" + path, Endpoint: "GET /12" + path, Reference: true,
		NotPaged: name != "iab_categories", KeyField: key, Columns: cols(columns)}
}

// option declares a targeting option list (spec targeting-and-more.md,
// "Targeting options (reference lists)"): a global reference table
// targeting_criteria_<list>, keyed by targeting_value unless key says
// otherwise; paged lists take count (and cursor where the list has one).
// Their tables came in migration 19.
func option(list, key string, paged bool, columns string) *Entity {
	e := reference("targeting_criteria_"+list, "/targeting_criteria/"+list, cmpOr(key, "targeting_value"), columns)
	e.NotPaged, e.Migration = !paged, 19
	return e
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// optionLists are the twelve targeting option lists. Rate limits: they are
// the spec's "Targeting criteria" category, 400 requests per 15 minutes per
// endpoint (tv_markets and tv_shows 2,000): a full refresh costs one request
// per page of each list, the location list's ~50 at count 1000 the most, one
// request per country for network operators (the sources' countries: the
// location list's COUNTRIES, about 60) and one per page of each TV market
// for TV shows (count at most 50).
func optionLists() []*Entity {
	events := option("events", "", true,
		"name event_type start_time:t end_time:t country_code is_global:b reach:j top_users:a top_hashtags:a top_posts:a "+
			"gender_breakdown_percentage:j device_breakdown_percentage:j country_breakdown_percentage:j targeting_value")
	// event_types is marked required, though described as an optional
	// filter: all seven are sent, as the peer does. start_time defaults to
	// now, so the table holds the events not yet over; past ones become
	// tombstones.
	events.Query = map[string]string{"event_types": "CONFERENCE,HOLIDAY,MUSIC_AND_ENTERTAINMENT,OTHER,POLITICS,RECURRING,SPORTS"}
	// Network operators are listed per country_code (default US): once per
	// country of the location list (location_type COUNTRIES), so every
	// country targetable by location is covered, and the requests stay one
	// per country, well inside the category's budget.
	operators := option("network_operators", "", true, "name country_code targeting_type targeting_value")
	operators.PartParam = "country_code"
	operators.PartsFrom = &PartSource{Path: "/12/targeting_criteria/locations", Endpoint: "GET /12/targeting_criteria/locations",
		Query: map[string]string{"location_type": "COUNTRIES"}, Field: "country_code"}
	// TV shows are listed per market: once per tv_markets locale.
	shows := option("tv_shows", "", true, "name targeting_value:i genre locales:j estimated_users:i")
	shows.PartParam = "locale"
	shows.PartsFrom = &PartSource{Path: "/12/targeting_criteria/tv_markets", Endpoint: "GET /12/targeting_criteria/tv_markets",
		Field: "locale", NotPaged: true}
	return []*Entity{
		option("app_store_categories", "", false, "name targeting_type targeting_value os_type"),
		option("conversations", "", true, "name targeting_type targeting_value conversation_type"),
		// Devices and platforms take count but list no cursor: one page at
		// count 1000 holds them.
		option("devices", "", true, "name manufacturer os_type targeting_type targeting_value"),
		events,
		option("interests", "", true, "name targeting_type targeting_value"),
		option("languages", "", true, "name targeting_type targeting_value"),
		option("locations", "", true, "name country_code location_type targeting_type targeting_value"),
		operators,
		option("platform_versions", "", false, "name number os_type targeting_type targeting_value"),
		// localized_name comes only with lang, which the sync does not send.
		option("platforms", "", true, "name targeting_type targeting_value localized_name"),
		option("tv_markets", "locale", false, "name country_code locale"),
		shows,
	}
}

const cardConversation = "name card_uri card_type first_cta first_cta_post second_cta second_cta_post third_cta third_cta_post " +
	"fourth_cta fourth_cta_post title thank_you_text thank_you_url media_key unlocked_image_media_key unlocked_video_media_key"

// registry lists every entity, in the order a run fans them out.
var registry = func() []*Entity {
	campaigns := perAccount("campaigns", "/campaigns", true,
		"name funding_instrument_id budget_optimization daily_budget_amount_local_micro:i total_budget_amount_local_micro:i "+
			"entity_status effective_status servable:b reasons_not_servable:a standard_delivery:b purchase_order_number "+
			"duration_in_days:i frequency_cap:i currency")
	// Draft campaigns are listed only with with_draft=true.
	campaigns.Query = map[string]string{"with_draft": "true"}
	posts := perAccount("posts", "/posts", false,
		"post_type name text user_id nullcast:b card_uri media_keys:a status scheduled_at:t scheduled_status completed_at:t")
	// post_type is required and lists one type at a time; timeline_type ALL
	// lists organic posts beside nullcast ones (the default is NULLCAST).
	posts.Parts, posts.PartParam = []string{"DRAFT", "PUBLISHED", "SCHEDULED"}, "post_type"
	posts.Query = map[string]string{"timeline_type": "ALL"}
	access := perAccount("account_user_access", "/authenticated_user_access", false, "user_id permissions:a")
	access.Single, access.WithDeleted, access.KeyField = true, false, "user_id"
	targeting := &Entity{Name: "custom_audience_targeting", Scope: PerParent,
		Path:     acct + "/custom_audiences/{parent_id}/targeted",
		Endpoint: "GET " + acct + "/custom_audiences/{custom_audience_id}/targeted",
		// with_active=false also lists line items that are not servable.
		Query:    map[string]string{"with_active": "false"},
		KeyField: "campaign_id",
		Columns: append([]Column{{Name: "custom_audience_id", Type: Text, FromParent: true}},
			cols("campaign_id campaign_name line_items:j")...)}
	perms := &Entity{Name: "tailored_audience_permissions", Scope: PerParent,
		Path:        "/5/accounts/{account_id}/tailored_audiences/{parent_id}/permissions",
		Endpoint:    "GET /5/accounts/{account_id}/tailored_audiences/{tailored_audience_id}/permissions",
		Incremental: true, WithDeleted: true,
		Columns: cols("tailored_audience_id granted_account_id permission_level")}
	// Account apps' fields are not shown in the spec: the typed columns
	// are those the real service's record carries. The spec lists sort_by
	// and with_deleted for their list. Their table came in migration 12.
	accountApps := perAccount("account_apps", "/account_apps", true, "name app_store_identifier os_type conversion_tracking:b")
	accountApps.Migration = 12
	// Targeting criteria are listed only per line item, up to 200 line item
	// ids a request, deleted line items' too (spec targeting-and-more.md; see
	// ParentsFrom); the list takes sort_by and with_deleted. Their table
	// came in migration 18.
	criteria := perAccount("targeting_criteria", "/targeting_criteria", true,
		"line_item_id name localized_name targeting_type targeting_value operator_type location_type "+
			"tailored_audience_expansion:b tailored_audience_type")
	criteria.Parents = &ParentsFrom{Entity: "line_items", Field: "line_item_id", Param: "line_item_ids", Chunk: 200}
	criteria.Migration = 18
	lineItems, promotedPosts := targetingAndMore()
	promotableUsers, scheduledPromoted, prerollCTAs, webEventTags, appEventTags, scheduledPosts, draftPosts, mediaLibrary := accountEntities()
	return append([]*Entity{
		{Name: "accounts", Scope: Global, Path: "/12/accounts", Endpoint: "GET /12/accounts", Incremental: true, WithDeleted: true,
			AccessList: true,
			Columns:    cols("name business_name timezone timezone_switch_at:t business_id approval_status industry_type")},
		access,
		perAccount("funding_instruments", "/funding_instruments", false,
			"name description type currency start_time:t end_time:t credit_limit_local_micro:i "+
				"credit_remaining_local_micro:i funded_amount_local_micro:i entity_status able_to_fund:b "+
				"reasons_not_able_to_fund:a io_header"),
		campaigns,
		lineItems,
		perAccount("cards", "/cards", true, "name card_uri card_type components:j slides:j"),
		perAccount("cards_poll", "/cards/poll", true,
			"name card_uri card_type first_choice second_choice third_choice fourth_choice duration_in_minutes:i "+
				"start_time:t end_time:t media_key video_poster_url video_url"),
		perAccount("cards_image_conversation", "/cards/image_conversation", true, cardConversation+" media_url"),
		perAccount("cards_video_conversation", "/cards/video_conversation", true, cardConversation+" poster_media_key"),
		perAccount("account_media", "/account_media", true, "creative_type video_id media_url media_key"),
		perAccount("media_creatives", "/media_creatives", true,
			"line_item_id account_media_id campaign_id landing_url serving_status entity_status approval_status"),
		perAccount("promoted_accounts", "/promoted_accounts", true, "line_item_id user_id entity_status approval_status"),
		promotedPosts,
		perAccount("tracking_tags", "/tracking_tags", true, "line_item_id tracking_tag_type tracking_tag_url"),
		criteria,
		posts,
		accountApps,
		promotableUsers, scheduledPromoted, prerollCTAs, webEventTags, appEventTags, scheduledPosts, draftPosts, mediaLibrary,
		// The custom audience list's parameters are not shown in the spec.
		perAccount("custom_audiences", "/custom_audiences", false,
			"name description audience_type targetable:b targetable_types:a reasons_not_targetable:a permission_level "+
				"owner_account_id is_owner:b partner_source audience_size:i"),
		targeting,
		perms,
		reference("iab_categories", "/iab_categories", "", "name parent_id"),
		reference("content_categories", "/content_categories", "",
			"name iab_categories:a publishers_in_last_thirty_days:i videos_monetized_in_last_thirty_days:i"),
		reference("bidding_rules", "/bidding_rules", "currency",
			"currency minimum_cpe_bid_local_micro:i maximum_cpe_bid_local_micro:i minimum_denomination:i"),
		reference("line_item_placements", "/line_items/placements", "product_type", "product_type placements:j"),
		reference("advertiser_business_categories", "/advertiser_business_categories", "", "name iab_categories:a"),
	}, optionLists()...)
}()

// targetingAndMore declares line items and promoted posts as spec
// targeting-and-more.md has them (migration 17): every field of the line
// item's table is a typed column, and both lists sort by updated_at, so
// both are incremental from then. A line item of a draft campaign lists
// only with with_draft=true. The first release's servable column is
// dropped: the version 12 line item has no such field.
func targetingAndMore() (lineItems, promotedPosts *Entity) {
	const m = 17
	lineItems = perAccount("line_items", "/line_items", true,
		"name campaign_id objective product_type placements:a bid_amount_local_micro:i entity_status "+
			"start_time:t end_time:t currency servable:b")
	lineItems.Columns[len(lineItems.Columns)-1].Dropped = m
	lineItems.Columns = append(lineItems.Columns, since(m, cols(
		"funding_instrument_id goal bid_strategy pay_by target_cpa_local_micro:i daily_budget_amount_local_micro:i "+
			"total_budget_amount_local_micro:i standard_delivery:b frequency_cap:i duration_in_days:i advertiser_user_id "+
			"advertiser_domain categories:a primary_web_event_tag android_app_store_identifier ios_app_store_identifier "+
			"automatic_post_promotion:j creative_source"))...)
	lineItems.Query = map[string]string{"with_draft": "true"}
	lineItems.IncrementalFrom = m
	promotedPosts = perAccount("promoted_posts", "/promoted_posts", true, "line_item_id post_id entity_status approval_status")
	promotedPosts.IncrementalFrom = m
	return lineItems, promotedPosts
}

// accountEntities declares the per-account entities of spec
// targeting-and-more.md whose tables came in migration 17. Those whose list
// sorts by updated_at and takes with_deleted are incremental; web event
// tags (no updated_at), scheduled posts, draft posts and the media library
// (no sort_by, no with_deleted) are paged fully on every run, and the
// sweep tombstones what a run no longer sees (drafts are deleted for good,
// deleted media items leave the list). A scheduled post has no deleted
// field: scheduled_status DELETED is its deletion.
func accountEntities() (promotable, scheduledPromoted, preroll, webTags, appTags, scheduled, drafts, media *Entity) {
	promotable = perAccount("promotable_users", "/promotable_users", true, "user_id promotable_user_type")
	scheduledPromoted = perAccount("scheduled_promoted_posts", "/scheduled_promoted_posts", true, "line_item_id scheduled_post_id post_id")
	preroll = perAccount("preroll_call_to_actions", "/preroll_call_to_actions", true, "line_item_id call_to_action call_to_action_url")
	webTags = perAccount("web_event_tags", "/web_event_tags", false,
		"name type click_window:i view_through_window:i retargeting_enabled:b status last_tracked_at:t website_tag_id embed_code")
	appTags = perAccount("app_event_tags", "/app_event_tags", true,
		"app_store_identifier os_type conversion_type provider_app_event_id provider_app_event_name deep_link_scheme "+
			"post_view_attribution_window:i post_engagement_attribution_window:i retargeting_enabled:b status last_tracked_at:t")
	scheduled = perAccount("scheduled_posts", "/scheduled_posts", false,
		"name text user_id scheduled_at:t scheduled_status completed_at:t post_id nullcast:b card_uri media_keys:a")
	scheduled.WithDeleted, scheduled.DeletedField, scheduled.DeletedValue = false, "scheduled_status", "DELETED"
	drafts = perAccount("draft_posts", "/draft_posts", false, "name text user_id nullcast:b card_uri media_keys:a")
	drafts.WithDeleted = false
	media = perAccount("media_library", "/media_library", false,
		"name file_name description title media_url media_type media_category media_status aspect_ratio duration:i "+
			"poster_media_url poster_media_key posted:b")
	media.WithDeleted, media.KeyField = false, "media_key"
	for _, e := range []*Entity{promotable, scheduledPromoted, preroll, webTags, appTags, scheduled, drafts, media} {
		e.Migration = 17
	}
	return
}

// Entities returns every entity in fan-out order.
func Entities() []*Entity { return slices.Clone(registry) }

// Lookup finds an entity by name.
func Lookup(name string) (*Entity, bool) {
	for _, e := range registry {
		if e.Name == name {
			return e, true
		}
	}
	return nil, false
}

// Names returns every entity name, sorted.
func Names() []string {
	out := make([]string, len(registry))
	for i, e := range registry {
		out[i] = e.Name
	}
	sort.Strings(out)
	return out
}

// ParseNames validates a list of entity names; an unknown one is an error
// listing the valid names.
func ParseNames(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if _, ok := Lookup(n); !ok {
			return nil, fmt.Errorf("unknown entity %q (valid: %s)", n, strings.Join(Names(), ", "))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}
