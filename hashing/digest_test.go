package hashing_test

import (
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

// digestOf is the UsersDigest of the users of a CSV file.
func digestOf(t *testing.T, csv string) string {
	t.Helper()
	r, err := hashing.NewCSVReader(strings.NewReader(csv), hashing.ReaderOptions{})
	require.NoError(t, err)
	var d hashing.UsersDigest
	require.NoError(t, hashing.HashRecords(r, normalizer(t, hashing.DefaultOptions()), func(u hashing.HashedUser) error {
		d.Add(&u)
		return nil
	}, &hashing.Report{}))
	return d.Sum()
}

func TestUsersDigestSaysTheSameUsersWhateverTheirOrderAndWriting(t *testing.T) {
	t.Parallel()
	base := digestOf(t, "email,external_id\na@b.co,1\nc@d.co,2\ne@f.co,\n")
	require.Len(t, base, 64)
	for _, same := range []string{
		"email,external_id\ne@f.co,\nc@d.co,2\na@b.co,1\n",           // another order
		"external_id,email\n1, A@B.co \n2,c@d.co\n,E@F.CO\n",         // other columns' order, other writing
		"email,external_id\na@b.co,1\nc@d.co,2\ne@f.co,\na@b.co,1\n", // a repeated user is one user
		"email,external_id\na@b.co,1\nnope,9\nc@d.co,2\ne@f.co,\n",   // an invalid row is no user
	} {
		require.Equal(t, base, digestOf(t, same), same)
	}
	for _, other := range []string{
		"email,external_id\na@b.co,1\nc@d.co,2\n",                   // a user fewer
		"email,external_id\na@b.co,1\nc@d.co,3\ne@f.co,\n",          // a user changed
		"email,external_id\na@b.co,\nc@d.co,2\ne@f.co,1\n",          // an identifier moved to another user
		"email,external_id\na@b.co,1\nc@d.co,2\ne@f.co,\ng@h.co,\n", // a user more
	} {
		require.NotEqual(t, base, digestOf(t, other), other)
	}
}
