package export

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/parquet-go/parquet-go"
)

// The export turns each row's raw wire values straight into Parquet values:
// no boxing into Go values and no reflection, which would otherwise cost
// more than the encoding itself. Binary formats are read as Postgres sends
// them (pgx asks for binary for these types); any other type takes pgx's
// own decoder and convert.

// leafOrder is the table's columns in the order of the Parquet schema's
// leaves (by name), after the run column, which sorts first and is not
// selected.
func (t Table) leafOrder() []Column {
	cols := append([]Column(nil), t.Columns...)
	sort.Slice(cols, func(i, j int) bool { return cols[i].Name < cols[j].Name })
	return cols
}

// rowBuilder appends the Parquet values of one row.
type rowBuilder struct {
	cols  []Column
	run   int64
	types *pgtype.Map
	// micros writes timestamps in microseconds (Iceberg's unit), not
	// milliseconds.
	micros bool
	// arena holds copies of the bytes of a batch's values: the raw values
	// are only valid until the next row is read.
	arena []byte
	// elems is the elements of the array being read, reused from row to
	// row so that reading an array allocates nothing.
	elems [][]byte
}

func newRowBuilder(t Table, run int64, types *pgtype.Map) *rowBuilder {
	return &rowBuilder{cols: t.leafOrder(), run: run, types: types}
}

// check verifies that the query returns the columns in leaf order.
func (b *rowBuilder) check(fields []pgconn.FieldDescription) error {
	if len(fields) != len(b.cols) {
		return fmt.Errorf("the query returns %d columns, the schema has %d", len(fields), len(b.cols))
	}
	return nil
}

// copyBytes keeps p in the batch's arena. A full arena is replaced by one
// twice as large (the values already in it stay where they are), so a
// recycled batch soon holds a whole batch's bytes in one arena.
func (b *rowBuilder) copyBytes(p []byte) []byte {
	if cap(b.arena)-len(b.arena) < len(p) {
		b.arena = make([]byte, 0, max(1<<20, 2*cap(b.arena), len(p)))
	}
	start := len(b.arena)
	b.arena = append(b.arena, p...)
	return b.arena[start:len(b.arena):len(b.arena)]
}

// postgresEpoch is 2000-01-01 in Unix days and milliseconds.
const (
	postgresEpochDays   = 10957
	postgresEpochMillis = postgresEpochDays * 86400 * 1000
	postgresEpochMicros = postgresEpochMillis * 1000
)

// append appends the values of the current row to row.
func (b *rowBuilder) append(row parquet.Row, fields []pgconn.FieldDescription, raw [][]byte) (parquet.Row, error) {
	row = append(row, parquet.Int64Value(b.run).Level(0, 0, 0))
	for i, c := range b.cols {
		var err error
		row, err = b.value(row, i+1, c, fields[i], raw[i])
		if err != nil {
			return row, fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	return row, nil
}

// value appends column c's value raw, the col-th leaf of the row, as the
// query sent it (f): a NULL, text as it is, a binary value of a type it
// knows read straight from the wire, anything else through fallback.
func (b *rowBuilder) value(row parquet.Row, col int, c Column, f pgconn.FieldDescription, raw []byte) (parquet.Row, error) {
	def := 0
	if c.Nullable {
		def = 1
	}
	if raw == nil {
		switch {
		case c.Kind == StringList || c.Kind == Int64List:
			return append(row, parquet.NullValue().Level(0, 0, col)), nil // an empty list
		case !c.Nullable:
			return row, fmt.Errorf("null in a column declared not null")
		}
		return append(row, parquet.NullValue().Level(0, 0, col)), nil
	}
	if f.Format != pgtype.BinaryFormatCode {
		// pgx asks for text as text: its bytes are the value, and the text
		// form of json and jsonb is the JSON itself.
		switch {
		case (c.Kind == String && textOID(f.DataTypeOID)) || (c.Kind == JSON && (textOID(f.DataTypeOID) || f.DataTypeOID == pgtype.JSONOID || f.DataTypeOID == pgtype.JSONBOID)):
			return append(row, parquet.ByteArrayValue(b.copyBytes(raw)).Level(0, def, col)), nil
		}
		return b.fallback(row, col, c, f, raw, def)
	}
	if c.Kind == StringList || c.Kind == Int64List {
		return b.list(row, col, c, f, raw)
	}
	v, ok, err := b.binaryValue(c.Kind, f.DataTypeOID, raw)
	if err != nil {
		return row, err
	}
	if !ok {
		return b.fallback(row, col, c, f, raw, def)
	}
	return append(row, v.Level(0, def, col)), nil
}

// binaryValue reads raw, a binary value of Postgres type oid, as a value of
// a column of kind k. It reports false when it does not know how (the
// type or the length is not one it reads): fallback does then.
func (b *rowBuilder) binaryValue(k Kind, oid uint32, raw []byte) (parquet.Value, bool, error) {
	switch k {
	case String:
		if !textOID(oid) {
			return parquet.Value{}, false, nil
		}
		return parquet.ByteArrayValue(b.copyBytes(raw)), true, nil
	case Int64, Micros:
		n, ok := binaryInt(oid, raw)
		return parquet.Int64Value(n), ok, nil
	case Float64:
		switch {
		case oid == pgtype.Float8OID && len(raw) == 8:
			return parquet.DoubleValue(math.Float64frombits(binary.BigEndian.Uint64(raw))), true, nil
		case oid == pgtype.Float4OID && len(raw) == 4:
			return parquet.DoubleValue(float64(math.Float32frombits(binary.BigEndian.Uint32(raw)))), true, nil
		}
	case Bool:
		if oid == pgtype.BoolOID && len(raw) == 1 {
			return parquet.BooleanValue(raw[0] != 0), true, nil
		}
	case Timestamp:
		if (oid != pgtype.TimestamptzOID && oid != pgtype.TimestampOID) || len(raw) != 8 {
			return parquet.Value{}, false, nil
		}
		us := int64(binary.BigEndian.Uint64(raw))
		if us == math.MaxInt64 || us == math.MinInt64 {
			return parquet.Value{}, false, fmt.Errorf("an infinite timestamp cannot be exported")
		}
		if b.micros {
			return parquet.Int64Value(us + postgresEpochMicros), true, nil
		}
		return parquet.Int64Value(floorDiv(us, 1000) + postgresEpochMillis), true, nil
	case Date:
		if oid != pgtype.DateOID || len(raw) != 4 {
			return parquet.Value{}, false, nil
		}
		d := int32(binary.BigEndian.Uint32(raw))
		if d == math.MaxInt32 || d == math.MinInt32 {
			return parquet.Value{}, false, fmt.Errorf("an infinite date cannot be exported")
		}
		return parquet.Int32Value(d + postgresEpochDays), true, nil
	case JSON:
		switch oid {
		case pgtype.JSONBOID:
			if len(raw) == 0 || raw[0] != 1 {
				return parquet.Value{}, false, fmt.Errorf("unknown jsonb format version")
			}
			return parquet.ByteArrayValue(b.copyBytes(raw[1:])), true, nil
		case pgtype.JSONOID, pgtype.TextOID, pgtype.VarcharOID:
			return parquet.ByteArrayValue(b.copyBytes(raw)), true, nil
		}
	}
	return parquet.Value{}, false, nil
}

// list appends a one-dimensional array as a LIST: an empty list is one
// null at definition level 0; null elements are left out, as convert does.
func (b *rowBuilder) list(row parquet.Row, col int, c Column, f pgconn.FieldDescription, raw []byte) (parquet.Row, error) {
	elems, elemOID, ok := binaryArray(b.elems[:0], raw)
	b.elems = elems
	if !ok {
		return b.fallback(row, col, c, f, raw, 0)
	}
	// An element that is not what was expected hands the whole value to
	// fallback, with none of the elements appended before it.
	start := len(row)
	n := 0
	for _, e := range elems {
		if e == nil {
			continue
		}
		var v parquet.Value
		if c.Kind == StringList {
			if !textOID(elemOID) {
				return b.fallback(row[:start], col, c, f, raw, 0)
			}
			v = parquet.ByteArrayValue(b.copyBytes(e))
		} else {
			x, ok := binaryInt(elemOID, e)
			if !ok {
				return b.fallback(row[:start], col, c, f, raw, 0)
			}
			v = parquet.Int64Value(x)
		}
		rep := 1
		if n == 0 {
			rep = 0
		}
		row = append(row, v.Level(rep, 1, col))
		n++
	}
	if n == 0 {
		row = append(row, parquet.NullValue().Level(0, 0, col))
	}
	return row, nil
}

// fallback decodes a value pgx's way and converts it like convert does.
func (b *rowBuilder) fallback(row parquet.Row, col int, c Column, f pgconn.FieldDescription, raw []byte, def int) (parquet.Row, error) {
	dt, ok := b.types.TypeForOID(f.DataTypeOID)
	if !ok {
		return row, fmt.Errorf("unknown Postgres type %d", f.DataTypeOID)
	}
	x, err := dt.Codec.DecodeValue(b.types, f.DataTypeOID, f.Format, raw)
	if err != nil {
		return row, err
	}
	x, err = convert(c, x)
	if err != nil {
		return row, err
	}
	switch v := x.(type) {
	case nil:
		return append(row, parquet.NullValue().Level(0, 0, col)), nil
	case string:
		return append(row, parquet.ByteArrayValue(b.copyBytes([]byte(v))).Level(0, def, col)), nil
	case int64:
		return append(row, parquet.Int64Value(v).Level(0, def, col)), nil
	case float64:
		return append(row, parquet.DoubleValue(v).Level(0, def, col)), nil
	case bool:
		return append(row, parquet.BooleanValue(v).Level(0, def, col)), nil
	case []string:
		for i, s := range v {
			row = append(row, parquet.ByteArrayValue(b.copyBytes([]byte(s))).Level(min(i, 1), 1, col))
		}
		if len(v) == 0 {
			row = append(row, parquet.NullValue().Level(0, 0, col))
		}
		return row, nil
	case []int64:
		for i, n := range v {
			row = append(row, parquet.Int64Value(n).Level(min(i, 1), 1, col))
		}
		if len(v) == 0 {
			row = append(row, parquet.NullValue().Level(0, 0, col))
		}
		return row, nil
	}
	if t, ok := x.(interface{ UnixMicro() int64 }); ok && c.Kind == Timestamp && b.micros {
		return append(row, parquet.Int64Value(t.UnixMicro()).Level(0, def, col)), nil
	}
	if t, ok := x.(interface{ UnixMilli() int64 }); ok && c.Kind == Timestamp {
		return append(row, parquet.Int64Value(t.UnixMilli()).Level(0, def, col)), nil
	}
	if t, ok := x.(interface{ Unix() int64 }); ok && c.Kind == Date {
		return append(row, parquet.Int32Value(int32(floorDiv(t.Unix(), 86400))).Level(0, def, col)), nil
	}
	return row, fmt.Errorf("cannot export a %T as kind %d", x, c.Kind)
}

// textOID says whether a value of the type is its text, in either format.
func textOID(oid uint32) bool {
	switch oid {
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID:
		return true
	}
	return false
}

func binaryInt(oid uint32, raw []byte) (int64, bool) {
	switch {
	case oid == pgtype.Int8OID && len(raw) == 8:
		return int64(binary.BigEndian.Uint64(raw)), true
	case oid == pgtype.Int4OID && len(raw) == 4:
		return int64(int32(binary.BigEndian.Uint32(raw))), true
	case oid == pgtype.Int2OID && len(raw) == 2:
		return int64(int16(binary.BigEndian.Uint16(raw))), true
	}
	return 0, false
}

// binaryArray splits a one-dimensional array in Postgres's binary format
// into its elements (nil for a null element), appended to out.
func binaryArray(out [][]byte, raw []byte) ([][]byte, uint32, bool) {
	if len(raw) < 12 {
		return out, 0, false
	}
	ndim := int32(binary.BigEndian.Uint32(raw))
	elemOID := binary.BigEndian.Uint32(raw[8:])
	p := raw[12:]
	if ndim == 0 {
		return out, elemOID, true
	}
	if ndim != 1 || len(p) < 8 {
		return out, 0, false
	}
	n := int(int32(binary.BigEndian.Uint32(p)))
	p = p[8:]
	if n < 0 || n > len(p)/4 {
		return out, 0, false
	}
	for i := 0; i < n; i++ {
		if len(p) < 4 {
			return out, 0, false
		}
		l := int(int32(binary.BigEndian.Uint32(p)))
		p = p[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if l > len(p) {
			return out, 0, false
		}
		out = append(out, p[:l:l])
		p = p[l:]
	}
	return out, elemOID, true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// typeMap is the connection's type map, for the fallback decoder.
func typeMap(rows pgx.Rows) *pgtype.Map { return rows.Conn().TypeMap() }
