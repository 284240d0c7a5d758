package hashing_test

import (
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

func csvRows(t *testing.T, in string, opts hashing.ReaderOptions) []row {
	t.Helper()
	r, err := hashing.NewCSVReader(strings.NewReader(in), opts)
	require.NoError(t, err)
	return readAll(t, r)
}

func TestCSVReaderMapsHeaderAliasesToTypes(t *testing.T) {
	t.Parallel()
	rows := csvRows(t, "\ufeffE-Mail,Mobile,screen_name,IDFA,user_id,external_id\r\na@b.co,+14155550100,@jack,6d92078a-8246-4ba4-ae5b-76104861e7dc,12,crm1\r\n", hashing.ReaderOptions{})
	require.Equal(t, []row{{Line: 2, Values: map[hashing.Type][]string{
		hashing.TypeEmail: {"a@b.co"}, hashing.TypePhoneNumber: {"+14155550100"}, hashing.TypeHandle: {"@jack"},
		hashing.TypeDeviceID: {"6d92078a-8246-4ba4-ae5b-76104861e7dc"}, hashing.TypeServiceID: {"12"}, hashing.TypePartnerUserID: {"crm1"},
	}}}, rows)
}

func TestCSVReaderAcceptsConfiguredAliases(t *testing.T) {
	t.Parallel()
	rows := csvRows(t, "courriel,tel\na@b.co,1\n", hashing.ReaderOptions{Aliases: map[string]hashing.Type{"Courriel": hashing.TypeEmail, "tel": hashing.TypePhoneNumber}})
	require.Equal(t, []row{{Line: 2, Values: map[hashing.Type][]string{hashing.TypeEmail: {"a@b.co"}, hashing.TypePhoneNumber: {"1"}}}}, rows)
}

func TestCSVReaderKeepsSeveralColumnsOfOneType(t *testing.T) {
	t.Parallel()
	rows := csvRows(t, "email,email2,email_3,emails,phone\na@b.co,c@d.co,e@f.co,g@h.co,\n", hashing.ReaderOptions{})
	require.Equal(t, []string{"a@b.co", "c@d.co", "e@f.co", "g@h.co"}, rows[0].Values[hashing.TypeEmail])
}

func TestCSVReaderRejectsUnknownColumnByName(t *testing.T) {
	t.Parallel()
	_, err := hashing.NewCSVReader(strings.NewReader("email,shoe_size\n"), hashing.ReaderOptions{})
	require.ErrorContains(t, err, `unknown column "shoe_size" (column 2)`)

	rows := csvRows(t, "email,shoe_size\na@b.co,42\n", hashing.ReaderOptions{IgnoreUnknown: true})
	require.Equal(t, []row{{Line: 2, Values: map[hashing.Type][]string{hashing.TypeEmail: {"a@b.co"}}}}, rows)
}

func TestCSVReaderRequiresAnIdentifierColumn(t *testing.T) {
	t.Parallel()
	_, err := hashing.NewCSVReader(strings.NewReader("name,city\n"), hashing.ReaderOptions{IgnoreUnknown: true})
	require.ErrorContains(t, err, "no identifier column")
	_, err = hashing.NewCSVReader(strings.NewReader(""), hashing.ReaderOptions{})
	require.ErrorContains(t, err, "no header")
}

func TestCSVReaderReportsBadRowsByLineAndGoesOn(t *testing.T) {
	t.Parallel()
	in := "email,phone\n" +
		"a@b.co,1\n" + // 2
		"only-one-field\n" + // 3
		"c@d.co,\xff\xfe\n" + // 4
		"e@f\"g.co,2\n" + // 5
		"\"h@i.co,3\n" + // 6: unclosed quote
		"\n" + // 7: blank, skipped
		"\"j@k.co\",\"4\"\n" // 8
	rows := csvRows(t, in, hashing.ReaderOptions{})
	require.Len(t, rows, 6)
	require.Equal(t, 2, rows[0].Line)
	require.Equal(t, row{Line: 3, Err: "1 fields, the header has 2"}, rows[1])
	require.Equal(t, row{Line: 4, Err: "invalid UTF-8 at byte 8"}, rows[2])
	require.Equal(t, 5, rows[3].Line)
	require.Contains(t, rows[3].Err, "stray quote at column 4")
	require.Equal(t, 6, rows[4].Line)
	require.Contains(t, rows[4].Err, "unclosed quote")
	require.Equal(t, row{Line: 8, Values: map[hashing.Type][]string{hashing.TypeEmail: {"j@k.co"}, hashing.TypePhoneNumber: {"4"}}}, rows[5])
}

func TestCSVReaderRejectsLineOverLimitAndResumes(t *testing.T) {
	t.Parallel()
	in := "email\n" + strings.Repeat("x", 100) + "\na@b.co\n" + strings.Repeat("y", 64) + "\n"
	rows := csvRows(t, in, hashing.ReaderOptions{MaxLineBytes: 64})
	require.Equal(t, []row{
		{Line: 2, Err: "line longer than 64 bytes"},
		{Line: 3, Values: map[hashing.Type][]string{hashing.TypeEmail: {"a@b.co"}}},
		{Line: 4, Values: map[hashing.Type][]string{hashing.TypeEmail: {strings.Repeat("y", 64)}}},
	}, rows)
}

func TestCSVReaderHintsAtTheDelimiterOfAOneColumnHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in    string
		delim rune
		want  string
	}{
		{"email;phone\na@b.co;1\n", 0, `line 1: the header has one column "email;phone"; the file looks semicolon-delimited: use --delimiter ';'`},
		{"\n\ufeffemail\tphone\n", 0, `line 2: the header has one column "email\tphone"; the file looks tab-delimited: use --delimiter tab`},
		{"email|phone|x;y\n", 0, `line 1: the header has one column "email|phone|x;y"; the file looks pipe-delimited: use --delimiter '|'`},
		{"email,phone\n", ';', `line 1: the header has one column "email,phone"; the file looks comma-delimited: use --delimiter ','`},
	} {
		_, err := hashing.NewCSVReader(strings.NewReader(tt.in), hashing.ReaderOptions{Delimiter: tt.delim, IgnoreUnknown: true})
		require.EqualError(t, err, tt.want)
	}
	// A real one-column file, or a name without another delimiter, gets no hint.
	rows := csvRows(t, "email\na;b@c.co\n", hashing.ReaderOptions{})
	require.Equal(t, []string{"a;b@c.co"}, rows[0].Values[hashing.TypeEmail])
	_, err := hashing.NewCSVReader(strings.NewReader("mail\n"), hashing.ReaderOptions{})
	require.ErrorContains(t, err, `unknown column "mail"`)
}

func TestCSVReaderReadsOtherDelimiters(t *testing.T) {
	t.Parallel()
	for _, d := range []rune{';', '\t', '|', '§'} {
		in := strings.ReplaceAll("email,phone\na@b.co,1\n\"c,d@e.co\",\"2\"\n", ",", string(d))
		rows := csvRows(t, in, hashing.ReaderOptions{Delimiter: d})
		require.Equal(t, []row{
			{Line: 2, Values: map[hashing.Type][]string{hashing.TypeEmail: {"a@b.co"}, hashing.TypePhoneNumber: {"1"}}},
			{Line: 3, Values: map[hashing.Type][]string{hashing.TypeEmail: {strings.ReplaceAll("c,d@e.co", ",", string(d))}, hashing.TypePhoneNumber: {"2"}}},
		}, rows, "%q", d)
	}
}

func TestParseDelimiter(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]rune{",": ',', ";": ';', "tab": '\t', "TAB": '\t', `\t`: '\t', "\t": '\t', "|": '|', "§": '§'} {
		got, err := hashing.ParseDelimiter(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", ";;", `"`, "\n", "\r", "\xff", "ab"} {
		_, err := hashing.ParseDelimiter(in)
		require.Error(t, err, "%q", in)
	}
	_, err := hashing.NewCSVReader(strings.NewReader("email\n"), hashing.ReaderOptions{Delimiter: '"'})
	require.Error(t, err)
}
