package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Kind is a column's Parquet type.
type Kind int

// Column kinds. Timestamps are UTC milliseconds; money is int64 micros.
const (
	String Kind = iota
	Int64
	Float64
	Bool
	Timestamp  // TIMESTAMP(MILLIS, UTC)
	Date       // DATE
	JSON       // BYTE_ARRAY annotated JSON: the raw record
	StringList // LIST<STRING>
	Int64List  // LIST<INT64>
	// Micros is an integer count of micro units (a bigint) written as
	// DECIMAL(18, 6): money in currency units, exact, that readers sum as
	// decimals.
	Micros
)

// kindNames are the kinds' names, by Kind.
var kindNames = [...]string{String: "string", Int64: "int64", Float64: "float64", Bool: "bool", Timestamp: "timestamp",
	Date: "date", JSON: "json", StringList: "string_list", Int64List: "int64_list", Micros: "micros"}

// String is the kind's name in snake_case (timestamp, string_list, ...).
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Column is one exported column.
type Column struct {
	// Name is the Parquet column name (snake_case, as the API names it).
	Name string
	// SQL is the select expression producing it (default: Name).
	SQL  string
	Kind Kind
	// Nullable makes the column optional.
	Nullable bool
}

func (c Column) expr() string {
	if c.SQL != "" {
		return c.SQL
	}
	return c.Name
}

// Table describes one exported table.
type Table struct {
	// Name is the output directory (OUT/<Name>/dt=.../).
	Name string
	// From is the SQL source (a table name or a FROM clause body).
	From string
	// ChangedAt is the SQL expression of when a row last changed, set with
	// the database clock (now()); incremental runs export rows whose value
	// is past the last run's watermark.
	ChangedAt string
	// OrderBy keeps files stable (default: ChangedAt).
	OrderBy string
	// Key names the columns that identify one record. A record changed
	// since the last run is written again by the next, so an output holds
	// every exported version; a reader keeps, per key, the rows of the
	// newest run (RunColumn), as LatestQuery does. For a table whose
	// records are replaced as a group (a keyword insights window), Key
	// names the group: the newest run's rows of that group are its
	// current content.
	Key     []string
	Columns []Column
}

// RunColumn is the column every exported row carries: the id of the export
// run that wrote it. Within an output, a later run holds later versions.
const RunColumn = "_export_run"

// LatestQuery is the DuckDB query reading the current version of every
// record of t from the export folder root: per key, the rows of the newest
// run. docs/export.md shows the same query.
func (t Table) LatestQuery(root string) string {
	glob := strings.TrimSuffix(root, "/") + "/" + t.Name + "/*/*.parquet"
	return fmt.Sprintf("SELECT * EXCLUDE (%s) FROM read_parquet('%s', union_by_name = true) QUALIFY %s = max(%s) OVER (PARTITION BY %s)",
		RunColumn, strings.ReplaceAll(glob, "'", "''"), RunColumn, RunColumn, strings.Join(t.Key, ", "))
}

// node is the Parquet node of a column.
func (c Column) node() parquet.Node {
	var n parquet.Node
	switch c.Kind {
	case String:
		n = parquet.String()
	case Int64:
		n = parquet.Int(64)
	case Micros:
		n = parquet.Decimal(6, 18, parquet.Int64Type)
	case Float64:
		n = parquet.Leaf(parquet.DoubleType)
	case Bool:
		n = parquet.Leaf(parquet.BooleanType)
	case Timestamp:
		n = parquet.Timestamp(parquet.Millisecond)
	case Date:
		n = parquet.Date()
	case JSON:
		n = parquet.JSON()
	case StringList:
		return parquet.List(parquet.String()) // an empty list, never null
	case Int64List:
		return parquet.List(parquet.Int(64))
	default:
		panic(fmt.Sprintf("export: column %s: unknown kind %d", c.Name, c.Kind))
	}
	if c.Nullable {
		n = parquet.Optional(n)
	}
	return n
}

// Schema is the table's Parquet schema.
func (t Table) Schema() *parquet.Schema {
	g := parquet.Group{RunColumn: parquet.Int(64)}
	for _, c := range t.Columns {
		g[c.Name] = c.node()
	}
	return parquet.NewSchema(t.Name, g)
}

// Fingerprint identifies the schema (names, kinds, nullability), so a
// warehouse loader can tell when a table's shape changed.
func (t Table) Fingerprint() string {
	parts := []string{fmt.Sprintf("%s:%d:%t", RunColumn, Int64, false)}
	for _, c := range t.Columns {
		parts = append(parts, fmt.Sprintf("%s:%d:%t", c.Name, c.Kind, c.Nullable))
	}
	sort.Strings(parts)
	sum := sha256.Sum256([]byte(t.Name + "|" + strings.Join(parts, ",")))
	return hex.EncodeToString(sum[:8])
}

// Validate checks the description.
func (t Table) Validate() error {
	if t.Name == "" || t.From == "" || t.ChangedAt == "" || len(t.Columns) == 0 {
		return fmt.Errorf("export table %q: name, source, changed-at and columns are required", t.Name)
	}
	seen := map[string]bool{}
	for _, c := range t.Columns {
		if c.Name == "" || strings.ToLower(c.Name) != c.Name || strings.ContainsAny(c.Name, " -.") {
			return fmt.Errorf("export table %s: column %q is not snake_case", t.Name, c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("export table %s: column %s twice", t.Name, c.Name)
		}
		seen[c.Name] = true
	}
	if seen[RunColumn] {
		return fmt.Errorf("export table %s: column %s is the export's own", t.Name, RunColumn)
	}
	if len(t.Key) == 0 {
		return fmt.Errorf("export table %s: a key is required (the columns identifying a record)", t.Name)
	}
	for _, k := range t.Key {
		if !seen[k] {
			return fmt.Errorf("export table %s: key column %s is not exported", t.Name, k)
		}
	}
	return nil
}
