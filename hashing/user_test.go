package hashing_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

func TestUserObjectsAreValidJSONWhateverThePartnerID(t *testing.T) {
	t.Parallel()
	ids := []string{"a\x01b", `quote"d`, `back\\slash`, "tab\there", "caf\u00e9", "line\u2028sep", "bell\x07\x1f"}
	var csv strings.Builder
	csv.WriteString("external_id\n")
	for _, id := range ids {
		csv.WriteString(`"` + strings.ReplaceAll(id, `"`, `""`) + "\"\n")
	}
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	r, err := hashing.NewCSVReader(strings.NewReader(csv.String()), hashing.ReaderOptions{})
	require.NoError(t, err)
	var got []string
	require.NoError(t, hashing.HashRecords(r, n, func(u hashing.HashedUser) error {
		var obj map[string][]string
		raw := u.AppendJSON(nil)
		require.NoError(t, json.Unmarshal(raw, &obj), "%s", raw)
		got = append(got, obj["partner_user_id"]...)
		return nil
	}, &hashing.Report{}))
	require.Equal(t, ids, got, "values round-trip unchanged")
}

func TestAUserReadBackFromItsBinaryFormIsTheSameUser(t *testing.T) {
	t.Parallel()
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	csv := "email,phone_number,external_id,device_id\n" +
		"A@Example.com,+14155550100,\"id,\x01\",00000000-0000-4000-8000-000000000001\n" +
		"b@example.com,,,\n" +
		",,caf\u00e9,\n"
	r, err := hashing.NewCSVReader(strings.NewReader(csv), hashing.ReaderOptions{})
	require.NoError(t, err)
	var users []hashing.HashedUser
	require.NoError(t, hashing.HashRecords(r, n, func(u hashing.HashedUser) error {
		users = append(users, u)
		return nil
	}, &hashing.Report{}))
	require.Len(t, users, 3)
	var buf []byte
	for _, u := range users {
		buf, err = u.AppendBinary(buf[:0])
		require.NoError(t, err)
		var back hashing.HashedUser
		require.NoError(t, back.UnmarshalBinary(buf))
		require.Equal(t, string(u.AppendJSON(nil)), string(back.AppendJSON(nil)))
		require.Equal(t, u.Line, back.Line)
		direct, line, err := hashing.AppendBinaryJSON([]byte("prefix"), buf)
		require.NoError(t, err)
		require.Equal(t, "prefix"+string(u.AppendJSON(nil)), string(direct), "the user object, written from the binary form")
		require.Equal(t, u.Line, line)
		for _, typ := range hashing.Types() {
			require.Equal(t, strings.Join(u.Values(typ), "\n"), strings.Join(back.Values(typ), "\n"), "%s", typ)
			require.Len(t, back.Values(typ), len(u.Values(typ)), "%s", typ)
		}
		for i := range buf {
			// A truncated form is refused, never read as another user.
			var cut hashing.HashedUser
			if cut.UnmarshalBinary(buf[:i]) == nil {
				require.Less(t, len(cut.AppendJSON(nil)), len(u.AppendJSON(nil)), "a prefix that reads is a user with fewer values")
			}
		}
	}
}
