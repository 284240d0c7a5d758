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
