package ads

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adsync/adsync/sync/store"
)

// typedValuesInto computes the entity's typed columns of a record from its
// canonical form raw, whose members canonicalizing it listed in top, as
// Column.expr computes them in SQL from raw. It reports ok=false when Go
// cannot be sure to compute exactly what Postgres would (a float in a text
// column, a string in a bigint one, a timestamp not in RFC 3339 with at most
// microseconds...): such a record takes the merge, which computes them in
// SQL. Only new records need it, so it is not done while staging. The
// values are boxed as pointers into a, which holds them for the page: no
// allocation a value.
func typedValuesInto(e *Entity, part string, raw []byte, top []topMember, a *typedArena) ([]any, bool) {
	cols := e.LiveColumns()
	out := a.row(len(cols))
	// Canonical keys are sorted by their decoded bytes, as the columns are
	// by their fields' (plain ASCII) in fieldOrder: one merge of the two
	// finds each field.
	j := 0
	for _, i := range fieldOrder(e, cols) {
		col := cols[i]
		if col.FromParent {
			out[i] = a.partOf(part)
			continue
		}
		f := col.field()
		for j < len(top) && string(top[j].key) < f {
			j++
		}
		if j == len(top) || string(top[j].key) != f {
			continue // NULL whatever the type
		}
		v, ok := a.value(col.Type, raw[top[j].start:top[j].end])
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// typedArena holds the typed values of a page's records: each is boxed as
// a pointer into one of its slices, sized for the page, and a text aliases
// the record's canonical bytes unless it held an escape.
type typedArena struct {
	vals  []any
	texts []store.TextBytes
	ints  []int64
	times []time.Time
	jsons []json.RawMessage
	part  string
}

// newTypedArena is an arena for records records of e: each slice holds
// as many values as e has columns of its type a record.
func newTypedArena(e *Entity, records int) *typedArena {
	cols := e.LiveColumns()
	n := map[ColType]int{}
	for _, c := range cols {
		n[c.Type] += records
	}
	return &typedArena{vals: make([]any, 0, records*len(cols)), texts: make([]store.TextBytes, 0, n[Text]),
		ints: make([]int64, 0, n[BigInt]), times: make([]time.Time, 0, n[Timestamptz]), jsons: make([]json.RawMessage, 0, n[JSONB])}
}

// row is a record's values, all NULL.
func (a *typedArena) row(cols int) []any {
	if cap(a.vals)-len(a.vals) < cols {
		a.vals = make([]any, 0, max(cols, 2*cap(a.vals)))
	}
	n := len(a.vals)
	a.vals = a.vals[:n+cols]
	return a.vals[n : n+cols : n+cols]
}

// partOf boxes the part a column takes from its parent.
func (a *typedArena) partOf(part string) any {
	a.part = part
	return &a.part
}

// keep boxes v in s as a pointer to its element: the element stays where
// it is if s grows (the old array is kept while the pointer is).
func keep[T any](s *[]T, v T) *T {
	*s = append(*s, v)
	return &(*s)[len(*s)-1]
}

// value is one column's value from a canonical JSON value v.
func (a *typedArena) value(t ColType, v []byte) (any, bool) {
	switch {
	case t == JSONB:
		return keep(&a.jsons, json.RawMessage(v)), true // raw->'f'
	case t == TextArray:
		return textArray(v)
	case v[0] == 'n':
		return nil, true // raw->>'f' of a JSON null is NULL
	}
	switch t {
	case Text:
		b, ok := textBytes(v)
		if !ok {
			return nil, false
		}
		return keep(&a.texts, b), true
	case BigInt:
		if !plainInteger(v) {
			return nil, false
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, false
		}
		return keep(&a.ints, n), true
	case Bool:
		switch string(v) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return nil, false
	case Timestamptz:
		ts, ok := timestamptz(v)
		if !ok {
			return nil, false
		}
		return keep(&a.times, ts), true
	}
	return nil, false
}

// textArray is CASE WHEN jsonb_typeof(raw->'f') = 'array' THEN
// ARRAY(SELECT jsonb_array_elements_text(raw->'f')) END.
func textArray(v []byte) (any, bool) {
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

// textBytes is textOf's text of a value that is not null, as bytes: those
// of v itself but for a string that holds an escape.
func textBytes(v []byte) (store.TextBytes, bool) {
	if v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return store.TextBytes(v[1 : len(v)-1]), true
	}
	s, _, ok := textOf(v)
	return store.TextBytes(s), ok
}

// timestamptz is (raw->>'f')::timestamptz of a string v in RFC 3339 with
// at most microseconds (Postgres rounds finer ones; not done here).
func timestamptz(v []byte) (time.Time, bool) {
	s, ok := stringJSON(v)
	if !ok {
		return time.Time{}, false
	}
	if dot := strings.IndexByte(s, '.'); dot >= 0 {
		n := dot + 1
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n-dot-1 > 6 {
			return time.Time{}, false
		}
	}
	return parseStamp(s)
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

// topMember is a member of a record's canonical object: its decoded key
// and its value's span.
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
