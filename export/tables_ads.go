package export

import "github.com/adsync/adsync/sync/ads"

// The advertising entities' tables, one per entity, derived from the sync's
// registry so the two never drift. Timestamps keep the API's names
// (created_at, updated_at); money keeps its *_local_micro names as int64
// micros; a row changes (and is exported again) only when its content did.
func init() {
	for _, e := range ads.Entities() {
		register(adsTable(e))
		register(historyOf(adsTable(e), e.History()))
	}
}

func adsTable(e *ads.Entity) Table {
	t := Table{Name: e.Name, From: e.Name, ChangedAt: "last_synced_at", OrderBy: "id"}
	seen := map[string]bool{}
	add := func(c Column) {
		if !seen[c.Name] {
			seen[c.Name] = true
			t.Columns = append(t.Columns, c)
		}
	}
	t.Key = []string{"id"}
	if e.HasAccount() {
		t.OrderBy = "account_id, id"
		t.Key = []string{"account_id", "id"}
		add(Column{Name: "account_id", Kind: String})
	}
	add(Column{Name: "id", Kind: String})
	for _, c := range e.LiveColumns() {
		col := Column{Name: c.Name, Nullable: true}
		switch c.Type {
		case ads.BigInt:
			col.Kind = Int64
		case ads.Bool:
			col.Kind = Bool
		case ads.Timestamptz:
			col.Kind = Timestamp
		case ads.TextArray:
			col.Kind, col.Nullable = StringList, false
		case ads.JSONB:
			col.Kind = JSON
		default:
			col.Kind = String
		}
		add(col)
	}
	add(Column{Name: "created_at", SQL: "api_created_at", Kind: Timestamp, Nullable: true})
	add(Column{Name: "updated_at", SQL: "api_updated_at", Kind: Timestamp, Nullable: true})
	add(Column{Name: "deleted", Kind: Bool})
	add(Column{Name: "first_seen_at", Kind: Timestamp})
	add(Column{Name: "last_synced_at", Kind: Timestamp})
	add(Column{Name: "raw", Kind: JSON})
	return t
}
