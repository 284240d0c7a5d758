package adsynccmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// audienceCSV has two valid rows and two invalid ones (lines 3 and 5).
const audienceCSV = "email,phone,external_id\n" +
	"Test@Example.com,+1 (415) 555-0100,crm-1\n" +
	"broken-email,,crm-2\n" +
	"@x,,\n" +
	"ok@example.org,,\n"

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func TestAudienceHashWritesNDJSONUsersAndReport(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", audienceCSV)
	out := filepath.Join(t.TempDir(), "users.ndjson")

	r := run(t, "audience", "hash", "--in", in, "--out", out, "--max-invalid", "2")
	require.Equal(t, 0, r.code, r.stderr)

	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t,
		`{"email":["`+sha256Hex("test@example.com")+`"],"phone_number":["`+sha256Hex("14155550100")+`"],"partner_user_id":["crm-1"]}`+"\n"+
			`{"email":["`+sha256Hex("ok@example.org")+`"]}`+"\n",
		string(got))
	require.Contains(t, r.stdout, "rows read: 4\n", "report on stdout when --out is a file")
	require.Contains(t, r.stdout, "email: 2 valid, 2 invalid\n")
	require.Contains(t, r.stdout, "invalid: line 3: invalid email: no @")
	require.Contains(t, r.stdout, "invalid: line 4: invalid email: empty local part")
	require.NotContains(t, r.stdout+r.stderr, "broken-email", "no raw identifiers in the report")
}

func TestAudienceHashWritesUsersToStdoutAndReportToStderr(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", "email\nA@B.co\n")
	r := run(t, "audience", "hash", "--in", in)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, `{"email":["`+sha256Hex("a@b.co")+`"]}`+"\n", r.stdout)
	require.Contains(t, r.stderr, "rows read: 1\n")
}

func TestAudienceHashFailsAboveMaxInvalidAndLeavesNoFile(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", audienceCSV)
	dir := t.TempDir()
	out := filepath.Join(dir, "users.ndjson")

	r := run(t, "audience", "hash", "--in", in, "--out", out, "--max-invalid", "1")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "2 of 4 rows invalid, more than --max-invalid 1\n")
	require.Contains(t, r.stdout, "invalid: line 3", "the report still says which rows")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "no output and no temporary file")

	r = run(t, "audience", "hash", "--in", in, "--out", out)
	require.Equal(t, 1, r.code, "the default, 1% of the rows, tolerates none of 4")
	require.Contains(t, r.stderr, "2 of 4 rows invalid, more than --max-invalid 1% (0)\n")

	r = run(t, "audience", "hash", "--in", in, "--out", out, "--max-invalid", "-1")
	require.Equal(t, 0, r.code, r.stderr)
	require.FileExists(t, out)
}

func TestAudienceHashAppliesAliasesDefaultCountryAndPassThrough(t *testing.T) {
	t.Parallel()
	pre := strings.ToUpper(sha256Hex("someone"))
	in := writeFile(t, "users.csv", "courriel,tel\n"+pre+",(415) 555-0100\n")

	r := run(t, "audience", "hash", "--in", in, "--alias", "courriel=email", "--alias", "tel=phone_number", "--default-country", "us")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, `{"email":["`+strings.ToLower(pre)+`"],"phone_number":["`+sha256Hex("14155550100")+`"]}`+"\n", r.stdout)

	r = run(t, "audience", "hash", "--in", in, "--alias", "courriel=email", "--alias", "tel=phone_number", "--default-country", "us", "--no-pass-through")
	require.Equal(t, 1, r.code, "a hash is not an email once pass-through is off")
}

func TestAudienceHashUsageErrors(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", "email\na@b.co\n")
	for _, args := range [][]string{
		{"audience", "hash"},
		{"audience", "hash", "--in", in, "--alias", "nonsense"},
		{"audience", "hash", "--in", in, "--alias", "x=fax"},
		{"audience", "hash", "--in", in, "--default-country", "XX"},
	} {
		r := run(t, args...)
		require.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
	r := run(t, "audience", "hash", "--in", writeFile(t, "bad.csv", "email,shoe_size\n"))
	require.Equal(t, 2, r.code, "no user can be read from it: the input must change")
	require.Contains(t, r.stderr, `unknown column "shoe_size"`)
	require.Contains(t, r.stderr, "bad.csv")
}

func TestAudienceHashReadsStdinWhenInIsDash(t *testing.T) {
	t.Parallel()
	var out, errb strings.Builder
	code := Run(context.Background(), []string{"audience", "hash", "--in", "-"}, strings.NewReader(`{"handle":"@Jack"}`+"\n"), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Equal(t, `{"handle":["`+sha256Hex("jack")+`"]}`+"\n", out.String())
}

func TestAudienceHashToStdoutPrintsNoUserWhenTheRunFails(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", audienceCSV) // 2 of 4 rows invalid
	for _, args := range [][]string{
		{"--max-invalid", "1"},
		{}, // the default bound
	} {
		r := run(t, append([]string{"audience", "hash", "--in", in}, args...)...)
		require.Equal(t, 1, r.code, "%v: %s", args, r.stderr)
		require.Empty(t, r.stdout, "%v: a failed run prints no user: a partial output would look complete", args)
		require.Contains(t, r.stderr, "invalid: line 3: ", "the report still says which rows")
		require.Contains(t, r.stderr, "2 of 4 rows invalid, more than --max-invalid")
	}
	r := run(t, "audience", "hash", "--in", in, "--max-invalid", "2")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 2, strings.Count(r.stdout, "\n"), "both valid users once the run passes")
}

func TestAudienceHashHintsAtTheDelimiterAndReadsItWithTheFlag(t *testing.T) {
	t.Parallel()
	comma := run(t, "audience", "hash", "--in", writeFile(t, "users.csv", audienceCSV), "--max-invalid", "-1")
	require.Equal(t, 0, comma.code, comma.stderr)
	require.Contains(t, comma.stdout, sha256Hex("test@example.com"))
	for _, tt := range []struct {
		sep, hint string
		flags     [][]string
	}{
		{";", `the file looks semicolon-delimited: use --delimiter ';'`, [][]string{{"--delimiter", ";"}}},
		{"\t", `the file looks tab-delimited: use --delimiter tab`, [][]string{{"--delimiter", "tab"}, {"--delimiter", `\t`}, {"--delimiter", "\t"}}},
		{"|", `the file looks pipe-delimited: use --delimiter '|'`, [][]string{{"--delimiter", "|"}}},
	} {
		in := writeFile(t, "people.csv", strings.ReplaceAll(audienceCSV, ",", tt.sep))
		r := run(t, "audience", "hash", "--in", in, "--max-invalid", "-1")
		require.Equal(t, 2, r.code, "%q: the input must change: %s", tt.sep, r.stderr)
		header := strings.ReplaceAll("email,phone,external_id", ",", tt.sep)
		require.Contains(t, r.stderr, in+": line 1: the header has one column "+strconvQuote(header)+"; "+tt.hint)
		require.Empty(t, r.stdout)
		for _, flags := range tt.flags {
			r := run(t, append([]string{"audience", "hash", "--in", in, "--max-invalid", "-1"}, flags...)...)
			require.Equal(t, 0, r.code, "%q: %s", flags, r.stderr)
			require.Equal(t, comma.stdout, r.stdout, "%q: the same users as the comma file", flags)
			require.Equal(t, comma.stderr, r.stderr, "%q: the same report", flags)
		}
	}
	// A comma file read with another delimiter gets the hint back.
	r := run(t, "audience", "hash", "--in", writeFile(t, "people.csv", audienceCSV), "--delimiter", ";")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, `the file looks comma-delimited: use --delimiter ','`)
	for _, bad := range []string{"", ";;", `"`, "tabs"} {
		r := run(t, "audience", "hash", "--in", writeFile(t, "users.csv", audienceCSV), "--delimiter", bad)
		require.Equal(t, 2, r.code, "%q: %s", bad, r.stderr)
		require.Contains(t, r.stderr, "--delimiter")
	}
	require.Contains(t, run(t, "audience", "hash", "--help").stdout, "--delimiter")
	require.Contains(t, run(t, "audience", "upload", "--help").stdout, "--delimiter")
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// tripled is 10 users, each written 3 times (in other cases).
func tripled() string {
	var b strings.Builder
	b.WriteString("email\n")
	for rep := range 3 {
		for i := range 10 {
			e := fmt.Sprintf("user%d@example.com", i)
			if rep == 1 {
				e = strings.ToUpper(e)
			}
			b.WriteString(e + "\n")
		}
	}
	return b.String()
}

func TestAudienceHashWritesEachUserOnceAndCountsTheRepeats(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "users.ndjson")
	r := run(t, "audience", "hash", "--in", writeFile(t, "users.csv", tripled()), "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, 10, strings.Count(string(got), "\n"))
	require.Contains(t, r.stdout, "rows read: 30\nrows emitted: 10\n")
	require.Contains(t, r.stdout, "duplicates: 20 rows repeat a user already in the file (each user is sent once)\n")
}
