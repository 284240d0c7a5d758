package hashing

// HashedUser is one valid row made ready for the service: its source line
// and, per identifier type, its sorted and deduplicated hashes (the trimmed
// values for partner_user_id).
type HashedUser struct {
	Line   int
	values [numTypes][]string
	json   []byte // the user object when a worker wrote it already
	// key identifies the user among a file's users when keyed (a worker
	// computed it with the user object; see userSet).
	key   userKey
	keyed bool
}

// Values returns the hashes of type t.
func (u *HashedUser) Values(t Type) []string {
	if i := t.index(); i >= 0 {
		return u.values[i]
	}
	return nil
}

// Len returns the number of identifiers u holds.
func (u *HashedUser) Len() int {
	n := 0
	for _, v := range u.values {
		n += len(v)
	}
	return n
}

// MarshalJSON writes the service's user object: only the non-empty keys,
// each an array of strings, in a fixed key order.
func (u HashedUser) MarshalJSON() ([]byte, error) { return u.AppendJSON(nil), nil }

// AppendJSON appends u's user object to dst, like MarshalJSON without an
// allocation per user.
func (u *HashedUser) AppendJSON(dst []byte) []byte {
	if u.json != nil {
		return append(dst, u.json...)
	}
	return u.appendJSON(dst)
}

func (u *HashedUser) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	first := true
	for i, vals := range u.values {
		if len(vals) == 0 {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, types[i]...)
		dst = append(dst, `":[`...)
		for j, v := range vals {
			if j > 0 {
				dst = append(dst, ',')
			}
			if types[i].Hashed() {
				// Hashes are lowercase hex: nothing to escape.
				dst = append(dst, '"')
				dst = append(dst, v...)
				dst = append(dst, '"')
			} else {
				dst = appendJSONString(dst, v)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendJSONString appends s as a JSON string. strconv.AppendQuote would
// write Go escapes (\x01) that are not JSON, and one such value would make
// the service refuse a whole batch. Readers reject invalid UTF-8, so only
// quotes, backslashes and control characters need escaping.
func appendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
