package ads

import (
	"context"
	"strings"

	"github.com/adsync/adsync/sync/store"
)

// HistoryMigration is the app migration that gave every entity table its
// history (see Entity.HistorySQL); an entity created later has its
// history in its own migration, beside its table.
const HistoryMigration = 31

// History is the name of the view holding every version of the entity's
// records: the table's columns plus valid_from and valid_to (NULL for the
// current version).
func (e *Entity) History() string { return e.history().View() }

// Histories declares the history of every entity table, in registry
// order (see Entity.History).
func Histories() []store.History {
	out := make([]store.History, len(registry))
	for i, e := range registry {
		out[i] = e.history()
	}
	return out
}

// history declares the entity table's history from the registry: its
// columns as they are now, the service's updated_at, and a new version at
// each change of the record's content (doc_hash) or of its tombstone flag
// (deleted).
func (e *Entity) history() store.History {
	h := store.History{Table: e.Name, UpdatedAt: "api_updated_at", FirstSeen: "first_seen_at",
		Written: "last_synced_at", Changed: []string{"doc_hash", "deleted"}}
	if e.HasAccount() {
		h.Key = append(h.Key, "account_id")
		h.Columns = append(h.Columns, store.HistoryColumn{Name: "account_id", Type: "text        NOT NULL"})
	}
	h.Key = append(h.Key, "id")
	h.Columns = append(h.Columns, store.HistoryColumn{Name: "id", Type: "text        NOT NULL"})
	for _, c := range e.LiveColumns() {
		h.Columns = append(h.Columns, store.HistoryColumn{Name: c.Name, Type: string(c.Type)})
	}
	h.Columns = append(h.Columns, recordColumns...)
	return h
}

// recordColumns are the columns every entity table has after its typed
// ones, as a version keeps them.
var recordColumns = []store.HistoryColumn{
	{Name: "raw", Type: "jsonb       NOT NULL"},
	{Name: "api_created_at", Type: "timestamptz"},
	{Name: "api_updated_at", Type: "timestamptz"},
	{Name: "deleted", Type: "boolean     NOT NULL"},
	{Name: "doc_hash", Type: "text        NOT NULL"},
	{Name: "first_seen_at", Type: "timestamptz NOT NULL"},
	{Name: "last_synced_at", Type: "timestamptz NOT NULL"},
}

// HistorySQL is the DDL that gives the entity's table its history, for a
// table created before it (in HistoryMigration, or in a later entity's own
// migration after CreateTableSQL); see store.History.SQL and
// docs/history.md. A version is written by the statement that writes the
// row, whichever writes it (a page's merge, a sweep), when the record's
// content or its deleted flag changed; an unchanged re-sync writes none.
// A new version's valid_from is the record's updated_at when it moved past
// the previous version's valid_from; otherwise (a tombstone made by a
// sweep, a change the service did not stamp, an updated_at that went
// back) the time of the write, and never less than the previous
// valid_from plus a millisecond. So the versions of a record are
// contiguous and never overlap.
func (e *Entity) HistorySQL() string { return e.history().SQL() }

// HistorySchemaSQL is the generated part of HistoryMigration: the history
// of every entity table created before it, in registry order.
func HistorySchemaSQL() string {
	var b strings.Builder
	for _, e := range registry {
		if e.Migration >= HistoryMigration {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.HistorySQL())
	}
	return b.String()
}

// CheckHistory checks that the entity's history is whole (see
// store.CheckHistory).
func CheckHistory(ctx context.Context, db store.Querier, e *Entity) error {
	return store.CheckHistory(ctx, db, e.history())
}
