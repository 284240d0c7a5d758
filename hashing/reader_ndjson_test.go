package hashing_test

import (
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

func ndjsonRows(t *testing.T, in string, opts hashing.ReaderOptions) []row {
	t.Helper()
	return readAll(t, hashing.NewNDJSONReader(strings.NewReader(in), opts))
}

func TestNDJSONReaderAcceptsStringsAndArrays(t *testing.T) {
	t.Parallel()
	rows := ndjsonRows(t, `{"email":["a@b.co","c@d.co"],"phone_number":"+14155550100","handle":null}`+"\n\n"+`{"partner_user_id":"x"}`, hashing.ReaderOptions{})
	require.Equal(t, []row{
		{Line: 1, Values: map[hashing.Type][]string{hashing.TypeEmail: {"a@b.co", "c@d.co"}, hashing.TypePhoneNumber: {"+14155550100"}}},
		{Line: 3, Values: map[hashing.Type][]string{hashing.TypePartnerUserID: {"x"}}},
	}, rows)
}

func TestNDJSONReaderReportsBadRowsByLineAndGoesOn(t *testing.T) {
	t.Parallel()
	in := `{"email":"a@b.co","shoe_size":"42"}` + "\n" + // 1
		`{"email":42}` + "\n" + // 2
		`{"email":["a@b.co",7]}` + "\n" + // 3
		`["a@b.co"]` + "\n" + // 4
		`{"email":"a@b.co"` + "\n" + // 5
		"{\"email\":\"\xff@b.co\"}\n" + // 6
		`{"email":"ok@b.co"}` + "\n" // 7
	rows := ndjsonRows(t, in, hashing.ReaderOptions{})
	require.Equal(t, row{Line: 1, Err: `unknown key "shoe_size"`}, rows[0])
	require.Equal(t, row{Line: 2, Err: `key "email": want a string or an array of strings`}, rows[1])
	require.Equal(t, row{Line: 3, Err: `key "email": want a string or an array of strings`}, rows[2])
	require.Equal(t, row{Line: 4, Err: "not a JSON object"}, rows[3])
	require.Equal(t, 5, rows[4].Line)
	require.Contains(t, rows[4].Err, "malformed JSON")
	require.Equal(t, row{Line: 6, Err: "invalid UTF-8 at byte 11"}, rows[5])
	require.Equal(t, row{Line: 7, Values: map[hashing.Type][]string{hashing.TypeEmail: {"ok@b.co"}}}, rows[6])
}

func TestNDJSONReaderIgnoresUnknownKeysWhenAsked(t *testing.T) {
	t.Parallel()
	rows := ndjsonRows(t, `{"email":"a@b.co","shoe_size":"42"}`, hashing.ReaderOptions{IgnoreUnknown: true})
	require.Equal(t, []row{{Line: 1, Values: map[hashing.Type][]string{hashing.TypeEmail: {"a@b.co"}}}}, rows)
}

func TestNDJSONReaderRejectsLineOverLimit(t *testing.T) {
	t.Parallel()
	rows := ndjsonRows(t, `{"email":"`+strings.Repeat("a", 100)+`@b.co"}`+"\n"+`{"email":"a@b.co"}`, hashing.ReaderOptions{MaxLineBytes: 64})
	require.Equal(t, row{Line: 1, Err: "line longer than 64 bytes"}, rows[0])
	require.Equal(t, 2, rows[1].Line)
}
