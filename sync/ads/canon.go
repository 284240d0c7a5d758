package ads

import (
	"bytes"
	"errors"
	"slices"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The canonical form of a record, which doc_hash covers, is what
// encoding/json made of it decoded into map[string]any with UseNumber:
//   - object keys sorted by their decoded bytes, a repeated key keeping its
//     last value (as decoding into a map does);
//   - no whitespace outside strings;
//   - strings re-encoded as json.Marshal does: \" \\ \b \f \n \r \t, other
//     control bytes and <, >, & (HTML escaping) as \u00XX, U+2028 and U+2029
//     as \u2028 and \u2029, everything else (any other non-ASCII included)
//     as UTF-8 bytes, so "\u00e9" and "é" are one string; invalid UTF-8 and
//     lone surrogates become U+FFFD, as the decoder makes them;
//   - numbers kept textually as sent (UseNumber): 1.0 and 1 differ, as they
//     always did, since the service sends one record's numbers one way;
//   - true, false, null as they are.
//
// canonicalizer produces it in one pass over the record's bytes, without
// building a map, and notes the top-level fields a staged record needs. Its
// output equals the old json.Marshal(map) form for every valid record (a
// fuzz test holds them equal), so stored doc_hash values stay valid. Should
// the two ever differ for some input, a stored row of such a record would
// simply be rewritten once, by the next sync that sees it.
//
// It is also the record's validator (the page's split does not validate
// records): input that is not valid JSON, as json.Valid has it (nesting
// deeper than encoding/json's limit included), is refused with an error
// wrapping errSyntax, never hashed, never a panic.
type canonicalizer struct {
	out     []byte
	tmp     []byte
	depth   int // nesting of the value being written
	members []member
	// top is the members of the record last canonicalized, in its
	// canonical order, with their values' spans in out.
	top   []topMember
	str   []byte      // decoded strings that needed unescaping
	arena []byte      // kept canonical records (see keep)
	times []time.Time // the page's records' stamps (see stampOf)

	// The top-level fields of the record last canonicalized.
	keyField  string
	id        string
	createdAt string
	updatedAt string
	deleted   bool
	// deletedField and deletedValue: a top-level string field whose value
	// marks the record deleted (Entity.DeletedField), set by the caller.
	deletedField, deletedValue string
}

// member is one "key":value of an object being written: the decoded key,
// the span of the encoded member in out and where its value starts, all
// relative to the object's start.
type member struct {
	key             []byte
	start, val, end int
}

var errNotObject = errors.New("a record is not a JSON object")

// canonical canonicalizes one record; keyField is the record key's field.
// The result aliases the canonicalizer's buffer until the next call.
func (c *canonicalizer) canonical(raw []byte, keyField string) ([]byte, error) {
	c.out, c.members, c.top, c.depth = c.out[:0], c.members[:0], c.top[:0], 0
	c.keyField, c.id, c.createdAt, c.updatedAt, c.deleted = keyField, "", "", "", false
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		// Valid JSON but not an object, or not valid JSON at all.
		j, err := c.value(raw, i)
		if err != nil {
			return nil, err
		}
		if skipWS(raw, j) != len(raw) {
			return nil, errSyntax
		}
		return nil, errNotObject
	}
	i, err := c.object(raw, i, true)
	if err != nil {
		return nil, err
	}
	if skipWS(raw, i) != len(raw) {
		return nil, errSyntax // data after the object
	}
	return c.out, nil
}

var errSyntax = errors.New("a record is not valid JSON")

// maxDepth is encoding/json's nesting limit, beyond which it refuses input.
const maxDepth = 10000

// afterElement reads what follows a member or element of an object or array
// closed by end: a comma and the next value's start (more), or end itself
// (its index is returned past it).
func afterElement(s []byte, i int, end byte) (next int, more bool, err error) {
	i = skipWS(s, i)
	switch {
	case i >= len(s):
		return 0, false, errSyntax
	case s[i] == ',':
		return skipWS(s, i+1), true, nil
	case s[i] != end:
		return 0, false, errSyntax
	}
	return i + 1, false, nil
}

func skipWS(s []byte, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// object writes the object at s[i] ('{') and returns the index after it.
func (c *canonicalizer) object(s []byte, i int, top bool) (int, error) {
	if c.depth++; c.depth > maxDepth {
		return 0, errSyntax
	}
	base := len(c.members)
	i, err := c.objectMembers(s, i, top, base)
	c.depth--
	c.members = c.members[:base]
	return i, err
}

// objectMembers writes the members of the object at s[i] ('{'), noted from
// c.members[base], and returns the index after it.
func (c *canonicalizer) objectMembers(s []byte, i int, top bool, base int) (int, error) {
	objStart := len(c.out)
	c.out = append(c.out, '{')
	i = skipWS(s, i+1)
	if i < len(s) && s[i] == '}' {
		c.out = append(c.out, '}')
		return i + 1, nil
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return 0, errSyntax
		}
		if len(c.members) > base {
			c.out = append(c.out, ',')
		}
		var err error
		if i, err = c.member(s, i, top, objStart); err != nil {
			return 0, err
		}
		var more bool
		if i, more, err = afterElement(s, i, '}'); err != nil {
			return 0, err
		}
		if !more {
			break
		}
	}
	c.closeObject(objStart, c.members[base:], top)
	return i, nil
}

// member writes the member at s[i] ('"': its key, the colon, its value)
// and notes it in c.members, its span relative to objStart; a member of
// the top-level object also sets the fields a staged record needs. It
// returns the index after the value.
func (c *canonicalizer) member(s []byte, i int, top bool, objStart int) (int, error) {
	start := len(c.out)
	var key []byte
	next := plainString(s, i)
	if next > 0 {
		key = s[i+1 : next-1]
		c.out = append(c.out, s[i:next]...)
	} else {
		var err error
		if key, next, err = c.decodeString(s, i); err != nil {
			return 0, err
		}
		key = bytes.Clone(key) // outlives the next decode, which reuses the buffer
		c.out = appendString(c.out, key)
	}
	c.out = append(c.out, ':')
	i = skipWS(s, next)
	if i >= len(s) || s[i] != ':' {
		return 0, errSyntax
	}
	i = skipWS(s, i+1)
	valStart := len(c.out)
	var err error
	if i, err = c.value(s, i); err != nil {
		return 0, err
	}
	if top {
		c.noteTop(key, c.out[valStart:])
	}
	c.members = append(c.members, member{key: key, start: start - objStart, val: valStart - objStart, end: len(c.out) - objStart})
	return i, nil
}

// closeObject ends the object written from objStart, whose members are ms:
// members out of order are sorted by key and the object rewritten, a
// repeated key keeping its last value. The record's own object (top) notes
// its members, as written, in c.top.
func (c *canonicalizer) closeObject(objStart int, ms []member, top bool) {
	sorted := true
	for j := 1; j < len(ms); j++ {
		if bytes.Compare(ms[j-1].key, ms[j].key) >= 0 {
			sorted = false
			break
		}
	}
	if sorted {
		c.out = append(c.out, '}')
		if top {
			for _, m := range ms {
				c.top = append(c.top, topMember{key: m.key, start: objStart + m.val, end: objStart + m.end})
			}
		}
		return
	}
	// Sort (stable, so a repeated key's copies stay in order and the last
	// one wins) and rewrite the object from a copy. Nested objects are done
	// by now, so one scratch buffer serves every level.
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	c.tmp = append(c.tmp[:0], c.out[objStart:]...)
	c.out = append(c.out[:objStart], '{')
	first := true
	for j, m := range ms {
		if j+1 < len(ms) && bytes.Equal(m.key, ms[j+1].key) {
			continue
		}
		if !first {
			c.out = append(c.out, ',')
		}
		first = false
		at := len(c.out)
		c.out = append(c.out, c.tmp[m.start:m.end]...)
		if top {
			c.top = append(c.top, topMember{key: m.key, start: at + m.val - m.start, end: len(c.out)})
		}
	}
	c.out = append(c.out, '}')
}

// noteTop keeps the top-level fields a staged record needs from a member's
// canonical value (a later copy of a key overrides, as in a map).
func (c *canonicalizer) noteTop(key, val []byte) {
	if string(key) == c.keyField {
		c.id, _ = scalarJSON(val)
	}
	switch string(key) {
	case "created_at":
		c.createdAt, _ = stringJSON(val)
	case "updated_at":
		c.updatedAt, _ = stringJSON(val)
	case "deleted":
		c.deleted = string(val) == "true"
	}
	if c.deletedField != "" && string(key) == c.deletedField {
		if v, ok := stringJSON(val); ok && v == c.deletedValue {
			c.deleted = true
		}
	}
}

// scalarJSON is a canonical string's or number's text, as scalar() had it.
func scalarJSON(v []byte) (string, bool) {
	if len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return string(v), true
	}
	return stringJSON(v)
}

// stringJSON decodes a canonical string value.
func stringJSON(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var c canonicalizer
	d, _, err := c.decodeString(v, 0)
	if err != nil {
		return "", false
	}
	return string(d), true
}

// value writes the value at s[i] and returns the index after it.
func (c *canonicalizer) value(s []byte, i int) (int, error) {
	if i >= len(s) {
		return 0, errSyntax
	}
	switch b := s[i]; {
	case b == '{':
		return c.object(s, i, false)
	case b == '[':
		if c.depth++; c.depth > maxDepth {
			return 0, errSyntax
		}
		i, err := c.elements(s, i)
		c.depth--
		return i, err
	case b == '"':
		if next := plainString(s, i); next > 0 {
			c.out = append(c.out, s[i:next]...)
			return next, nil
		}
		str, next, err := c.decodeString(s, i)
		if err != nil {
			return 0, err
		}
		c.out = appendString(c.out, str)
		return next, nil
	case b == '-' || b >= '0' && b <= '9':
		// Numbers as sent (UseNumber kept their text).
		j := number(s, i)
		if j < 0 {
			return 0, errSyntax
		}
		c.out = append(c.out, s[i:j]...)
		return j, nil
	case b == 't':
		return c.literal(s, i, "true")
	case b == 'f':
		return c.literal(s, i, "false")
	case b == 'n':
		return c.literal(s, i, "null")
	}
	return 0, errSyntax
}

// elements writes the array at s[i] ('[') and returns the index after it.
func (c *canonicalizer) elements(s []byte, i int) (int, error) {
	c.out = append(c.out, '[')
	i = skipWS(s, i+1)
	if i < len(s) && s[i] == ']' {
		c.out = append(c.out, ']')
		return i + 1, nil
	}
	for n := 0; ; n++ {
		if n > 0 {
			c.out = append(c.out, ',')
		}
		var err error
		if i, err = c.value(s, i); err != nil {
			return 0, err
		}
		var more bool
		if i, more, err = afterElement(s, i, ']'); err != nil {
			return 0, err
		}
		if !more {
			c.out = append(c.out, ']')
			return i, nil
		}
	}
}

// number returns the index after the JSON number at s[i], or -1 when none
// is there: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(s []byte, i int) int {
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i+1)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(s []byte, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func (c *canonicalizer) literal(s []byte, i int, lit string) (int, error) {
	if !bytes.HasPrefix(s[i:], []byte(lit)) {
		return 0, errSyntax
	}
	c.out = append(c.out, lit...)
	return i + len(lit), nil
}

// plainByte marks the bytes a string can hold that decode and encode as
// they are: printable ASCII but the quote, the backslash and the characters
// json.Marshal escapes for HTML.
var plainByte = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = true
	}
	for _, b := range `"\<>&` {
		t[b] = false
	}
	return t
}()

// plainString returns the index after the string at s[i] ('"') when it
// holds only plain bytes (its canonical form is itself), else 0.
func plainString(s []byte, i int) int {
	j := i + 1
	for j < len(s) && plainByte[s[j]] {
		j++
	}
	if j < len(s) && s[j] == '"' {
		return j + 1
	}
	return 0
}

// decodeString decodes the string at s[i] ('"') as encoding/json does and
// returns it with the index after its closing quote. The result aliases s
// when the string holds no escape and is valid UTF-8, else c.str (valid
// until the next string that needs unescaping is decoded: keys that needed it
// are copied).
func (c *canonicalizer) decodeString(s []byte, i int) ([]byte, int, error) {
	next, err := verbatimString(s, i)
	if err != nil {
		return nil, 0, err
	}
	if next > 0 {
		return s[i+1 : next-1], next, nil
	}
	return c.unescapeString(s, i)
}

// verbatimString returns the index after the string at s[i] ('"') when the
// string is its own decoding (no escape, valid UTF-8), 0 when it is not
// (or is not closed: unescapeString says so), errSyntax when it holds a
// control byte before anything that needs unescaping.
func verbatimString(s []byte, i int) (int, error) {
	j := i + 1
	ascii := true
	for j < len(s) {
		b := s[j]
		if b == '"' {
			if ascii || utf8.Valid(s[i+1:j]) {
				return j + 1, nil
			}
			return 0, nil
		}
		if b == '\\' {
			return 0, nil
		}
		if b < 0x20 {
			return 0, errSyntax // control bytes must be escaped
		}
		if b >= utf8.RuneSelf {
			ascii = false
		}
		j++
	}
	return 0, nil
}

// unescapeString decodes the string at s[i] ('"') into c.str, escapes
// unescaped and invalid UTF-8 replaced, and returns it with the index
// after its closing quote.
func (c *canonicalizer) unescapeString(s []byte, i int) ([]byte, int, error) {
	out := c.str[:0]
	j := i + 1
	for {
		if j >= len(s) {
			return nil, 0, errSyntax
		}
		b := s[j]
		switch {
		case b == '"':
			// The buffer is reused by the next decode: a caller that keeps
			// the string (a key) copies it.
			c.str = out
			return out, j + 1, nil
		case b == '\\':
			var err error
			if out, j, err = unescape(out, s, j); err != nil {
				return nil, 0, err
			}
		case b < 0x20:
			return nil, 0, errSyntax
		case b < utf8.RuneSelf:
			out = append(out, b)
			j++
		default:
			r, size := utf8.DecodeRune(s[j:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s[j:j+size]...)
			}
			j += size
		}
	}
}

// unescape appends what the escape at s[j] ('\\') stands for to out and
// returns the index after it.
func unescape(out, s []byte, j int) ([]byte, int, error) {
	if j+1 >= len(s) {
		return nil, 0, errSyntax
	}
	switch e := s[j+1]; e {
	case '"', '\\', '/':
		out = append(out, e)
	case 'b':
		out = append(out, '\b')
	case 'f':
		out = append(out, '\f')
	case 'n':
		out = append(out, '\n')
	case 'r':
		out = append(out, '\r')
	case 't':
		out = append(out, '\t')
	case 'u':
		return unescapeRune(out, s, j)
	default:
		return nil, 0, errSyntax
	}
	return out, j + 2, nil
}

// unescapeRune appends the rune of the \uXXXX escape at s[j], or of the
// surrogate pair starting there, to out and returns the index after it. A
// surrogate that is not half of a pair is U+FFFD.
func unescapeRune(out, s []byte, j int) ([]byte, int, error) {
	r := hex4(s, j+2)
	if r < 0 {
		return nil, 0, errSyntax
	}
	j += 6
	if utf16.IsSurrogate(r) {
		// A pair makes one rune; anything else is U+FFFD.
		r2 := rune(-1)
		if j+1 < len(s) && s[j] == '\\' && s[j+1] == 'u' {
			r2 = hex4(s, j+2)
		}
		if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
			j += 6
			r = dec
		} else {
			r = utf8.RuneError
		}
	}
	return utf8.AppendRune(out, r), j, nil
}

// hex4 is the rune of the four hex digits at s[i:], or -1.
func hex4(s []byte, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for _, b := range s[i : i+4] {
		switch {
		case b >= '0' && b <= '9':
			b -= '0'
		case b >= 'a' && b <= 'f':
			b = b - 'a' + 10
		case b >= 'A' && b <= 'F':
			b = b - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(b)
	}
	return r
}

const hexDigits = "0123456789abcdef"

// appendString encodes a decoded (valid UTF-8) string as json.Marshal does
// with HTML escaping (its appendString, which the old canonical form used).
func appendString(dst, src []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if plainByte[b] { // what json.Marshal writes as it is
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}
