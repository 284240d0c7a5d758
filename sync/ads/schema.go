package ads

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/adsync/adsync/sync/store"
)

// CreateTableSQL is the DDL of the entity's table: its typed columns, the
// whole record (raw), timestamps, tombstone flag and content hash. The
// migration holds the output of SchemaSQL; a test keeps them equal.
func (e *Entity) CreateTableSQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", e.Name)
	if e.HasAccount() {
		b.WriteString("    account_id     text        NOT NULL,\n")
	}
	b.WriteString("    id             text        NOT NULL,\n")
	for _, c := range e.Columns {
		if c.Migration == 0 {
			fmt.Fprintf(&b, "    %-14s %s,\n", c.Name, c.Type)
		}
	}
	b.WriteString("    raw            jsonb       NOT NULL,\n")
	b.WriteString("    api_created_at timestamptz,\n")
	b.WriteString("    api_updated_at timestamptz,\n")
	b.WriteString("    deleted        boolean     NOT NULL DEFAULT false,\n")
	b.WriteString("    doc_hash       text        NOT NULL,\n")
	b.WriteString("    first_seen_at  timestamptz NOT NULL DEFAULT now(),\n")
	b.WriteString("    last_synced_at timestamptz NOT NULL DEFAULT now(),\n")
	if e.HasAccount() {
		b.WriteString("    PRIMARY KEY (account_id, id)\n")
	} else {
		b.WriteString("    PRIMARY KEY (id)\n")
	}
	b.WriteString(");\n")
	if e.Incremental && e.IncrementalFrom == 0 {
		b.WriteString(e.updatedIndexSQL())
	}
	return b.String()
}

// updatedIndexSQL is the index an incremental entity's bookmark reads.
func (e *Entity) updatedIndexSQL() string {
	key := "api_updated_at DESC"
	if e.HasAccount() {
		key = "account_id, " + key
	}
	return fmt.Sprintf("CREATE INDEX %s_updated_idx ON %s (%s);\n", e.Name, e.Name, key)
}

// AlterSQL is the DDL migration version makes to the tables of entities
// created before it: the columns it adds and drops, filled from the rows'
// raw records as a sync would fill them (a row whose record did not change
// is never rewritten, so it would otherwise keep them NULL), and the
// updated_at indexes of entities that became incremental in it, in
// registry order (empty when it changes none). From HistoryMigration on, a
// table's columns change in its past versions' table too, and its history's
// view and trigger are made again (see HistorySQL). CreateTableSQL stays the
// DDL of the table as first created, so an applied migration's text never
// changes.
func AlterSQL(version int) string { return alterSQL(registry, version) }

// alterSQL is AlterSQL over entities.
func alterSQL(entities []*Entity, version int) string {
	var b strings.Builder
	for _, e := range entities {
		if e.Migration == version {
			continue // created by this migration: CreateTableSQL has it all
		}
		var changes, fills []string
		for _, c := range e.Columns {
			if c.Migration == version {
				changes = append(changes, fmt.Sprintf("ADD COLUMN %s %s", c.Name, c.Type))
				fills = append(fills, fmt.Sprintf("%s = %s", c.Name, c.exprOn("raw")))
			}
			if c.Dropped == version {
				changes = append(changes, "DROP COLUMN "+c.Name)
			}
		}
		// From HistoryMigration on, the past versions' table changes with
		// the table, and the history's view and trigger, which name every
		// column, are made again.
		history := version > HistoryMigration && len(changes) > 0
		if history {
			fmt.Fprintf(&b, "DROP VIEW %s;\n", e.History())
		}
		if len(changes) > 0 {
			fmt.Fprintf(&b, "ALTER TABLE %s\n    %s;\n", e.Name, strings.Join(changes, ",\n    "))
		}
		if history {
			fmt.Fprintf(&b, "ALTER TABLE %s\n    %s;\n", e.history().Closed(), strings.Join(changes, ",\n    "))
		}
		if len(fills) > 0 {
			// The rows' content changed: the export writes them again.
			// Their doc_hash and deleted flag did not: no new version.
			fmt.Fprintf(&b, "UPDATE %s SET\n    %s;\n", e.Name, strings.Join(append(fills, "last_synced_at = now()"), ",\n    "))
		}
		if history && len(fills) > 0 {
			fmt.Fprintf(&b, "UPDATE %s SET\n    %s;\n", e.history().Closed(), strings.Join(append(fills, "written_at = now()"), ",\n    "))
		}
		if history {
			b.WriteString(e.history().CodeSQL())
		}
		if e.Incremental && e.IncrementalFrom == version {
			b.WriteString(e.updatedIndexSQL())
		}
	}
	return b.String()
}

// SchemaSQL is the DDL of every entity table of 0003_ads.sql's generated
// part, in registry order (entities with a Migration of their own are in
// that migration).
func SchemaSQL() string {
	var b strings.Builder
	for _, e := range registry {
		if e.Migration != 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.CreateTableSQL())
	}
	return b.String()
}

// expr is the SQL computing column c from the staged row s.
func (c Column) expr() string {
	if c.FromParent {
		return "s.parent_id"
	}
	return c.exprOn("s.raw")
}

// exprOn is the SQL computing column c (not FromParent) from the record
// raw, a jsonb expression.
func (c Column) exprOn(raw string) string {
	f := c.Field
	if f == "" {
		f = c.Name
	}
	f = strings.ReplaceAll(f, "'", "''")
	switch c.Type {
	case BigInt, Bool, Timestamptz:
		return fmt.Sprintf("(%s->>'%s')::%s", raw, f, c.Type)
	case TextArray:
		return fmt.Sprintf("CASE WHEN jsonb_typeof(%s->'%s') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(%s->'%s')) END", raw, f, raw, f)
	case JSONB:
		return fmt.Sprintf("%s->'%s'", raw, f)
	}
	return fmt.Sprintf("%s->>'%s'", raw, f)
}

// insertColumns are the columns InsertNew fills, in the order of
// insertRow's values; first_seen_at and last_synced_at take their default,
// now(), as in the merge.
func (e *Entity) insertColumns() []string {
	var names []string
	if e.HasAccount() {
		names = append(names, "account_id")
	}
	names = append(names, "id")
	for _, c := range e.LiveColumns() {
		names = append(names, c.Name)
	}
	return append(names, "raw", "api_created_at", "api_updated_at", "deleted", "doc_hash")
}

// insertRow appends a staged record's values for insertColumns to row. Its
// own fields go as pointers, boxed with no allocation of their own.
func (e *Entity) insertRow(r *store.StagedRecord, row []any) []any {
	if e.HasAccount() {
		row = append(row, &r.AccountID)
	}
	row = append(row, &r.ID)
	row = append(row, r.Typed...)
	return append(row, (*json.RawMessage)(&r.Raw), r.CreatedAt, r.UpdatedAt, r.Deleted, &r.DocHash)
}

// MergeSQL moves the staged page (temp table ads_stage) into the entity's
// table. Rows whose doc_hash did not change are not rewritten, so their
// last_synced_at and xmin stay; RETURNING tells inserts from updates.
func (e *Entity) MergeSQL() string {
	names := []string{"id"}
	vals := []string{"s.id"}
	if e.HasAccount() {
		names = append([]string{"account_id"}, names...)
		vals = append([]string{"s.account_id"}, vals...)
	}
	var sets []string
	for _, c := range e.LiveColumns() {
		names = append(names, c.Name)
		vals = append(vals, c.expr())
		sets = append(sets, c.Name+" = EXCLUDED."+c.Name)
	}
	for _, n := range []string{"raw", "api_created_at", "api_updated_at", "deleted", "doc_hash"} {
		names = append(names, n)
		vals = append(vals, "s."+n)
		sets = append(sets, n+" = EXCLUDED."+n)
	}
	names = append(names, "first_seen_at", "last_synced_at")
	vals = append(vals, "now()", "now()")
	sets = append(sets, "last_synced_at = EXCLUDED.last_synced_at")
	key := "id"
	if e.HasAccount() {
		key = "account_id, id"
	}
	return fmt.Sprintf("INSERT INTO %s AS t (%s)\nSELECT %s\nFROM ads_stage s\nON CONFLICT (%s) DO UPDATE SET %s\nWHERE t.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash\nRETURNING (xmax = 0), deleted",
		e.Name, strings.Join(names, ", "), strings.Join(vals, ", "), key, strings.Join(sets, ", "))
}

// SweepSQL tombstones the live rows of a unit that a complete listing did
// not return (records removed for good, like deleted draft posts): the ids
// of the pages it stored and of the kept pages it found again (see
// store.MatchPrint) are what it returned. The
// doc_hash is cleared so the record is rewritten if it ever comes back.
// EXCEPT keeps the plan linear whatever the statistics say (a nested-loop
// anti-join on fresh tables is quadratic). Parameters: $1 run id, $2
// account id (” for global entities), $3 entity name. An access list's
// sweep marks access instead (see Entity.AccessList).
func (e *Entity) SweepSQL() string {
	if e.AccessList {
		return e.accessSQL()
	}
	acctCond := "$2::text = ''"
	if e.HasAccount() {
		acctCond = "account_id = $2"
	}
	return fmt.Sprintf(`UPDATE %s SET deleted = true, doc_hash = '', last_synced_at = now()
WHERE %s AND id IN (
    SELECT id FROM %s WHERE %s AND NOT deleted
    EXCEPT
    (SELECT unnest(ids) FROM sync_unit_seen_pages WHERE run_id = $1 AND account_id = $2 AND entity = $3
     UNION ALL
     SELECT unnest(ids) FROM sync_page_prints WHERE account_id = $2 AND entity = $3 AND seen_run = $1))`, e.Name, acctCond, e.Name, acctCond)
}

// accessSQL is the sweep of an access list: records the complete listing
// did not return become inaccessible (inaccessible_since is set), records
// it returned are accessible again; only rows whose access changes are
// written. Parameters as SweepSQL's.
func (e *Entity) accessSQL() string {
	return fmt.Sprintf(`UPDATE %s t SET inaccessible_since = CASE WHEN s.id IS NULL THEN now() END
FROM %s a LEFT JOIN (SELECT DISTINCT unnest(ids) AS id FROM sync_unit_seen_pages
    WHERE run_id = $1 AND account_id = $2 AND entity = $3) s ON s.id = a.id
WHERE t.id = a.id AND (t.inaccessible_since IS NULL) = (s.id IS NULL)`, e.Name, e.Name)
}
