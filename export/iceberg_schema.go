package export

import (
	"fmt"
	"slices"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go"
)

// An Iceberg table's schema derives from the same Table declaration as the
// Parquet export's: the same columns and kinds, the run column included.
// Iceberg gives every column a field id; the data files carry them, so a
// column added later (a migration) is a schema update, not a rewrite.

// icebergType is the Iceberg type of a column kind. Timestamps are
// timestamptz (microseconds, as Iceberg requires); JSON is a string
// (Iceberg has no JSON type); money is decimal(18, 6) stored as int64.
func icebergType(k Kind, elementID int) iceberg.Type {
	switch k {
	case String, JSON:
		return iceberg.PrimitiveTypes.String
	case Int64:
		return iceberg.PrimitiveTypes.Int64
	case Micros:
		return iceberg.DecimalTypeOf(18, 6)
	case Float64:
		return iceberg.PrimitiveTypes.Float64
	case Bool:
		return iceberg.PrimitiveTypes.Bool
	case Timestamp:
		return iceberg.PrimitiveTypes.TimestampTz
	case Date:
		return iceberg.PrimitiveTypes.Date
	case StringList:
		return &iceberg.ListType{ElementID: elementID, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}
	case Int64List:
		return &iceberg.ListType{ElementID: elementID, Element: iceberg.PrimitiveTypes.Int64, ElementRequired: true}
	}
	panic(fmt.Sprintf("export: unknown kind %d", k))
}

// icebergColumns is the table's columns with the run column first, as the
// Iceberg schema lists them.
func (t Table) icebergColumns() []Column {
	return append([]Column{{Name: RunColumn, Kind: Int64}}, t.Columns...)
}

// IcebergSchema is the Iceberg schema of a new table: ids are assigned in
// declaration order (the catalog reassigns them when it creates the table).
func (t Table) IcebergSchema() *iceberg.Schema {
	cols := t.icebergColumns()
	next := len(cols) + 1
	fields := make([]iceberg.NestedField, len(cols))
	for i, c := range cols {
		elem := 0
		if c.Kind == StringList || c.Kind == Int64List {
			elem, next = next, next+1
		}
		// An empty list is an empty list, never null: lists are required.
		fields[i] = iceberg.NestedField{ID: i + 1, Name: c.Name, Type: icebergType(c.Kind, elem),
			Required: !c.Nullable}
	}
	return iceberg.NewSchema(0, fields...)
}

// dateColumns are the columns whose month partitions a table: a report's
// date, the analytics' bucket_date.
var dateColumns = []string{"date", "bucket_date"}

// partitionColumns are the columns a table's Iceberg partitions derive
// from: its account (identity) when it has account_id, and the month of
// its date column when it has one. Commits then rewrite only the accounts
// and months whose rows changed.
func (t Table) partitionColumns() (account bool, date string) {
	for _, c := range t.Columns {
		switch {
		case c.Name == "account_id" && c.Kind == String && !c.Nullable:
			account = true
		case slices.Contains(dateColumns, c.Name) && c.Kind == Date && !c.Nullable && date == "":
			date = c.Name
		}
	}
	return account, date
}

// icebergSpec is the table's partition spec over sc.
func (t Table) icebergSpec(sc *iceberg.Schema) (iceberg.PartitionSpec, error) {
	account, date := t.partitionColumns()
	var opts []iceberg.PartitionOption
	if account {
		f, _ := sc.FindFieldByName("account_id")
		opts = append(opts, iceberg.AddPartitionFieldBySourceID(f.ID, "account_id", iceberg.IdentityTransform{}, sc, nil))
	}
	if date != "" {
		f, _ := sc.FindFieldByName(date)
		opts = append(opts, iceberg.AddPartitionFieldBySourceID(f.ID, "date_month", iceberg.MonthTransform{}, sc, nil))
	}
	return iceberg.NewPartitionSpecOpts(opts...)
}

// schemaChanges compares the table's declaration with the Iceberg table's
// current schema: the columns to add (declared, not in the table) and to
// drop (in the table, no longer declared). A column whose kind changed is
// an error: Iceberg cannot change most types in place.
func (t Table) schemaChanges(sc *iceberg.Schema) (add []Column, drop []string, err error) {
	cols := t.icebergColumns()
	for _, c := range cols {
		f, ok := sc.FindFieldByName(c.Name)
		if !ok {
			add = append(add, c)
			continue
		}
		if !f.Type.Equals(icebergType(c.Kind, elementID(f))) {
			return nil, nil, fmt.Errorf("column %s is %s in the Iceberg table and %s in adsync: a type cannot change in place (export to a new namespace)", c.Name, f.Type, icebergType(c.Kind, elementID(f)))
		}
	}
	for _, f := range sc.Fields() {
		if !slices.ContainsFunc(cols, func(c Column) bool { return c.Name == f.Name }) {
			drop = append(drop, f.Name)
		}
	}
	return add, drop, nil
}

func elementID(f iceberg.NestedField) int {
	if l, ok := f.Type.(*iceberg.ListType); ok {
		return l.ElementID
	}
	return 0
}

// icebergParquetSchema is the Parquet schema of the table's data files for
// the Iceberg table's schema sc: the Parquet export's columns and leaf
// order, each node carrying its Iceberg field id; timestamps in
// microseconds and JSON as plain strings, as Iceberg types them.
func (t Table) icebergParquetSchema(sc *iceberg.Schema) (*parquet.Schema, error) {
	g := parquet.Group{}
	for _, c := range t.icebergColumns() {
		f, ok := sc.FindFieldByName(c.Name)
		if !ok {
			return nil, fmt.Errorf("column %s is not in the Iceberg table's schema", c.Name)
		}
		var n parquet.Node
		switch c.Kind {
		case Timestamp:
			n = parquet.Timestamp(parquet.Microsecond)
		case JSON:
			n = parquet.String()
		case StringList:
			g[c.Name] = parquet.FieldID(parquet.List(parquet.FieldID(parquet.String(), elementID(f))), f.ID)
			continue
		case Int64List:
			g[c.Name] = parquet.FieldID(parquet.List(parquet.FieldID(parquet.Int(64), elementID(f))), f.ID)
			continue
		default:
			n = c.node()
			if c.Nullable {
				g[c.Name] = parquet.FieldID(n, f.ID)
				continue
			}
		}
		if c.Nullable {
			n = parquet.Optional(n)
		}
		g[c.Name] = parquet.FieldID(n, f.ID)
	}
	return parquet.NewSchema("table", g), nil
}

// monthOf is Iceberg's month transform of a date given in days since the
// Unix epoch: months since January 1970.
func monthOf(days int32) int32 {
	d := time.Unix(int64(days)*86400, 0).UTC()
	return int32((d.Year()-1970)*12 + int(d.Month()) - 1)
}
