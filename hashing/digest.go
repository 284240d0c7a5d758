package hashing

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
)

// UsersDigest says "the same users" for an input that only its users can
// identify (a query's result: its rows may come in any order, and the same
// query may return other rows tomorrow). It sums the users' keys (the first
// 16 bytes of the SHA-256 of each user object, see userKey) modulo 2^128
// and counts them: the same set of users, in any order, gives the same Sum,
// and a different set a different one but with a chance of about 2^-128.
// A sum rather than one SHA-256 over sorted users: sorting millions of
// users would cost memory the pipeline never holds. The pipeline emits each
// user once, so the users added form a set.
type UsersDigest struct {
	n      uint64
	lo, hi uint64
}

// Add adds u, a user as a pipeline emitted it.
func (d *UsersDigest) Add(u *HashedUser) {
	if !u.keyed {
		u.key, u.keyed = keyOf(u.AppendJSON(nil)), true
	}
	var carry uint64
	d.lo, carry = bits.Add64(d.lo, binary.BigEndian.Uint64(u.key[8:]), 0)
	d.hi, _ = bits.Add64(d.hi, binary.BigEndian.Uint64(u.key[:8]), carry)
	d.n++
}

// Sum is the lowercase hex SHA-256 of the users' count and sum.
func (d *UsersDigest) Sum() string {
	var b [len("adsync users v1\n") + 24]byte
	n := copy(b[:], "adsync users v1\n")
	binary.BigEndian.PutUint64(b[n:], d.n)
	binary.BigEndian.PutUint64(b[n+8:], d.hi)
	binary.BigEndian.PutUint64(b[n+16:], d.lo)
	sum := sha256.Sum256(b[:])
	return hex.EncodeToString(sum[:])
}
