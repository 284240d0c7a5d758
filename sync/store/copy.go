package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// copyBinary COPYs n rows (row(i, vals) appends the i-th's values, in the
// order of columns, to vals, empty and reused from row to row) into table, in Postgres's binary format, and returns the rows
// copied. It does what tx.CopyFrom does, in the same round trips (the
// columns' types are read once per connection, then kept), but encodes
// the types the entity tables hold (text, bigint, boolean, timestamptz,
// jsonb, text[]) itself: pgx's CopyFrom looks each value's encoder up in
// two maps and encodes it through an interface, which was most of a fresh
// load's COPY in the client's profile. Any other value goes through pgx's
// type map, as CopyFrom's would.
func copyBinary(ctx context.Context, tx pgx.Tx, table string, columns []string, n int, row func(i int, vals []any) []any) (int64, error) {
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = pgx.Identifier{c}.Sanitize()
	}
	cols := strings.Join(quoted, ", ")
	ident := pgx.Identifier{table}.Sanitize()
	describe := "select " + cols + " from " + ident
	// Prepared under its own text as name: a second call on the
	// connection finds it kept, with no round trip.
	sd, err := tx.Conn().Prepare(ctx, describe, describe)
	if err != nil {
		return 0, fmt.Errorf("reading the column types of %s: %w", table, err)
	}
	oids := make([]uint32, len(sd.Fields))
	for i, f := range sd.Fields {
		oids[i] = f.DataTypeOID
	}
	r := &copyReader{oids: oids, n: n, row: row, types: tx.Conn().TypeMap()}
	r.buf = append(r.buf, "PGCOPY\n\377\r\n\000\x00\x00\x00\x00\x00\x00\x00\x00"...)
	tag, err := tx.Conn().PgConn().CopyFrom(ctx, r, "COPY "+ident+" ( "+cols+" ) FROM STDIN BINARY")
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// copyChunk is about how much a copyReader encodes at a time.
const copyChunk = 64 << 10

// copyReader encodes rows in Postgres's binary COPY format as they are
// read, a chunk at a time.
type copyReader struct {
	oids   []uint32
	n, i   int
	row    func(int, []any) []any
	vals   []any // the row's values, reused
	types  *pgtype.Map
	buf    []byte
	off    int
	ended  bool
	failed error
}

func (r *copyReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.failed != nil {
			return 0, r.failed
		}
		if r.ended {
			return 0, io.EOF
		}
		r.buf, r.off = r.buf[:0], 0
		r.fill()
	}
	k := copy(p, r.buf[r.off:])
	r.off += k
	return k, nil
}

// fill encodes rows into buf until it holds a chunk or the rows end (then
// with the trailer).
func (r *copyReader) fill() {
	for len(r.buf) < copyChunk && r.i < r.n {
		vals := r.row(r.i, r.vals[:0])
		r.vals = vals
		r.i++
		if len(vals) != len(r.oids) {
			r.failed = fmt.Errorf("expected %d values, got %d values", len(r.oids), len(vals))
			return
		}
		r.buf = binary.BigEndian.AppendUint16(r.buf, uint16(len(vals)))
		for j, v := range vals {
			var err error
			if r.buf, err = r.appendValue(r.buf, r.oids[j], v); err != nil {
				r.failed = err
				return
			}
		}
	}
	if r.i == r.n {
		r.buf = binary.BigEndian.AppendUint16(r.buf, 0xffff) // the trailer: -1
		r.ended = true
	}
}

// The type OIDs copyBinary encodes itself.
const (
	oidBool        = 16
	oidInt8        = 20
	oidText        = 25
	oidVarchar     = 1043
	oidTimestamptz = 1184
	oidJSONB       = 3802
	oidTextArray   = 1009
)

// appendValue appends v as one field (its length, then its bytes; -1 for
// NULL) of a column of type oid.
func (r *copyReader) appendValue(buf []byte, oid uint32, v any) ([]byte, error) {
	start := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, 0)
	out, null, ok := appendKnown(buf, oid, v)
	if !ok {
		var err error
		if out, err = r.types.Encode(oid, pgtype.BinaryFormatCode, v, buf); err != nil {
			if out, err = encodeViaText(r.types, buf, oid, v); err != nil {
				return nil, err
			}
		}
		null = out == nil
	}
	if null {
		return binary.BigEndian.AppendUint32(buf[:start], 0xffffffff), nil
	}
	binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start-4))
	return out, nil
}

// encodeViaText encodes v for a column of type oid as pgx's CopyFrom does
// when it has no binary encoder for v: v as text (a string as it is), read
// as the column's type, then encoded.
func encodeViaText(m *pgtype.Map, buf []byte, oid uint32, v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		text, err := m.Encode(oid, pgtype.TextFormatCode, v, nil)
		if err != nil {
			return nil, fmt.Errorf("encoding a %T for a column of type %d: %w", v, oid, err)
		}
		s = string(text)
	}
	var x any
	if err := m.Scan(oid, pgtype.TextFormatCode, []byte(s), &x); err != nil {
		return nil, fmt.Errorf("encoding %q for a column of type %d: %w", s, oid, err)
	}
	return m.Encode(oid, pgtype.BinaryFormatCode, x, buf)
}

// TextBytes is a text value given as its bytes, for a column of type text
// (or varchar): a value that aliases a record's bytes, boxed as a pointer,
// takes no allocation. A copy only ever passes it by pointer.
type TextBytes []byte

// microsToY2K are the microseconds from the Unix epoch to 2000-01-01, the
// epoch of Postgres's binary timestamps.
const microsToY2K = 946684800 * 1000000

// appendKnown appends v's binary form for a column of type oid when v is
// a value of a type it knows for that column; ok is false otherwise.
func appendKnown(buf []byte, oid uint32, v any) (out []byte, null, ok bool) {
	if v == nil {
		return buf, true, true
	}
	switch oid {
	case oidText, oidVarchar:
		switch s := v.(type) {
		case string:
			return append(buf, s...), false, true
		case *TextBytes:
			return append(buf, *s...), false, true
		case *string:
			if s == nil {
				return buf, true, true
			}
			return append(buf, *s...), false, true
		}
	case oidJSONB:
		// Version 1, then the JSON text.
		switch j := v.(type) {
		case json.RawMessage:
			if j == nil {
				return buf, true, true
			}
			return append(append(buf, 1), j...), false, true
		case *json.RawMessage:
			if j == nil {
				return buf, true, true
			}
			if *j != nil { // pgx writes a nil one as JSON null: left to it
				return append(append(buf, 1), *j...), false, true
			}
		case string:
			return append(append(buf, 1), j...), false, true
		}
	case oidInt8:
		switch n := v.(type) {
		case int64:
			return binary.BigEndian.AppendUint64(buf, uint64(n)), false, true
		case *int64:
			return binary.BigEndian.AppendUint64(buf, uint64(*n)), false, true
		}
	case oidBool:
		if b, ok := v.(bool); ok {
			if b {
				return append(buf, 1), false, true
			}
			return append(buf, 0), false, true
		}
	case oidTimestamptz:
		switch t := v.(type) {
		case time.Time:
			return appendTimestamptz(buf, t), false, true
		case *time.Time:
			if t == nil {
				return buf, true, true
			}
			return appendTimestamptz(buf, *t), false, true
		}
	case oidTextArray:
		if a, ok := v.([]*string); ok {
			if a == nil {
				return buf, true, true
			}
			return appendTextArray(buf, a), false, true
		}
	}
	return buf, false, false
}

// appendTimestamptz appends t as microseconds since 2000-01-01 UTC
// (sub-microseconds dropped, as pgx does).
func appendTimestamptz(buf []byte, t time.Time) []byte {
	us := t.Unix()*1000000 + int64(t.Nanosecond())/1000 - microsToY2K
	return binary.BigEndian.AppendUint64(buf, uint64(us))
}

// appendTextArray appends a one-dimensional text array (nil elements are
// NULL): its dimensions, whether it holds a NULL, the element type, then
// each element as a field.
func appendTextArray(buf []byte, a []*string) []byte {
	hasNull := uint32(0)
	for _, s := range a {
		if s == nil {
			hasNull = 1
		}
	}
	buf = binary.BigEndian.AppendUint32(buf, 1) // dimensions
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, oidText)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(a)))
	buf = binary.BigEndian.AppendUint32(buf, 1) // lower bound
	for _, s := range a {
		if s == nil {
			buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
			continue
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(*s)))
		buf = append(buf, *s...)
	}
	return buf
}
