package hashing

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
)

// userKey identifies a user by its identifiers: the first 16 bytes of the
// SHA-256 of its user object, which holds its sorted, deduplicated values
// under keys in a fixed order, so the same identifiers always make the same
// bytes and the same key.
type userKey [16]byte

func keyOf(userObject []byte) userKey {
	sum := sha256.Sum256(userObject)
	return userKey(sum[:16])
}

// compareKeys orders keys as their bytes (as comparePairs orders their
// pairs), reading the second halves only to break a tie: lookups call it
// on every step of their searches.
func compareKeys(a, b userKey) int {
	if c := cmp.Compare(binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])); c != 0 {
		return c
	}
	return cmp.Compare(binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:]))
}

// pairOf is a key as two big-endian halves, which order as its bytes do.
func pairOf(k userKey) [2]uint64 {
	return [2]uint64{binary.BigEndian.Uint64(k[:8]), binary.BigEndian.Uint64(k[8:])}
}

// comparePairs orders pairOf's pairs.
func comparePairs(a, b [2]uint64) int {
	switch { // small enough to inline into sortPairs
	case a[0] < b[0]:
		return -1
	case a[0] > b[0]:
		return 1
	case a[1] < b[1]:
		return -1
	case a[1] > b[1]:
		return 1
	}
	return 0
}

// userSet remembers the users a file has emitted so far, so that a row
// repeating one (the same identifiers, however written before
// normalization) is counted as a duplicate and not emitted again.
//
// Files have millions of rows, so the set holds fixed-size keys, not the
// users, and holds only the newest of them in memory: up to memKeys keys
// in a newestKeys (6 MB, 24 bytes a key). When it is full its keys are
// sorted in place and written to a temporary file, a run, and it starts
// again; runs of similar size are merged, so a file of n users leaves
// about log2(n / memKeys) runs. Each run keeps in memory a Bloom filter
// (12 bits a key) and the first key of each of its blocks of 256 keys: a
// key its filter does not know is not in the run, without a read; one it
// may know (under 1% of new keys) is looked up with one read of a 4 KiB
// block (from the page cache, which is not the process's memory). A merge
// lets go of its two runs' filters before it makes the merged run's, so
// the set needs about 6 MB plus 1.6 bytes a user (some 22 MB for 10
// million users, where one map of them all took over 300 MB), and its
// files 16 bytes a user (160 MB), twice that while the two largest runs
// merge. The process's peak is what BenchmarkPlanPeakRSS in sync/audience
// measures.
// A run's file is removed as soon as it is created (the set keeps it
// open), so nothing is left behind, even by a killed process.
//
// Sixteen bytes of SHA-256 make a collision (two different users taken for
// one, the second left out) a matter of n²/2¹²⁹: about 10⁻²⁵ for 10
// million users. The filters only decide which keys are looked up: a key
// is a duplicate only when its 16 bytes are found.
type userSet struct {
	mem newestKeys
	// memKeys is the count of keys in memory that writes a run; 0 is
	// defaultMemKeys.
	memKeys int
	// dir is where runs are written; "" is os.TempDir().
	dir    string
	runs   []*keyRun           // oldest (largest) first
	buf    []byte              // scratch for user objects no worker wrote
	bounds *[2][1 << 16]uint32 // scratch for sortPairs
	// failed is a spill's error: the keys it held may no longer be known
	// (a failed merge drops its runs), so the set answers nothing after.
	failed error
}

// KeysInMemory is how many users' keys a plan keeps in memory before it
// writes them to a run in os.TempDir(), KeyBytes bytes a user.
const (
	KeysInMemory = 1 << 18
	KeyBytes     = len(userKey{})
)

const (
	defaultMemKeys = KeysInMemory
	runBlockKeys   = 256 // keys a lookup reads from a run
	bloomBitsKey   = 12
)

// add records u and reports whether it is new: false when a user with the
// same identifiers was added before. An error is one of the set's files.
func (s *userSet) add(u *HashedUser) (bool, error) {
	if s.failed != nil {
		return false, s.failed
	}
	if !u.keyed {
		s.buf = u.AppendJSON(s.buf[:0])
		u.key, u.keyed = keyOf(s.buf), true
	}
	k := u.key
	p := pairOf(k)
	slot, dup := s.mem.find(p)
	if dup {
		return false, nil
	}
	for _, r := range s.runs {
		found, err := r.has(k)
		if err != nil || found {
			return false, err
		}
	}
	s.mem.insert(slot, p)
	if len(s.mem.pairs) >= cmp.Or(s.memKeys, defaultMemKeys) {
		if err := s.spill(); err != nil {
			s.failed = err
			return true, err
		}
	}
	return true, nil
}

// close releases the set's files.
func (s *userSet) close() {
	for _, r := range s.runs {
		r.close()
	}
	s.runs = nil
}

// spill writes the keys in memory as a run and forgets them (keeping their
// memory for the next keys), then merges the newest runs while the one
// before the last is no larger than twice the last.
func (s *userSet) spill() error {
	keys := s.mem.pairs
	if s.bounds == nil {
		s.bounds = new([2][1 << 16]uint32)
	}
	sortPairs(keys, s.bounds)
	i := 0
	r, err := writeRun(s.dir, len(keys), func() (k userKey, ok bool) {
		if i == len(keys) {
			return k, false
		}
		binary.BigEndian.PutUint64(k[:8], keys[i][0])
		binary.BigEndian.PutUint64(k[8:], keys[i][1])
		i++
		return k, true
	})
	if err != nil {
		return err
	}
	s.mem.reset()
	s.runs = append(s.runs, r)
	for n := len(s.runs); n >= 2 && s.runs[n-2].n <= 2*s.runs[n-1].n; n = len(s.runs) {
		a, b := s.runs[n-2], s.runs[n-1]
		// A merge reads its runs' files only: their filters and block
		// keys are let go before the merged run's are made, so the two
		// never take memory at once (at 10 million users the filters are
		// 15 MB).
		s.runs = s.runs[:n-2]
		a.dropIndex()
		b.dropIndex()
		m, err := mergeRuns(s.dir, a, b)
		a.close()
		b.close()
		if err != nil {
			return err
		}
		s.runs = append(s.runs, m)
	}
	return nil
}

// newestKeys holds the keys added since the last run was written: each as
// its pair, in the order added, and an index of them (open addressing,
// linear probing, at most half full) of 4 bytes a slot. That is 24 bytes a
// key, sorted in place when they are written; a Go map and an array to
// sort its keys took about 52.
type newestKeys struct {
	pairs [][2]uint64
	slots []uint32 // 1 + a key's index in pairs; 0 is an empty slot
}

// find returns the slot of p: where it is (found), or where it goes.
func (m *newestKeys) find(p [2]uint64) (slot int, found bool) {
	if len(m.slots) == 0 {
		m.slots = make([]uint32, 1024)
	}
	mask := uint64(len(m.slots) - 1)
	// The low bits of a SHA-256 are as uniform as any.
	for i := p[1] & mask; ; i = (i + 1) & mask {
		j := m.slots[i]
		if j == 0 {
			return int(i), false
		}
		if m.pairs[j-1] == p {
			return int(i), true
		}
	}
}

// insert adds p, which find put at slot.
func (m *newestKeys) insert(slot int, p [2]uint64) {
	m.pairs = append(m.pairs, p)
	m.slots[slot] = uint32(len(m.pairs))
	if 2*len(m.pairs) <= len(m.slots) {
		return
	}
	m.slots = make([]uint32, 2*len(m.slots))
	for j, q := range m.pairs {
		i, _ := m.find(q)
		m.slots[i] = uint32(j + 1)
	}
}

// reset forgets every key and keeps the memory.
func (m *newestKeys) reset() {
	m.pairs = m.pairs[:0]
	clear(m.slots)
}

// smallSort is the count of keys under which sortPairs sorts by comparison.
const smallSort = 1 << 12

// sortPairs sorts keys, big-endian halves of uniformly random keys, in
// place: each key is moved to the bucket of its top 16 bits (a radix sort
// of one digit, American flag style), then each bucket, a handful of keys,
// is sorted by insertion. bounds is scratch for the buckets' bounds. Fewer
// keys than smallSort are sorted by comparison: the radix pass walks all
// 65,536 buckets three times whatever the count.
func sortPairs(keys [][2]uint64, bounds *[2][1 << 16]uint32) {
	if len(keys) < smallSort {
		slices.SortFunc(keys, comparePairs)
		return
	}
	end, next := &bounds[0], &bounds[1]
	clear(end[:])
	for _, k := range keys {
		end[k[0]>>48]++
	}
	var sum uint32
	for d := range end {
		next[d] = sum
		sum += end[d]
		end[d] = sum
	}
	for d := range uint64(len(end)) {
		for next[d] < end[d] {
			k := keys[next[d]]
			for kd := k[0] >> 48; kd != d; kd = k[0] >> 48 {
				k, keys[next[kd]] = keys[next[kd]], k
				next[kd]++
			}
			keys[next[d]] = k
			next[d]++
		}
	}
	start := uint32(0)
	for d := range end {
		bucket := keys[start:end[d]]
		start = end[d]
		if len(bucket) > 32 { // not uniform after all
			slices.SortFunc(bucket, comparePairs)
			continue
		}
		for i := 1; i < len(bucket); i++ {
			for j := i; j > 0 && comparePairs(bucket[j], bucket[j-1]) < 0; j-- {
				bucket[j], bucket[j-1] = bucket[j-1], bucket[j]
			}
		}
	}
}

// keyRun is a file of sorted keys, with its Bloom filter and the first key
// of each of its blocks.
type keyRun struct {
	f     *os.File
	name  string // set while the file could not be removed yet
	n     int
	bloom []uint64
	first []userKey // first key of each block of runBlockKeys
	block []byte    // scratch for a block
}

// writeRun writes the keys next returns, in ascending order, at most atMost
// of them, as a run in dir.
func writeRun(dir string, atMost int, next func() (userKey, bool)) (*keyRun, error) {
	f, err := os.CreateTemp(dir, "adsync-users-*.keys")
	if err != nil {
		return nil, fmt.Errorf("remembering the users already seen (set TMPDIR to a folder with room): %w", err)
	}
	r := &keyRun{f: f, bloom: make([]uint64, bloomWords(atMost))}
	if os.Remove(f.Name()) != nil {
		r.name = f.Name()
	}
	w := bufio.NewWriterSize(f, 64<<10)
	for k, ok := next(); ok; k, ok = next() {
		if r.n%runBlockKeys == 0 {
			r.first = append(r.first, k)
		}
		r.bloomAdd(k)
		if _, err := w.Write(k[:]); err != nil {
			break
		}
		r.n++
	}
	if err := w.Flush(); err != nil {
		r.close()
		return nil, fmt.Errorf("remembering the users already seen: writing %s: %w", f.Name(), err)
	}
	return r, nil
}

// mergeRuns writes the keys of a and b as one run.
func mergeRuns(dir string, a, b *keyRun) (*keyRun, error) {
	ra, rb := a.reader(), b.reader()
	ka, okA, errA := ra()
	kb, okB, errB := rb()
	r, err := writeRun(dir, a.n+b.n, func() (userKey, bool) {
		if errA != nil || errB != nil || (!okA && !okB) {
			return userKey{}, false
		}
		var k userKey
		switch c := compareKeys(ka, kb); {
		case !okB || (okA && c < 0):
			k = ka
			ka, okA, errA = ra()
		case !okA || c > 0:
			k = kb
			kb, okB, errB = rb()
		default: // the same key in both: kept once
			k = ka
			ka, okA, errA = ra()
			kb, okB, errB = rb()
		}
		return k, true
	})
	if err == nil {
		err = errors.Join(errA, errB)
		if err != nil {
			r.close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("remembering the users already seen: merging two runs: %w", err)
	}
	return r, nil
}

// reader returns the run's keys in order, then false.
func (r *keyRun) reader() func() (userKey, bool, error) {
	chunk := make([]byte, 4096*16)
	var buf []byte // what is left of the chunk
	next := 0      // the index of the first key not read into the chunk
	return func() (k userKey, ok bool, err error) {
		if len(buf) == 0 {
			if next == r.n {
				return k, false, nil
			}
			buf = chunk[:min(len(chunk), (r.n-next)*16)]
			if _, err := r.f.ReadAt(buf, int64(next)*16); err != nil {
				return k, false, fmt.Errorf("reading %s: %w", r.f.Name(), err)
			}
			next += len(buf) / 16
		}
		k, buf = userKey(buf[:16]), buf[16:]
		return k, true, nil
	}
}

// has reports whether k is in the run.
func (r *keyRun) has(k userKey) (bool, error) {
	if !r.bloomHas(k) {
		return false, nil
	}
	// The last block whose first key is at most k.
	b, found := slices.BinarySearchFunc(r.first, k, compareKeys)
	if found {
		return true, nil
	}
	if b--; b < 0 {
		return false, nil
	}
	start := b * runBlockKeys
	count := min(runBlockKeys, r.n-start)
	if cap(r.block) < runBlockKeys*16 {
		r.block = make([]byte, runBlockKeys*16)
	}
	block := r.block[:count*16]
	if _, err := r.f.ReadAt(block, int64(start)*16); err != nil {
		return false, fmt.Errorf("remembering the users already seen: reading %s: %w", r.f.Name(), err)
	}
	lo, hi := 0, count // the first key at or after k is in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if compareKeys(userKey(block[m*16:m*16+16]), k) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < count && userKey(block[lo*16:lo*16+16]) == k, nil
}

// dropIndex lets go of the run's filter and block keys: only its file is
// read after, by reader.
func (r *keyRun) dropIndex() { r.bloom, r.first, r.block = nil, nil, nil }

func (r *keyRun) close() {
	r.f.Close()
	if r.name != "" {
		os.Remove(r.name)
	}
}

// The Bloom filter is blocked: each key sets 7 bits of one 512-bit block
// (one cache line), chosen by the key's first 8 bytes; its next 8 bytes
// pick the bits. Keys are SHA-256 bytes, uniform already.
func bloomWords(keys int) int { return max(1, (keys*bloomBitsKey+511)/512) * 8 }

func (r *keyRun) bloomBits(k userKey) (block []uint64, h uint64) {
	blocks := uint64(len(r.bloom) / 8)
	i := binary.LittleEndian.Uint64(k[:8]) % blocks
	return r.bloom[i*8 : i*8+8 : i*8+8], binary.LittleEndian.Uint64(k[8:])
}

func (r *keyRun) bloomAdd(k userKey) {
	block, h := r.bloomBits(k)
	for j := range 7 {
		bit := (h >> (9 * j)) & 511
		block[bit/64] |= 1 << (bit % 64)
	}
}

func (r *keyRun) bloomHas(k userKey) bool {
	block, h := r.bloomBits(k)
	for j := range 7 {
		bit := (h >> (9 * j)) & 511
		if block[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}
