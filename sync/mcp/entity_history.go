package mcp

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/adsync/adsync/sync/ads"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EntityHistoryInput is what the entity_history tool takes.
type EntityHistoryInput struct {
	Type      string `json:"type" jsonschema:"the entity type, as its table is named: campaigns, line_items, funding_instruments, ..."`
	ID        string `json:"id" jsonschema:"the entity's id (find_entities finds it)"`
	AccountID string `json:"account_id,omitempty" jsonschema:"the entity's account (needed only when two accounts have the id)"`
}

// historyHidden are the columns a version keeps that the answer leaves
// out: the whole record (its changed fields are named instead) and the
// bookkeeping of the sync.
var historyHidden = []string{"raw", "doc_hash", "first_seen_at", "last_synced_at"}

// versionTimes are when a version began, ended and was written: they
// differ between any two versions and are no change of the entity.
var versionTimes = []string{"valid_from", "valid_to", "written_at"}

func (s *server) addEntityHistory(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "entity_history",
		Title: "Show how an entity changed",
		Description: "Lists the versions of one synced entity (a campaign, line item, ...) from its <table>_history: " +
			"each version's typed columns with valid_from and valid_to (valid_to null: the current version), " +
			"oldest first, and for each version after the first what changed from the one before (changed: the " +
			"typed columns; raw_changed: the service record's top-level fields). A deletion at the service is a " +
			"version with deleted true.",
		Annotations: readOnly(),
	}, s.entityHistory)
}

// entityHistory answers entity_history from the entity's history view.
func (s *server) entityHistory(ctx context.Context, _ *sdk.CallToolRequest, in EntityHistoryInput) (*sdk.CallToolResult, Answer, error) {
	e, ok := ads.Lookup(strings.ToLower(strings.TrimSpace(in.Type)))
	if !ok {
		return nil, Answer{}, inputErrorf("type %q: want one of %s", in.Type, strings.Join(entityTypes(), ", "))
	}
	if strings.TrimSpace(in.ID) == "" {
		return nil, Answer{}, inputErrorf("id: want the entity's id (find_entities finds it)")
	}
	if !e.HasAccount() && in.AccountID != "" {
		return nil, Answer{}, inputErrorf("account_id: %s are not an account's (reference data): leave account_id out", e.Name)
	}
	where := "h.id = $1 AND $2::text IS NOT NULL"
	if e.HasAccount() {
		where = "h.id = $1 AND ($2::text = '' OR h.account_id = $2::text)"
	}
	order := "h.valid_from"
	if e.HasAccount() {
		order = "h.account_id, h.valid_from"
	}
	ans, err := s.query(ctx, fmt.Sprintf("SELECT * FROM %s h WHERE %s ORDER BY %s", e.History(), where, order), in.ID, in.AccountID)
	if err != nil {
		return nil, Answer{}, err
	}
	if e.HasAccount() && in.AccountID == "" && len(accountsOf(ans.Rows)) > 1 {
		return nil, Answer{}, inputErrorf("id %q: accounts %s have it: give account_id", in.ID, strings.Join(accountsOf(ans.Rows), ", "))
	}
	markChanges(ans.Rows)
	if len(ans.Rows) == 0 {
		ans.Note = fmt.Sprintf("no %s with id %s was synced", e.Name, in.ID)
	}
	return result(e.History(), []string{"valid_from", "valid_to", "changed", "raw_changed"}, ans), ans, nil
}

// accountsOf are the distinct account ids of rows, sorted.
func accountsOf(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		if a, ok := r["account_id"].(string); ok && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// markChanges names, on each version after the first, the columns and the
// record's top-level fields that differ from the version before, then
// drops the hidden columns.
func markChanges(rows []map[string]any) {
	for i := len(rows) - 1; i >= 0; i-- {
		if i > 0 {
			prev, cur := rows[i-1], rows[i]
			var changed []string
			for k, v := range cur {
				if slices.Contains(versionTimes, k) || slices.Contains(historyHidden, k) {
					continue
				}
				if !reflect.DeepEqual(v, prev[k]) {
					changed = append(changed, k)
				}
			}
			slices.Sort(changed)
			cur["changed"] = changed
			cur["raw_changed"] = rawChanges(prev["raw"], cur["raw"])
		}
	}
	for _, r := range rows {
		for _, k := range historyHidden {
			delete(r, k)
		}
	}
}

// rawChanges are the top-level fields of two records (jsonb as decoded)
// that differ, sorted.
func rawChanges(a, b any) []string {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	out := []string{}
	for k, v := range bm {
		if !reflect.DeepEqual(v, am[k]) {
			out = append(out, k)
		}
	}
	for k := range am {
		if _, ok := bm[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
