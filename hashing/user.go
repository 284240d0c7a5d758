package hashing

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
)

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
func appendJSONString(dst []byte, s string) []byte {
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

// AppendBinary appends u to b in a compact form UnmarshalBinary reads
// back: its line, then each type's values, each prefixed by its length; a
// SHA-256 in hex takes its 32 bytes. It is how a user is held between
// being read and being planned (a spool file), not a format kept anywhere.
func (u *HashedUser) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(u.Line))
	for i, vals := range u.values {
		if len(vals) == 0 {
			continue
		}
		b = append(b, byte(i))
		b = binary.AppendUvarint(b, uint64(len(vals)))
		for _, v := range vals {
			if isHexSum(v) {
				b = append(b, 1)
				b, _ = hex.AppendDecode(b, []byte(v)) // isHexSum: never fails
				continue
			}
			b = binary.AppendUvarint(b, uint64(len(v))<<1)
			b = append(b, v...)
		}
	}
	return b, nil
}

// isHexSum reports whether v is a SHA-256 in lowercase hex, as hashes are
// written: one that decodes and encodes back to itself.
func isHexSum(v string) bool {
	if len(v) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// UnmarshalBinary reads a user AppendBinary wrote. Its values are copied
// out of data (into one string), so data may be reused.
func (u *HashedUser) UnmarshalBinary(data []byte) error {
	*u = HashedUser{}
	line, n := binary.Uvarint(data)
	if n <= 0 {
		return errBadUser
	}
	u.Line = int(line)
	// The values, decoded, back to back in text; ends[k] ends value k.
	var text []byte
	var ends []int
	var counts [numTypes]int
	last := -1
	for pos := n; pos < len(data); {
		// Types come in order, each once, as AppendBinary writes them.
		i := int(data[pos])
		count, n := binary.Uvarint(data[pos+1:])
		if i >= numTypes || i <= last || n <= 0 || count == 0 || count > uint64(len(data)-pos) {
			return errBadUser
		}
		counts[i], last = int(count), i
		pos += 1 + n
		for range count {
			head, n := binary.Uvarint(data[pos:])
			size := head >> 1
			if head&1 == 1 {
				size = sha256.Size
			}
			if n <= 0 || size > uint64(len(data)-pos-n) || (head&1 == 1 && head != 1) {
				return errBadUser
			}
			pos += n
			if head&1 == 1 {
				text = hex.AppendEncode(text, data[pos:pos+sha256.Size])
			} else {
				text = append(text, data[pos:pos+int(size)]...)
			}
			pos += int(size)
			ends = append(ends, len(text))
		}
	}
	s, k, from := string(text), 0, 0
	for i, count := range counts {
		if count == 0 {
			continue
		}
		vals := make([]string, count)
		for j := range vals {
			vals[j], from = s[from:ends[k]], ends[k]
			k++
		}
		u.values[i] = vals
	}
	return nil
}

// errBadUser is data UnmarshalBinary cannot read.
var errBadUser = errors.New("hashing: malformed binary user")
