package hashing

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
)

// A user's binary form, how a user is held between being read and being
// planned (a spool file), not a format kept anywhere: its line (uvarint),
// then for each type with values, in the order of types, the type's index
// (a byte), the number of values (uvarint) and each value: 1 and the 32
// bytes of a SHA-256 written in lowercase hex, or its length times two
// (uvarint) and its bytes.

// AppendBinary appends u's binary form to b.
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

// lowerHex marks the bytes of lowercase hex.
var lowerHex = func() (t [256]bool) {
	for _, c := range "0123456789abcdef" {
		t[c] = true
	}
	return t
}()

// isHexSum reports whether v is a SHA-256 in lowercase hex, as hashes are
// written: one that decodes and encodes back to itself.
func isHexSum(v string) bool {
	if len(v) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !lowerHex[v[i]] {
			return false
		}
	}
	return true
}

// errBadUser is data that is no user's binary form.
var errBadUser = errors.New("hashing: malformed binary user")

// walkBinary reads a user's binary form: it returns its line, calling
// typ for each type with values (its index and how many) and value for
// each value (a SHA-256's 32 bytes when sum).
func walkBinary(data []byte, typ func(i, count int), value func(v []byte, sum bool)) (int, error) {
	line, n := binary.Uvarint(data)
	if n <= 0 {
		return 0, errBadUser
	}
	last := -1
	for pos := n; pos < len(data); {
		i := int(data[pos])
		count, n := binary.Uvarint(data[pos+1:])
		if i >= numTypes || i <= last || n <= 0 || count == 0 || count > uint64(len(data)-pos) {
			return 0, errBadUser
		}
		last = i
		pos += 1 + n
		typ(i, int(count))
		for range count {
			head, n := binary.Uvarint(data[pos:])
			sum, size := head == 1, head>>1
			if sum {
				size = sha256.Size
			}
			if n <= 0 || (head&1 == 1 && !sum) || size > uint64(len(data)-pos-n) {
				return 0, errBadUser
			}
			pos += n
			value(data[pos:pos+int(size)], sum)
			pos += int(size)
		}
	}
	return int(line), nil
}

// UnmarshalBinary reads u from its binary form. Its values are copied out
// of data (into one string), so data may be reused.
func (u *HashedUser) UnmarshalBinary(data []byte) error {
	*u = HashedUser{}
	// The values back to back as text; ends[k] ends value k.
	var text []byte
	var ends []int
	var counts [numTypes]int
	line, err := walkBinary(data, func(i, count int) { counts[i] = count }, func(v []byte, sum bool) {
		if sum {
			text = hex.AppendEncode(text, v)
		} else {
			text = append(text, v...)
		}
		ends = append(ends, len(text))
	})
	if err != nil {
		return err
	}
	u.Line = line
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

// AppendBinaryJSON appends the user object of the user in its binary form
// data to dst, as AppendJSON would write it, without decoding the user,
// and returns its line.
func AppendBinaryJSON(dst, data []byte) ([]byte, int, error) {
	dst = append(dst, '{')
	first, cur, left := true, 0, 0 // left: values left of type cur
	line, err := walkBinary(data, func(i, count int) {
		if !first {
			dst = append(dst, ',')
		}
		first, cur, left = false, i, count
		dst = append(dst, '"')
		dst = append(dst, types[i]...)
		dst = append(dst, `":[`...)
	}, func(v []byte, sum bool) {
		switch {
		case sum:
			dst = append(dst, '"')
			dst = hex.AppendEncode(dst, v)
			dst = append(dst, '"')
		case types[cur].Hashed():
			// As appendJSON writes a hash: nothing to escape.
			dst = append(dst, '"')
			dst = append(dst, v...)
			dst = append(dst, '"')
		default:
			dst = appendJSONString(dst, v)
		}
		if left--; left > 0 {
			dst = append(dst, ',')
		} else {
			dst = append(dst, ']')
		}
	})
	return append(dst, '}'), line, err
}
