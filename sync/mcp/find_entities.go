package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/adsync/adsync/sync/ads"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FindEntitiesInput is what the find_entities tool takes.
type FindEntitiesInput struct {
	Type           string   `json:"type" jsonschema:"the entity type, as its table is named: campaigns, line_items, funding_instruments, promoted_posts, custom_audiences, ... (an unknown type's error lists them all)"`
	Name           string   `json:"name,omitempty" jsonschema:"part of the name, case-insensitive; names that start with it come first"`
	Status         string   `json:"status,omitempty" jsonschema:"an entity status (ACTIVE, PAUSED, DRAFT, ...), case-insensitive, matched against the type's status columns"`
	AccountIDs     []string `json:"account_ids,omitempty" jsonschema:"account ids (from list_accounts); default every account"`
	IDs            []string `json:"ids,omitempty" jsonschema:"the entities' ids; default all"`
	IncludeDeleted bool     `json:"include_deleted,omitempty" jsonschema:"also list entities deleted at the service (kept as tombstones)"`
}

// statusColumns are the columns whose values are an entity's status.
var statusColumns = []string{"entity_status", "effective_status", "status", "approval_status", "serving_status", "scheduled_status"}

// shownColumn says whether find_entities shows a typed column: names, statuses,
// budgets and money, the parents' ids, the currency and the type.
func shownColumn(c ads.Column) bool {
	n := c.Name
	return n == "name" || n == "currency" || slices.Contains(statusColumns, n) || strings.Contains(n, "budget") ||
		strings.HasSuffix(n, "_local_micro") || (strings.HasSuffix(n, "_id") && c.Type == ads.Text) ||
		strings.HasSuffix(n, "_type") || n == "servable" || n == "start_time" || n == "end_time" || n == "audience_size"
}

// entityTypes are the types find_entities takes: every synced entity.
func entityTypes() []string { return ads.Names() }

func (s *server) addFindEntities(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "find_entities",
		Title: "Find campaigns, line items and other entities",
		Description: "Finds synced entities of one type (campaigns, line_items, funding_instruments, promoted_posts, " +
			"custom_audiences, cards, ...) by part of their name, status and account: their ids, names, statuses, " +
			"budgets and money columns (in micros of the currency, as the service reports them), parents' ids and " +
			"currency. Deleted entities are left out unless include_deleted. Use the ids with performance.",
		Annotations: readOnly(),
	}, s.findEntities)
}

// findEntities answers find_entities from the entity's table, its columns
// from the entity registry.
func (s *server) findEntities(ctx context.Context, _ *sdk.CallToolRequest, in FindEntitiesInput) (*sdk.CallToolResult, Answer, error) {
	e, ok := ads.Lookup(strings.ToLower(strings.TrimSpace(in.Type)))
	if !ok {
		return nil, Answer{}, inputErrorf("type %q: want one of %s", in.Type, strings.Join(entityTypes(), ", "))
	}
	sql, cols, err := findSQL(e, in)
	if err != nil {
		return nil, Answer{}, err
	}
	ans, err := s.query(ctx, sql, in.Name, strings.ToUpper(in.Status), in.AccountIDs, in.IDs, in.IncludeDeleted)
	if err != nil {
		return nil, Answer{}, err
	}
	return result(e.Name, cols, ans), ans, nil
}

// findSQL is the query of entity e for in: $1 the name part, $2 the
// status, $3 the account ids, $4 the ids, $5 whether deleted ones count.
func findSQL(e *ads.Entity, in FindEntitiesInput) (string, []string, error) {
	cols := []string{"id"}
	if e.HasAccount() {
		cols = append(cols, "account_id")
	} else if len(in.AccountIDs) > 0 {
		return "", nil, inputErrorf("account_ids: %s are not an account's (reference data): leave account_ids out", e.Name)
	}
	var statuses []string
	hasName := false
	for _, c := range e.LiveColumns() {
		if !shownColumn(c) || slices.Contains(cols, c.Name) {
			continue
		}
		cols = append(cols, c.Name)
		hasName = hasName || c.Name == "name"
		if slices.Contains(statusColumns, c.Name) {
			statuses = append(statuses, fmt.Sprintf("upper(t.%s) = $2", c.Name))
		}
	}
	cols = append(cols, "deleted", "api_updated_at", "last_synced_at")
	where := []string{"($5::boolean OR NOT t.deleted)", "($4::text[] IS NULL OR t.id = ANY($4::text[]))"}
	if e.HasAccount() {
		where = append(where, "($3::text[] IS NULL OR t.account_id = ANY($3::text[]))")
	}
	order := "t.id"
	switch {
	case in.Name != "" && !hasName:
		return "", nil, inputErrorf("name: %s have no name; find them by ids, status or account", e.Name)
	case hasName:
		// The name part is matched literally: LIKE's wildcards in it are escaped.
		where = append(where, `($1::text = '' OR t.name ILIKE '%' || replace(replace(replace($1, '\', '\\'), '%', '\%'), '_', '\_') || '%')`)
		order = `t.name ILIKE replace(replace(replace($1, '\', '\\'), '%', '\%'), '_', '\_') || '%' DESC, lower(t.name), t.id`
	default:
		where = append(where, "$1::text IS NOT NULL")
	}
	switch {
	case in.Status != "" && len(statuses) == 0:
		return "", nil, inputErrorf("status: %s have no status column", e.Name)
	case len(statuses) > 0:
		where = append(where, "($2::text = '' OR "+strings.Join(statuses, " OR ")+")")
	default:
		where = append(where, "$2::text IS NOT NULL")
	}
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "t." + c
	}
	return fmt.Sprintf("SELECT %s FROM %s t WHERE %s ORDER BY %s", strings.Join(sel, ", "), e.Name,
		strings.Join(where, " AND "), order), cols, nil
}
