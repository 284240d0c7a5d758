package ads

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
)

// HistoryMigration is the app migration that gave every entity table its
// history (see Entity.HistorySQL); an entity created later has its
// history in its own migration, beside its table.
const HistoryMigration = 31

// History is the name of the view holding every version of the entity's
// records: the table's columns plus valid_from and valid_to (NULL for the
// current version).
func (e *Entity) History() string { return e.Name + "_history" }

// closedTable is the table of the entity's past versions: those a content
// change closed.
func (e *Entity) closedTable() string { return e.Name + "_history_closed" }

// ValidFromPrecision is the SQL unit valid_from is truncated to and steps
// by: the export's timestamps are milliseconds, so two versions of a
// record never share an exported valid_from.
const ValidFromPrecision = "millisecond"

// currentValidFrom is the SQL of when the current version of row r (a
// table alias or OLD) began: valid_from once a change set it, else the
// record's updated_at as the service served it, else when adsync first
// saw it, to the millisecond.
func currentValidFrom(r string) string {
	return fmt.Sprintf("COALESCE(%s.valid_from, date_trunc('%s', COALESCE(%s.api_updated_at, %s.first_seen_at)))",
		r, ValidFromPrecision, r, r)
}

// historyColumns are the columns a version keeps: the table's as the
// registry declares them now, in table order.
func (e *Entity) historyColumns() []string {
	var names []string
	if e.HasAccount() {
		names = append(names, "account_id")
	}
	names = append(names, "id")
	for _, c := range e.LiveColumns() {
		names = append(names, c.Name)
	}
	return append(names, "raw", "api_created_at", "api_updated_at", "deleted", "doc_hash", "first_seen_at", "last_synced_at")
}

// HistorySQL is the DDL that gives the entity's table its history, for a
// table created before it (in HistoryMigration, or in a later entity's own
// migration after CreateTableSQL):
//
//   - the table's valid_from: when its row's current version began, set by
//     the trigger at each content change (NULL until the first one: the
//     version began at api_updated_at, or first_seen_at when the service
//     gives no updated_at). So a fresh load writes no history at all, and a
//     table's existing rows are each their record's first version as soon
//     as the migration adds the column.
//   - <table>_history_closed: the versions a change closed, each with the
//     valid_to its successor's valid_from is, and written_at (when adsync
//     wrote it, for the export's incremental runs).
//   - the trigger: before an update that changes a row's doc_hash or its
//     deleted flag (a changed record, a tombstone), in the statement that
//     writes the row, whichever writes it (a page's merge, a sweep), it
//     copies the row's old version into the closed table and sets the new
//     version's valid_from. An unchanged re-sync does not update the row,
//     so it writes no version.
//   - <table>_history: the view of every version, the table's rows as the
//     current ones (valid_to NULL) beside the closed ones.
//
// A new version's valid_from is the record's updated_at when it moved past
// the previous version's valid_from; otherwise (a tombstone made by a
// sweep, a change the service did not stamp, an updated_at that went
// back) the time of the write, and never less than the previous
// valid_from plus a millisecond. So the versions of a record are
// contiguous and never overlap.
func (e *Entity) HistorySQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ALTER TABLE %s ADD COLUMN valid_from timestamptz;\n", e.Name)
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", e.closedTable())
	for _, c := range e.closedColumnsDDL() {
		fmt.Fprintf(&b, "    %-14s %s,\n", c[0], c[1])
	}
	b.WriteString("    valid_from     timestamptz NOT NULL,\n")
	b.WriteString("    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),\n")
	b.WriteString("    written_at     timestamptz NOT NULL DEFAULT now()\n")
	b.WriteString(");\n")
	fmt.Fprintf(&b, "CREATE INDEX %s_id_idx ON %s (id, valid_from);\n", e.closedTable(), e.closedTable())
	b.WriteString(e.historyCodeSQL())
	fmt.Fprintf(&b, "CREATE TRIGGER %s BEFORE UPDATE ON %s FOR EACH ROW\n", e.History(), e.Name)
	b.WriteString("    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash OR OLD.deleted IS DISTINCT FROM NEW.deleted)\n")
	fmt.Fprintf(&b, "    EXECUTE FUNCTION %s_close();\n", e.History())
	return b.String()
}

// closedColumnsDDL are the names and types of the closed table's copies of
// the table's columns.
func (e *Entity) closedColumnsDDL() [][2]string {
	types := map[string]string{"account_id": "text        NOT NULL", "id": "text        NOT NULL",
		"raw": "jsonb       NOT NULL", "api_created_at": "timestamptz", "api_updated_at": "timestamptz",
		"deleted": "boolean     NOT NULL", "doc_hash": "text        NOT NULL",
		"first_seen_at": "timestamptz NOT NULL", "last_synced_at": "timestamptz NOT NULL"}
	for _, c := range e.LiveColumns() {
		types[c.Name] = string(c.Type)
	}
	var out [][2]string
	for _, n := range e.historyColumns() {
		out = append(out, [2]string{n, types[n]})
	}
	return out
}

// historyCodeSQL is the trigger's function and the view: both name every
// column, so a migration that adds or drops one makes them again (see
// AlterSQL).
func (e *Entity) historyCodeSQL() string {
	cols := e.historyColumns()
	old := make([]string, len(cols))
	for i, c := range cols {
		old[i] = "OLD." + c
	}
	list := strings.Join(cols, ", ")
	var b strings.Builder
	fmt.Fprintf(&b, `CREATE OR REPLACE FUNCTION %s_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := %s;
BEGIN
    NEW.valid_from := CASE WHEN date_trunc('%s', NEW.api_updated_at) > prev THEN date_trunc('%s', NEW.api_updated_at)
        ELSE GREATEST(date_trunc('%s', now()), prev + interval '1 %s') END;
    INSERT INTO %s (%s, valid_from, valid_to)
    VALUES (%s, prev, NEW.valid_from);
    RETURN NEW;
END $$;
`, e.History(), currentValidFrom("OLD"), ValidFromPrecision, ValidFromPrecision, ValidFromPrecision, ValidFromPrecision,
		e.closedTable(), list, strings.Join(old, ", "))
	fmt.Fprintf(&b, `CREATE VIEW %s AS
SELECT %s,
    %s AS valid_from, NULL::timestamptz AS valid_to, t.last_synced_at AS written_at
FROM %s t
UNION ALL
SELECT %s, valid_from, valid_to, written_at
FROM %s;
`, e.History(), "t."+strings.Join(cols, ", t."), currentValidFrom("t"), e.Name, list, e.closedTable())
	return b.String()
}

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

// CheckHistory checks that the entity's history is whole: each record's
// versions are contiguous (a version's valid_to is the next one's
// valid_from), only its last one is current (valid_to NULL), and two
// versions in a row differ in content (doc_hash or deleted). The current
// versions are the table's rows, so they equal them by construction. It
// returns an error naming the first record that breaks a rule, and what it
// breaks.
func CheckHistory(ctx context.Context, db store.Querier, e *Entity) error {
	key := "id"
	if e.HasAccount() {
		key = "account_id, id"
	}
	q := fmt.Sprintf(`WITH v AS (
    SELECT %s, valid_from, valid_to, doc_hash, deleted,
        lead(valid_from) OVER w AS next_from, lag(doc_hash) OVER w AS prev_hash, lag(deleted) OVER w AS prev_deleted
    FROM %s WINDOW w AS (PARTITION BY %s ORDER BY valid_from))
SELECT id, valid_from::text, CASE
    WHEN next_from IS NULL AND valid_to IS NOT NULL THEN 'its last version is closed'
    WHEN next_from IS NOT NULL AND valid_to IS NULL THEN 'a version before its last is current'
    WHEN valid_to <> next_from THEN 'a version ends at ' || valid_to::text || ', not where the next begins (' || next_from::text || ')'
    ELSE 'the version repeats the previous one''s content' END
FROM v
WHERE (next_from IS NULL) <> (valid_to IS NULL) OR valid_to <> next_from
    OR (prev_hash = doc_hash AND prev_deleted = deleted)
LIMIT 1`, key, e.History(), key)
	var id, from, what string
	err := db.QueryRow(ctx, q).Scan(&id, &from, &what)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking %s: %w", e.History(), err)
	}
	return fmt.Errorf("%s: record %s, version from %s: %s", e.History(), id, from, what)
}
