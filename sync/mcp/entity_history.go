package mcp

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/adsync/adsync/sync/ads"
	"github.com/adsync/adsync/sync/posts"
	"github.com/adsync/adsync/sync/store"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EntityHistoryInput is what the entity_history tool takes.
type EntityHistoryInput struct {
	Type      string `json:"type" jsonschema:"the entity type, as its table is named: campaigns, line_items, funding_instruments, ... or the v2 posts pipeline's v2_posts, v2_media, v2_users"`
	ID        string `json:"id" jsonschema:"the entity's id (find_entities finds an advertising entity's); for v2_media its media_key"`
	AccountID string `json:"account_id,omitempty" jsonschema:"the entity's account (needed only when two accounts have the id; never for reference data or the v2 tables)"`
}

// historyHidden are the columns a version keeps that the answer leaves
// out beside the history's own bookkeeping (when adsync first saw and
// wrote the record): the whole record (its changed fields are named
// instead), its content hash, and when the v2 pipeline fetched it.
var historyHidden = []string{"raw", "doc_hash", "fetched_at"}

// versionTimes are when a version began, ended and was written: they
// differ between any two versions and are no change of the entity.
var versionTimes = []string{"valid_from", "valid_to", "written_at"}

// histories are the records entity_history answers for: every entity
// table of the advertising sync and the v2 posts pipeline's tables, the
// same histories the export writes.
func histories() []store.History { return append(ads.Histories(), posts.Histories()...) }

// historyTypes are the types entity_history takes, sorted.
func historyTypes() []string {
	var out []string
	for _, h := range histories() {
		out = append(out, h.Table)
	}
	slices.Sort(out)
	return out
}

// lookupHistory is the history of the table named name.
func lookupHistory(name string) (store.History, bool) {
	for _, h := range histories() {
		if h.Table == name {
			return h, true
		}
	}
	return store.History{}, false
}

func (s *server) addEntityHistory(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "entity_history",
		Title: "Show how an entity changed",
		Description: "Lists the versions of one synced record from its <table>_history: an advertising entity " +
			"(type campaigns, line_items, funding_instruments, ...) or a post, media or user of the v2 posts pipeline " +
			"(type v2_posts, v2_media, v2_users: a post's metrics are part of it, so moved counts are a version). " +
			"Each version's typed columns with valid_from and valid_to (valid_to null: the current version), " +
			"oldest first, and for each version after the first what changed from the one before (changed: the " +
			"typed columns; raw_changed: the service record's top-level fields). A deletion at the service is a " +
			"version with deleted true (advertising entities; the v2 tables have no deleted flag).",
		Annotations: readOnly(),
	}, s.entityHistory)
}

// entityHistory answers entity_history from the record's history view.
func (s *server) entityHistory(ctx context.Context, _ *sdk.CallToolRequest, in EntityHistoryInput) (*sdk.CallToolResult, Answer, error) {
	h, ok := lookupHistory(strings.ToLower(strings.TrimSpace(in.Type)))
	if !ok {
		return nil, Answer{}, inputErrorf("type %q: want one of %s", in.Type, strings.Join(historyTypes(), ", "))
	}
	if strings.TrimSpace(in.ID) == "" {
		return nil, Answer{}, inputErrorf("id: want the entity's id (find_entities finds it; for v2_media its media_key)")
	}
	byAccount := slices.Contains(h.Key, "account_id")
	if !byAccount && in.AccountID != "" {
		return nil, Answer{}, inputErrorf("account_id: %s are not an account's: leave account_id out", h.Table)
	}
	// The last key column is the record's id (media_key for v2_media); an
	// entity of an account is keyed by its account first.
	id := h.Key[len(h.Key)-1]
	where := fmt.Sprintf("h.%s = $1 AND $2::text IS NOT NULL", id)
	order := "h.valid_from"
	if byAccount {
		where = fmt.Sprintf("h.%s = $1 AND ($2::text = '' OR h.account_id = $2::text)", id)
		order = "h.account_id, h.valid_from"
	}
	ans, err := s.query(ctx, fmt.Sprintf("SELECT * FROM %s h WHERE %s ORDER BY %s", h.View(), where, order), in.ID, in.AccountID)
	if err != nil {
		return nil, Answer{}, err
	}
	if byAccount && in.AccountID == "" && len(accountsOf(ans.Rows)) > 1 {
		return nil, Answer{}, inputErrorf("id %q: accounts %s have it: give account_id", in.ID, strings.Join(accountsOf(ans.Rows), ", "))
	}
	markChanges(ans.Rows, append([]string{h.FirstSeen, h.Written}, historyHidden...))
	if len(ans.Rows) == 0 {
		ans.Note = fmt.Sprintf("no %s with id %s was synced", h.Table, in.ID)
	}
	return result(h.View(), []string{"valid_from", "valid_to", "changed", "raw_changed"}, ans), ans, nil
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
func markChanges(rows []map[string]any, hidden []string) {
	for i := len(rows) - 1; i >= 0; i-- {
		if i > 0 {
			prev, cur := rows[i-1], rows[i]
			var changed []string
			for k, v := range cur {
				if slices.Contains(versionTimes, k) || slices.Contains(hidden, k) {
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
		for _, k := range hidden {
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
