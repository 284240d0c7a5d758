package hashing

import "crypto/sha256"

// userKey identifies a user by its identifiers: the first 16 bytes of the
// SHA-256 of its user object, which holds its sorted, deduplicated values
// under keys in a fixed order, so the same identifiers always make the same
// bytes and the same key.
type userKey [16]byte

func keyOf(userObject []byte) userKey {
	sum := sha256.Sum256(userObject)
	return userKey(sum[:16])
}

// userSet remembers the users a file has emitted so far, so that a row
// repeating one (the same identifiers, however written before
// normalization) is counted as a duplicate and not emitted again.
//
// Files have millions of rows, so the set holds fixed-size keys, not the
// users: a Go map of 16-byte keys with empty values costs some 20 to 40
// bytes a user (slots, control bytes, room to grow), about 300 MB for 10
// million distinct users, where the user objects as strings would take
// several times that. Sixteen bytes of SHA-256 make a collision (two
// different users taken for one, the second left out) a matter of n²/2¹²⁹:
// about 10⁻²⁵ for 10 million users.
type userSet struct {
	seen map[userKey]struct{}
	buf  []byte // scratch for user objects no worker wrote
}

// add records u and reports whether it is new: false when a user with the
// same identifiers was added before.
func (s *userSet) add(u *HashedUser) bool {
	if !u.keyed {
		s.buf = u.AppendJSON(s.buf[:0])
		u.key, u.keyed = keyOf(s.buf), true
	}
	k := u.key
	if s.seen == nil {
		s.seen = map[userKey]struct{}{}
	}
	if _, dup := s.seen[k]; dup {
		return false
	}
	s.seen[k] = struct{}{}
	return true
}
