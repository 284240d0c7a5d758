package audience

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

func TestTheSpoolGivesBackEveryUserInOrderInAboutTempBytesPerUserAndLeavesNoFile(t *testing.T) {
	t.Parallel()
	const n = 10000
	var csv strings.Builder
	csv.WriteString("email\n")
	for i := range n {
		fmt.Fprintf(&csv, "user%d@example.com\n", i)
	}
	norm, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	rr, err := hashing.NewCSVReader(strings.NewReader(csv.String()), hashing.ReaderOptions{})
	require.NoError(t, err)
	s, err := newSpool()
	require.NoError(t, err)
	var want []string
	require.NoError(t, hashing.HashRecords(rr, norm, func(u hashing.HashedUser) error {
		want = append(want, string(u.AppendJSON(nil)))
		return s.add(&u)
	}, &hashing.Report{}))
	require.NoError(t, s.w.Flush())
	st, err := s.f.Stat()
	require.NoError(t, err)
	require.LessOrEqual(t, st.Size(), int64(n*TempBytesPerUser), "%d bytes a user", st.Size()/n)

	for range 2 {
		var got []string
		require.NoError(t, s.replay(func(u hashing.HashedUser) error {
			got = append(got, string(u.AppendJSON(nil)))
			return nil
		}))
		require.Equal(t, want, got, "every user, in order, each time")
	}
	var objs []string
	require.NoError(t, s.replayJSON(func(_ int, obj []byte) error {
		objs = append(objs, string(obj))
		return nil
	}))
	require.Equal(t, want, objs, "the user objects, written from the spool")
	require.NoError(t, s.Close())
	_, err = os.Stat(s.f.Name())
	require.ErrorIs(t, err, os.ErrNotExist, "no file left")
}
