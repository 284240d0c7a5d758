package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// History declares the history of a table of synced records: every
// version of each record, as the view <Table>_history (docs/history.md).
// The table's rows are the current versions; the versions a content change
// closed are kept in <Table>_history_closed, written by a trigger in the
// statement that changes the row. Each source of records declares its
// tables' histories from its own declaration of them (sync/ads's registry,
// sync/posts's tables).
type History struct {
	// Table is the table of records.
	Table string
	// Key are the columns identifying a record.
	Key []string
	// Columns are every column a version keeps, key included, in table
	// order.
	Columns []HistoryColumn
	// UpdatedAt is the column holding the record's updated_at as the
	// service served it ("" when the service gives none).
	UpdatedAt string
	// FirstSeen is the column holding when adsync first saw the record.
	FirstSeen string
	// Written is the column stamped when the row's content is written: the
	// current version's written_at.
	Written string
	// Changed are the columns whose change makes a new version (the
	// content hash, the tombstone flag).
	Changed []string
}

// HistoryColumn is one column a version keeps: its name and its type as
// the closed table declares it (with its NOT NULL).
type HistoryColumn struct{ Name, Type string }

// ValidFromPrecision is the SQL unit valid_from is truncated to and steps
// by: the export's timestamps are milliseconds, so two versions of a
// record never share an exported valid_from.
const ValidFromPrecision = "millisecond"

// View is the name of the view of every version.
func (h History) View() string { return h.Table + "_history" }

// Closed is the name of the table of the versions a change closed.
func (h History) Closed() string { return h.Table + "_history_closed" }

// currentValidFrom is the SQL of when the current version of row r (a
// table alias or OLD) began: valid_from once a change set it, else the
// record's updated_at as the service served it, else when adsync first
// saw it, to the millisecond.
func (h History) currentValidFrom(r string) string {
	first := r + "." + h.FirstSeen
	if h.UpdatedAt != "" {
		first = fmt.Sprintf("COALESCE(%s.%s, %s)", r, h.UpdatedAt, first)
	}
	return fmt.Sprintf("COALESCE(%s.valid_from, date_trunc('%s', %s))", r, ValidFromPrecision, first)
}

// nextValidFrom is the SQL of when the new version of NEW begins, given the
// previous one began at prev: the record's updated_at when it moved past
// prev, else the time of the write (as the row's Written column records
// it), and never before prev plus the precision.
func (h History) nextValidFrom() string {
	p := ValidFromPrecision
	written := fmt.Sprintf("GREATEST(date_trunc('%s', NEW.%s), prev + interval '1 %s')", p, h.Written, p)
	if h.UpdatedAt == "" {
		return written
	}
	upd := fmt.Sprintf("date_trunc('%s', NEW.%s)", p, h.UpdatedAt)
	return fmt.Sprintf("CASE WHEN %s > prev THEN %s\n        ELSE %s END", upd, upd, written)
}

// SQL is the DDL that gives the table, created before it, its history: the
// table's valid_from column (when its row's current version began, set by
// the trigger at each change; NULL until the first: the version began at
// the record's updated_at, or when adsync first saw it), the closed
// versions' table, the trigger's function and the view, and the trigger.
// So a fresh load writes no history at all, and the rows a table already
// holds are each their record's first version.
func (h History) SQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ALTER TABLE %s ADD COLUMN valid_from timestamptz;\n", h.Table)
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", h.Closed())
	for _, c := range h.Columns {
		fmt.Fprintf(&b, "    %-14s %s,\n", c.Name, c.Type)
	}
	b.WriteString("    valid_from     timestamptz NOT NULL,\n")
	b.WriteString("    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),\n")
	b.WriteString("    written_at     timestamptz NOT NULL DEFAULT now()\n")
	b.WriteString(");\n")
	fmt.Fprintf(&b, "CREATE INDEX %s_%s_idx ON %s (%s, valid_from);\n", h.Closed(), h.Key[len(h.Key)-1], h.Closed(), h.Key[len(h.Key)-1])
	b.WriteString(h.CodeSQL())
	changed := make([]string, len(h.Changed))
	for i, c := range h.Changed {
		changed[i] = fmt.Sprintf("OLD.%s IS DISTINCT FROM NEW.%s", c, c)
	}
	fmt.Fprintf(&b, "CREATE TRIGGER %s BEFORE UPDATE ON %s FOR EACH ROW\n", h.View(), h.Table)
	fmt.Fprintf(&b, "    WHEN (%s)\n", strings.Join(changed, " OR "))
	fmt.Fprintf(&b, "    EXECUTE FUNCTION %s_close();\n", h.View())
	return b.String()
}

// CodeSQL is the trigger's function and the view. Both name every column:
// a migration that adds or drops one drops the view first, changes the
// closed table as it changes the table, and makes them again with it.
func (h History) CodeSQL() string {
	cols := make([]string, len(h.Columns))
	old := make([]string, len(h.Columns))
	for i, c := range h.Columns {
		cols[i], old[i] = c.Name, "OLD."+c.Name
	}
	list := strings.Join(cols, ", ")
	var b strings.Builder
	fmt.Fprintf(&b, `CREATE OR REPLACE FUNCTION %s_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := %s;
BEGIN
    NEW.valid_from := %s;
    INSERT INTO %s (%s, valid_from, valid_to)
    VALUES (%s, prev, NEW.valid_from);
    RETURN NEW;
END $$;
`, h.View(), h.currentValidFrom("OLD"), h.nextValidFrom(), h.Closed(), list, strings.Join(old, ", "))
	fmt.Fprintf(&b, `CREATE VIEW %s AS
SELECT %s,
    %s AS valid_from, NULL::timestamptz AS valid_to, t.%s AS written_at
FROM %s t
UNION ALL
SELECT %s, valid_from, valid_to, written_at
FROM %s;
`, h.View(), "t."+strings.Join(cols, ", t."), h.currentValidFrom("t"), h.Written, h.Table, list, h.Closed())
	return b.String()
}

// CheckHistory checks that a table's history is whole: each record's
// versions are contiguous (a version's valid_to is the next one's
// valid_from), only its last one is current (valid_to NULL), and two
// versions in a row differ in content (h.Changed). The current versions
// are the table's rows, so they equal them by construction. It returns an
// error naming the first record that breaks a rule, and what it breaks.
func CheckHistory(ctx context.Context, db Querier, h History) error {
	key := strings.Join(h.Key, ", ")
	var lags, repeats []string
	for _, c := range h.Changed {
		lags = append(lags, fmt.Sprintf("lag(%s) OVER w AS prev_%s", c, c))
		repeats = append(repeats, fmt.Sprintf("prev_%s = %s", c, c))
	}
	q := fmt.Sprintf(`WITH v AS (
    SELECT %s, valid_from, valid_to, %s,
        lead(valid_from) OVER w AS next_from, %s
    FROM %s WINDOW w AS (PARTITION BY %s ORDER BY valid_from))
SELECT concat_ws('/', %s), valid_from::text, CASE
    WHEN next_from IS NULL AND valid_to IS NOT NULL THEN 'its last version is closed'
    WHEN next_from IS NOT NULL AND valid_to IS NULL THEN 'a version before its last is current'
    WHEN valid_to <> next_from THEN 'a version ends at ' || valid_to::text || ', not where the next begins (' || next_from::text || ')'
    ELSE 'the version repeats the previous one''s content' END
FROM v
WHERE (next_from IS NULL) <> (valid_to IS NULL) OR valid_to <> next_from OR (%s)
LIMIT 1`, key, strings.Join(h.Changed, ", "), strings.Join(lags, ", "), h.View(), key, key, strings.Join(repeats, " AND "))
	var id, from, what string
	err := db.QueryRow(ctx, q).Scan(&id, &from, &what)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking %s: %w", h.View(), err)
	}
	return fmt.Errorf("%s: record %s, version from %s: %s", h.View(), id, from, what)
}
