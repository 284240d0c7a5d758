package access

import "hash/fnv"

// Pick chooses, among the users who reach an account, the one that acts for
// it: the user of highest weight hash(user, account) (rendezvous hashing).
// The choice depends only on the account and the candidates, so it is the
// same from run to run and on every worker; accounts spread evenly over the
// users; and when a user drops out, only that user's accounts move. It
// returns "" when there is no candidate.
func Pick(accountID string, candidates []string) string {
	best, bestW := "", uint64(0)
	for _, u := range candidates {
		w := weight(u, accountID)
		if best == "" || w > bestW || (w == bestW && u < best) {
			best, bestW = u, w
		}
	}
	return best
}

func weight(user, account string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(user))
	h.Write([]byte{0})
	h.Write([]byte(account))
	// fnv's low bits mix poorly for short keys: finish with a 64-bit mixer
	// (splitmix64's) so the weights of neighbouring ids are independent.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
