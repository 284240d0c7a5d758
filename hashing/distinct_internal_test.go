package hashing

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func testKey(i int) userKey {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(i))
	sum := sha256.Sum256(b[:])
	return userKey(sum[:16])
}

// A set that keeps only a few keys in memory answers as one map of every
// key would: each key is new once, whether its first add is in memory, in
// a run on disk or in a merge of runs; the runs stay few, and their files
// are never visible in the folder.
func TestAUserSetSpillingToRunsAnswersAsOneMapWould(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := &userSet{memKeys: 7, dir: dir}
	defer s.close()
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[userKey]bool{}
	adds := 20_000
	for i := range adds {
		// A key from a universe of 6,000: most come back many times,
		// across many spills and merges.
		k := testKey(rng.IntN(6_000))
		if i%1000 == 999 {
			k = testKey(i % 7) // the very first keys again, long after
		}
		u := &HashedUser{key: k, keyed: true}
		isNew, err := s.add(u)
		require.NoError(t, err)
		require.Equal(t, !want[k], isNew, "add %d", i)
		want[k] = true
	}
	held := len(s.mem.pairs)
	for _, r := range s.runs {
		held += r.n
	}
	require.Equal(t, len(want), held, "each distinct key is held once")
	require.Greater(t, len(s.runs), 1, "the test goes through runs on disk")
	require.LessOrEqual(t, len(s.runs), bits.Len(uint(len(want)/7))+1, "runs of similar size are merged")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "a run's file is removed as it is created")
}

// A key the filter lets through but the run does not hold is new: the
// filter only decides what is read. A filter of all ones lets every key
// through.
func TestARunHoldsOnlyTheKeysWrittenToItWhateverItsFilterSays(t *testing.T) {
	t.Parallel()
	keys := make([]userKey, 1000)
	for i := range keys {
		keys[i] = testKey(2 * i)
	}
	slices.SortFunc(keys, compareKeys)
	i := 0
	r, err := writeRun(t.TempDir(), len(keys), func() (userKey, bool) {
		if i == len(keys) {
			return userKey{}, false
		}
		i++
		return keys[i-1], true
	})
	require.NoError(t, err)
	defer r.close()
	for j := range r.bloom {
		r.bloom[j] = ^uint64(0)
	}
	for j := range 2000 {
		found, err := r.has(testKey(j))
		require.NoError(t, err)
		require.Equal(t, j%2 == 0, found, "key %d", j)
	}
}

// A folder the set cannot write in is an error naming it, not a user lost
// or sent twice.
func TestAUserSetThatCannotWriteItsRunSaysWhere(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "missing")
	s := &userSet{memKeys: 3, dir: dir}
	defer s.close()
	var err error
	for i := 0; err == nil && i < 3; i++ {
		_, err = s.add(&HashedUser{key: testKey(i), keyed: true})
	}
	require.ErrorContains(t, err, "remembering the users already seen")
	require.ErrorContains(t, err, dir)
	_, again := s.add(&HashedUser{key: testKey(99), keyed: true})
	require.Equal(t, err, again, "a set that lost keys answers nothing after")
}

// The keys in memory answer as a map would through the index's growth,
// and are forgotten by reset.
func TestNewestKeysAnswerAsAMapWould(t *testing.T) {
	t.Parallel()
	var m newestKeys
	want := map[[2]uint64]bool{}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20_000 {
		p := pairOf(testKey(rng.IntN(8_000)))
		slot, found := m.find(p)
		require.Equal(t, want[p], found)
		if !found {
			m.insert(slot, p)
			want[p] = true
		}
	}
	require.Len(t, m.pairs, len(want))
	require.LessOrEqual(t, 2*len(m.pairs), len(m.slots), "the index is at most half full")
	m.reset()
	for p := range want {
		_, found := m.find(p)
		require.False(t, found)
	}
}

// sortPairs orders keys as comparing their bytes does, for uniform keys
// and for keys that all share their top bits, by its radix pass (5,000
// keys) and by comparison (fewer than smallSort).
func TestSortPairsOrdersKeysAsTheirBytes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	var bounds [2][1 << 16]uint32
	for _, c := range []struct {
		top uint64
		n   int
	}{{0, 5000}, {0xffff, 5000}, {0, 7}, {0xffff, smallSort - 1}} { // top 0: uniform; else one bucket
		top := c.top
		keys := make([][2]uint64, c.n)
		for i := range keys {
			keys[i] = [2]uint64{rng.Uint64(), rng.Uint64() % 16}
			if top != 0 {
				keys[i][0] = top<<48 | keys[i][0]%64
			}
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, func(a, b [2]uint64) int {
			var x, y userKey
			binary.BigEndian.PutUint64(x[:8], a[0])
			binary.BigEndian.PutUint64(x[8:], a[1])
			binary.BigEndian.PutUint64(y[:8], b[0])
			binary.BigEndian.PutUint64(y[8:], b[1])
			return compareKeys(x, y)
		})
		sortPairs(keys, &bounds)
		require.Equal(t, want, keys, "top %x, %d keys", top, c.n)
	}
}
