package ads

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// typedValuesInto computes the entity's typed columns of a record from its
// canonical form raw, as Column.expr computes them in SQL from raw (the
// values alias raw). It reports ok=false when Go cannot be sure to compute
// exactly what Postgres would (a float in a text column, a string in a
// bigint one, a timestamp not in RFC 3339 with at most microseconds...):
// such a record takes the merge, which computes them in SQL. Only new
// records need it, so it is not done while staging. The record's members
// are listed in *scratch, reused from record to record.
func typedValuesInto(e *Entity, part string, raw []byte, scratch *[]topMember) ([]any, bool) {
	*scratch = topMembers((*scratch)[:0], raw)
	top := *scratch
	// Canonical keys are sorted by their decoded bytes, so the encoded keys
	// are in the same order, and one merge with the columns in their
	// fields' order finds each field (plain ASCII, its own encoded key),
	// unless a key holds an escape ("\u2028", "<" as "\u003c"...): an
	// escape sorts as its backslash, so then a scan per column.
	escaped := slices.ContainsFunc(top, func(m topMember) bool { return bytes.IndexByte(m.key, '\\') >= 0 })
	cols := e.LiveColumns()
	out := make([]any, len(cols))
	// set fills column i from the member at top[j] (j < 0: none, NULL
	// whatever the type); false when Go cannot compute it.
	set := func(i, j int) bool {
		if j < 0 {
			return true
		}
		v, ok := typedValue(cols[i].Type, raw[top[j].start:top[j].end])
		out[i] = v
		return ok
	}
	if escaped {
		for i, col := range cols {
			if col.FromParent {
				out[i] = part
				continue
			}
			f := col.field()
			if !set(i, slices.IndexFunc(top, func(m topMember) bool { return string(m.key) == f })) {
				return nil, false
			}
		}
		return out, true
	}
	// The columns in their fields' order, merged with the sorted members
	// in one pass.
	j := 0
	for _, i := range fieldOrder(e, cols) {
		col := cols[i]
		if col.FromParent {
			out[i] = part
			continue
		}
		f := col.field()
		for j < len(top) && string(top[j].key) < f {
			j++
		}
		at := j
		if j == len(top) || string(top[j].key) != f {
			at = -1
		}
		if !set(i, at) {
			return nil, false
		}
	}
	return out, true
}

// field is the record's field a column holds.
func (c Column) field() string {
	if c.Field == "" {
		return c.Name
	}
	return c.Field
}

// fieldOrders keeps fieldOrder's answer per entity.
var fieldOrders sync.Map // *Entity -> []int

// fieldOrder is the indexes of cols (e's live columns) in the order of
// their fields, as canonical keys are sorted.
func fieldOrder(e *Entity, cols []Column) []int {
	if o, ok := fieldOrders.Load(e); ok {
		return o.([]int)
	}
	order := make([]int, len(cols))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(cols[a].field(), cols[b].field()) })
	fieldOrders.Store(e, order)
	return order
}

// topMembers appends to out the members of a canonical object: each encoded key
// (without its quotes) and its value's span.
func topMembers(out []topMember, raw []byte) []topMember {
	i := 1
	for i < len(raw) && raw[i] == '"' {
		k := skipCanonical(raw, i)
		v := k + 1 // ':'
		end := skipCanonical(raw, v)
		out = append(out, topMember{key: raw[i+1 : k-1], start: v, end: end})
		i = end + 1 // ',' or past '}'
	}
	return out
}

// typedValue is one column's value from a canonical JSON value v.
func typedValue(t ColType, v []byte) (any, bool) {
	if t == JSONB {
		return json.RawMessage(v), true // raw->'f'
	}
	if t == TextArray {
		// CASE WHEN jsonb_typeof(raw->'f') = 'array' THEN
		// ARRAY(SELECT jsonb_array_elements_text(raw->'f')) END
		if v[0] != '[' {
			return nil, true
		}
		out := []*string{}
		for _, el := range splitCanonicalArray(v) {
			s, null, ok := textOf(el)
			if !ok {
				return nil, false
			}
			if null {
				out = append(out, nil)
			} else {
				out = append(out, &s)
			}
		}
		return out, true
	}
	if v[0] == 'n' {
		return nil, true // raw->>'f' of a JSON null is NULL
	}
	switch t {
	case Text:
		s, _, ok := textOf(v)
		return s, ok
	case BigInt:
		if !plainInteger(v) {
			return nil, false
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		return n, err == nil
	case Bool:
		switch string(v) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return nil, false
	case Timestamptz:
		s, ok := stringJSON(v)
		if !ok {
			return nil, false
		}
		if dot := bytes.IndexByte([]byte(s), '.'); dot >= 0 {
			n := dot + 1
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				n++
			}
			if n-dot-1 > 6 {
				return nil, false // Postgres rounds to microseconds
			}
		}
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, false
		}
		return ts, true
	}
	return nil, false
}

// textOf is raw->>'f' (or an element of jsonb_array_elements_text) of a
// canonical value: a string decoded, true and false, integers as written
// (numeric prints them so); null is NULL. Other numbers and nested values
// (which jsonb prints its own way) are not done here.
func textOf(v []byte) (s string, null, ok bool) {
	switch v[0] {
	case '"':
		s, ok = stringJSON(v)
		return s, false, ok
	case 'n':
		return "", true, true
	case 't', 'f':
		return string(v), false, true
	}
	if plainInteger(v) {
		return string(v), false, true
	}
	return "", false, false
}

// plainInteger: -?(0|[1-9][0-9]*), without "-0" (numeric prints it 0).
func plainInteger(v []byte) bool {
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 1 && d[0] == '0' || string(v) == "-0" {
		return false
	}
	for _, b := range d {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// topMember is a member of a canonical object: its encoded key and its
// value's span.
type topMember struct {
	key        []byte
	start, end int
}

// splitCanonicalArray returns the elements of a canonical (compact, valid)
// array.
func splitCanonicalArray(v []byte) [][]byte {
	var out [][]byte
	i := 1
	if v[i] == ']' {
		return out
	}
	for {
		end := skipCanonical(v, i)
		out = append(out, v[i:end])
		if v[end] == ']' {
			return out
		}
		i = end + 1
	}
}

// skipCanonical returns the index after the canonical value at v[i] (a
// string, object or array), or of the ',', '}' or ']' that ends a number or
// literal.
func skipCanonical(v []byte, i int) int {
	depth := 0
	for j := i; j < len(v); j++ {
		switch v[j] {
		case '"':
			j = endOfString(v, j)
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',':
			if depth == 0 {
				return j
			}
		}
	}
	return len(v)
}

// endOfString is the index of the quote closing the string at v[i].
func endOfString(v []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(v[j:], '"')
		if k < 0 {
			return len(v) - 1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && v[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		j = q + 1
	}
}
