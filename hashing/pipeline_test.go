package hashing_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

// hashCSV runs the pipeline over in and returns the emitted user objects.
func hashCSV(t *testing.T, in string, report *hashing.Report) []string {
	t.Helper()
	r, err := hashing.NewCSVReader(strings.NewReader(in), hashing.ReaderOptions{})
	require.NoError(t, err)
	var out []string
	err = hashing.HashRecords(r, normalizer(t, hashing.Options{DefaultCountry: "US", PassThroughHashed: true}), func(u hashing.HashedUser) error {
		b, err := json.Marshal(u)
		require.NoError(t, err)
		out = append(out, string(b))
		return nil
	}, report)
	require.NoError(t, err)
	return out
}

func TestHashRecordsNeverEmitsRowsWithAnInvalidValue(t *testing.T) {
	t.Parallel()
	in := "email,email2,phone,external_id\n" +
		"Test@Example.com,test@example.com ,(415) 555-0100,crm-1\n" + // 2: valid, duplicate email
		"good@example.com,not-an-email,,crm-2\n" + // 3: one invalid email rejects the row
		",,,\n" + // 4: all empty: skipped
		"x@y.co,,12,\n" + // 5: invalid phone
		"too,many,fields,here,!\n" // 6: unreadable
	var report hashing.Report
	out := hashCSV(t, in, &report)

	require.Equal(t, []string{
		`{"email":["973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b"],"phone_number":["` + sha("14155550100") + `"],"partner_user_id":["crm-1"]}`,
	}, out, "one user; duplicate emails sent once")
	for _, line := range out {
		require.NotContains(t, line, "good@example.com")
	}

	require.Equal(t, 5, report.RowsRead)
	require.Equal(t, 1, report.RowsEmitted)
	require.Equal(t, 3, report.RowsInvalid)
	require.Equal(t, 1, report.RowsSkipped)
	require.Equal(t, map[hashing.Type]int{hashing.TypeEmail: 1, hashing.TypePhoneNumber: 1, hashing.TypePartnerUserID: 1}, report.Valid)
	require.Equal(t, map[hashing.Type]int{hashing.TypeEmail: 1, hashing.TypePhoneNumber: 1}, report.Invalid)
	require.Len(t, report.InvalidRows, 3)
	require.Equal(t, 3, report.InvalidRows[0].Line)
	require.Contains(t, report.InvalidRows[0].Reason, "invalid email: no @")
	require.NotContains(t, report.InvalidRows[0].Reason, "not-an-email", "no raw values in the report")
	require.Equal(t, 5, report.InvalidRows[1].Line)
	require.Contains(t, report.InvalidRows[1].Reason, "invalid phone_number")
	require.Equal(t, hashing.RowError{Line: 6, Reason: "5 fields, the header has 4"}, report.InvalidRows[2])
}

func TestHashRecordsSortsHashesWithinAType(t *testing.T) {
	t.Parallel()
	var report hashing.Report
	out := hashCSV(t, "email,email2\nb@example.com,a@example.com\n", &report)
	a, b := sha("a@example.com"), sha("b@example.com")
	if a > b {
		a, b = b, a
	}
	require.Equal(t, []string{`{"email":["` + a + `","` + b + `"]}`}, out)
}

func TestReportListsInvalidRowsUpToItsCapButCountsAll(t *testing.T) {
	t.Parallel()
	report := hashing.Report{MaxInvalidListed: 2}
	hashCSV(t, "email\nx\ny\nz\n", &report)
	require.Equal(t, 3, report.RowsInvalid)
	require.Len(t, report.InvalidRows, 2)

	var text strings.Builder
	require.NoError(t, report.WriteText(&text))
	require.Contains(t, text.String(), "rows read: 3\n")
	require.Contains(t, text.String(), "email: 0 valid, 3 invalid\n")
	require.Contains(t, text.String(), "invalid: line 2: invalid email: no @")
	require.Contains(t, text.String(), "invalid: 1 more rows not listed\n")
}
