package access

import (
	"hash/fnv"
	"math"
	"math/bits"
)

// Candidate is a user who may act for an account, with the number of
// accounts its last complete listing returned.
type Candidate struct {
	ID    string
	Reach int
}

// Pick chooses, among the users who may act for an account, the one that
// does (weighted rendezvous hashing): each candidate's score is a hash of
// (user, account) scaled by the user's weight, and the highest wins. A
// user's weight is the inverse of its reach rounded up to a power of two,
// so a user who reaches every account (an agency's own login) takes about
// its fair share of them instead of winning wherever it competes; the rounding
// keeps the weights, and so the choices, unchanged while reach moves within
// a power of two.
//
// The choice depends only on the account and the candidates, so it is the
// same from run to run and on every worker; among users of equal reach the
// accounts spread evenly; and when a user drops out, only that user's
// accounts move. It returns "" when there is no candidate.
func Pick(accountID string, candidates []Candidate) string {
	best, bestScore := "", 0.0
	for _, c := range candidates {
		s := score(c, accountID)
		if best == "" || s > bestScore || (s == bestScore && c.ID < best) {
			best, bestScore = c.ID, s
		}
	}
	return best
}

// score is weight / -ln(x) for x the (user, account) hash mapped into
// (0, 1): the score of weighted rendezvous hashing, under which each
// candidate wins with a probability proportional to its weight.
func score(c Candidate, accountID string) float64 {
	x := (float64(hash(c.ID, accountID)>>11) + 0.5) / (1 << 53)
	return 1 / (float64(reachClass(c.Reach)) * -math.Log(x))
}

// reachClass is reach rounded up to a power of two (1 for none).
func reachClass(reach int) uint64 {
	if reach <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(reach-1))
}

func hash(user, account string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(user))
	h.Write([]byte{0})
	h.Write([]byte(account))
	// fnv's low bits mix poorly for short keys: finish with a 64-bit mixer
	// (splitmix64's) so the hashes of neighbouring ids are independent.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
