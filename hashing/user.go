package hashing

import (
	"strconv"
)

// HashedUser is one valid row made ready for the service: its source line
// and, per identifier type, its sorted and deduplicated hashes (the trimmed
// values for partner_user_id).
type HashedUser struct {
	Line   int
	values [numTypes][]string
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
				dst = strconv.AppendQuote(dst, v)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}
