package adsynccmd

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// firstAudience returns an account of the fake and one of its audiences.
func (b *serviceBundle) firstAudience(t *testing.T) (string, string) {
	t.Helper()
	truth := b.srv.AdsTruth()
	var accounts []string
	for id, kinds := range truth.Accounts {
		if len(kinds["custom_audiences"].IDs) > 0 {
			accounts = append(accounts, id)
		}
	}
	require.NotEmpty(t, accounts)
	slices.Sort(accounts)
	return accounts[0], truth.Accounts[accounts[0]]["custom_audiences"].IDs[0]
}

func TestAudienceUploadWaitsReportsAndSkipsTheSameFileAgain(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	in := writeFile(t, "users.csv", audienceCSV)

	r := b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait", "--default-country", "US", "--max-invalid", "2")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "invalid: line 3: ")
	require.Contains(t, r.stdout, "invalid: line 4: ")
	require.Contains(t, r.stdout, "rows read: 4\nrows invalid: 2\nbatches: 1 (1 done, 0 failed)\nretries: 0\nadds: 2 sent, 2 accepted\ndeletes: 0 sent, 0 accepted\n")
	require.ElementsMatch(t, []string{sha256Hex("ok@example.org"), sha256Hex("test@example.com")}, b.srv.AudienceMembers(aud, "email"))
	require.Equal(t, []string{sha256Hex("14155550100")}, b.srv.AudienceMembers(aud, "phone_number"))
	require.Equal(t, []string{"crm-1"}, b.srv.AudienceMembers(aud, "partner_user_id"), "crm-2's row was invalid")
	b.requireNoSecrets(t, r.stdout+r.stderr)

	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait", "--max-invalid", "2")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "skipped: ")
	require.Contains(t, r.stdout, "--force")

	// Skipped or not, the file is held to the bound: by default its 2
	// invalid rows of 4 (as recorded) refuse it, as they would a new file.
	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "(as recorded of upload 1): 2 of 4 rows invalid, more than --max-invalid 1% (0)\n")
}

func TestAudienceUploadRerunWithWaitSendsWhatWasQueued(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	in := writeFile(t, "users.csv", "email\na@example.com\nb@example.com\n")
	r := b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "queued: ")
	require.Empty(t, b.srv.AudienceMembers(aud, "email"), "nothing sent without a worker")

	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "resuming upload ")
	require.Contains(t, r.stdout, "adds: 2 sent, 2 accepted\n")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 2)
}

func TestAudienceUploadCreateRunAgainResumesTheUploadItStarted(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, _ := b.firstAudience(t)
	in := writeFile(t, "users.csv", "email\na@example.com\n")
	cmd := []string{"audience", "upload", "--account", acct, "--create", "newsletter", "--in", in}
	// Without --wait and with no worker, the upload is left unfinished, as
	// an interrupted --wait leaves it.
	r := b.run(t, cmd...)
	require.Equal(t, 0, r.code, r.stderr)
	m := regexp.MustCompile(`created custom audience (\S+) `).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	aud := m[1]
	require.Contains(t, r.stdout, "queued: ")

	r = b.run(t, append(cmd, "--wait")...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "continuing with custom audience "+aud)
	require.Contains(t, r.stdout, "resuming upload ")
	require.Contains(t, r.stdout, "adds: 1 sent, 1 accepted\n")
	require.Equal(t, []string{sha256Hex("a@example.com")}, b.srv.AudienceMembers(aud, "email"))
	n := 0
	for _, id := range b.srv.AdsTruth().Accounts[acct]["custom_audiences"].IDs {
		if id == aud {
			n++
		}
	}
	require.Equal(t, 1, n)
}

func TestAudienceUploadCreateOfATakenNamePrintsTheCommandThatUploadsToIt(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, _ := b.firstAudience(t)
	first := writeFile(t, "first.csv", "email\na@example.com\n")
	r := b.run(t, "audience", "upload", "--account", acct, "--create", "newsletter", "--in", first)
	require.Equal(t, 0, r.code, r.stderr)

	// Another file to the same name is not a rerun: the name is taken.
	other := writeFile(t, "other.csv", "email\nb@example.com\n")
	r = b.run(t, "audience", "upload", "--account", acct, "--create", "newsletter", "--in", other, "--default-country", "US", "--wait")
	require.Equal(t, 1, r.code)
	m := regexp.MustCompile(`a custom audience named "newsletter" already exists: (\S+); upload to it with: (adsync audience upload .*)\n$`).FindStringSubmatch(r.stderr)
	require.NotNil(t, m, r.stderr)
	require.Empty(t, b.srv.AudienceMembers(m[1], "email"), "nothing sent to the taken name's audience")

	// The printed command, as a shell reads it, is this command with
	// --audience instead of --create, and runs as shown.
	out, err := exec.Command("sh", "-c", "set -- "+m[2]+`; for a; do printf '%s\0' "$a"; done`).Output()
	require.NoError(t, err)
	args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	require.Equal(t, []string{"adsync", "audience", "upload", "--account", acct, "--audience", m[1],
		"--config", b.conf, "--database-url", b.db, "--default-country", "US", "--in", other, "--wait"}, args)
	r = run(t, args[1:]...)
	require.Equal(t, 0, r.code, r.stderr)
	// --wait's worker also sends the first upload, left queued.
	require.ElementsMatch(t, []string{sha256Hex("a@example.com"), sha256Hex("b@example.com")}, b.srv.AudienceMembers(m[1], "email"))
}

func TestAudienceUploadExitsNonZeroWhenABatchFails(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	truth := b.srv.AdsTruth()
	var accounts []string
	for id, kinds := range truth.Accounts {
		if len(kinds["custom_audiences"].IDs) > 0 {
			accounts = append(accounts, id)
		}
	}
	require.GreaterOrEqual(t, len(accounts), 2)
	slices.Sort(accounts)
	// Another account's audience: the service refuses the users for good.
	other := truth.Accounts[accounts[1]]["custom_audiences"].IDs[0]
	in := writeFile(t, "users.csv", "email\na@example.com\n")
	r := b.run(t, "audience", "upload", "--account", accounts[0], "--audience", other, "--in", in, "--wait")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stdout, "batches: 1 (0 done, 1 failed)")
	require.Contains(t, r.stderr, "1 of 1 batches failed")
	require.Empty(t, b.srv.AudienceMembers(other, "email"))
}

func TestAudienceUploadRefusesBadFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--audience", "x", "--in", "f"}, "--account is required"},
		{[]string{"--account", "a", "--in", "f"}, "exactly one of --audience and --create"},
		{[]string{"--account", "a", "--audience", "x", "--create", "n", "--in", "f"}, "exactly one of --audience and --create"},
		{[]string{"--account", "a", "--audience", "x"}, "--in FILE is required"},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--op", "add"}, `--op "add"`},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--mode", "replace", "--op", "delete"}, "--mode replace"},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--expires-at", "soon"}, `--expires-at "soon"`},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--effective-at", "2026-02-01", "--expires-at", "2026-01-01"}, "later than"},
		{[]string{"--account", "a", "--create", "n", "--in", "f", "--dry-run"}, "--dry-run sends nothing, so it cannot --create"},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--op", "delete", "--max-delete", "5"}, "--max-delete bounds the deletes of --mode replace"},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--max-delete", "lots"}, `invalid argument "lots" for "--max-delete"`},
		{[]string{"--account", "a", "--audience", "x", "--in", "f", "--max-invalid", "101%"}, `invalid argument "101%" for "--max-invalid"`},
	} {
		r := run(t, append([]string{"audience", "upload"}, tt.args...)...)
		require.Equal(t, 2, r.code, "%v: %s", tt.args, r.stderr)
		require.Contains(t, r.stderr, tt.want)
	}
}

func TestAudienceMaxInvalidMeansTheSameForHashAndUpload(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	pool := b.pool(t)
	in := writeFile(t, "users.csv", audienceCSV) // 2 of 4 rows invalid
	uploads := func() int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM audience_uploads`).Scan(&n))
		return n
	}
	for _, tt := range []struct {
		bound string // "" is the default
		pass  bool
	}{
		{"", false}, // 1%
		{"0", false},
		{"1", false},
		{"2", true},
		{"49%", false},
		{"50%", true},
		{"-1", true},
	} {
		var flags []string
		if tt.bound != "" {
			flags = []string{"--max-invalid", tt.bound}
		}
		want := 1
		if tt.pass {
			want = 0
		}
		r := run(t, append([]string{"audience", "hash", "--in", in}, flags...)...)
		require.Equal(t, want, r.code, "hash %q: %s", tt.bound, r.stderr)

		// --force plans the same file again each time (and does not lift
		// --max-invalid).
		before := uploads()
		r = b.run(t, append([]string{"audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--force"}, flags...)...)
		require.Equal(t, want, r.code, "upload %q: %s", tt.bound, r.stderr)
		if !tt.pass {
			require.Contains(t, r.stderr, "2 of 4 rows invalid, more than --max-invalid")
			require.Contains(t, r.stdout, "invalid: line 3: ", "the rows are listed")
			require.Equal(t, before, uploads(), "upload %q: nothing recorded", tt.bound)
		} else {
			require.Contains(t, r.stdout, "upload ", "upload %q: recorded", tt.bound)
			require.Equal(t, before+1, uploads(), "upload %q", tt.bound)
		}
	}
	require.Empty(t, b.srv.AudienceMembers(aud, "email"), "nothing sent without a worker")
}

// emails is a CSV of users user{from..from+n-1}@example.com.
func emails(from, n int) string {
	var s strings.Builder
	s.WriteString("email\n")
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&s, "user%d@example.com\n", i)
	}
	return s.String()
}

func TestAudienceUploadReplacePrintsThePlanAndBoundsDeletes(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	pool := b.pool(t)
	uploads := func() int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM audience_uploads`).Scan(&n))
		return n
	}
	replace := func(file string, flags ...string) result {
		return b.run(t, append([]string{"audience", "upload", "--account", acct, "--audience", aud, "--mode", "replace", "--in", file, "--wait"}, flags...)...)
	}

	r := replace(writeFile(t, "first.csv", emails(0, 100)))
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "plan for audience "+aud+" (replace):\n  add:       100 users\n  delete:      0 of 0 known identifiers\n  unchanged:   0 users\n")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 100)

	// Users 30..119: 30 leave (30% of the known members), 20 join, 70 stay.
	next := writeFile(t, "next.csv", emails(30, 90))
	plan := "plan for audience " + aud + " (replace):\n  add:       20 users\n  delete:    30 of 100 known identifiers\n  unchanged: 70 users\n"
	before := uploads()
	for _, flags := range [][]string{nil, {"--dry-run"}, {"--max-delete", "29"}, {"--max-delete", "29%"}} {
		r = replace(next, flags...)
		require.Equal(t, 1, r.code, "%v: %s", flags, r.stdout)
		require.Contains(t, r.stdout, plan, "%v: the plan is printed with the refusal", flags)
		require.Contains(t, r.stderr, "replace would delete 30 of 100 known identifiers, more than --max-delete", "%v", flags)
		require.Contains(t, r.stderr, "nothing was sent; --force allows it", "%v", flags)
		require.Equal(t, before, uploads(), "%v: nothing recorded", flags)
		require.Len(t, b.srv.AudienceMembers(aud, "email"), 100, "%v: no delete and no add sent", flags)
	}
	r = replace(next, "--max-delete", "30%", "--dry-run")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, plan+"dry run: nothing recorded or sent\n", r.stdout)
	require.Equal(t, before, uploads())

	r = replace(next, "--max-delete", "30%")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, plan)
	require.Contains(t, r.stdout, "20 adds and 30 deletes in 2 batches")
	require.Contains(t, r.stdout, "adds: 20 sent, 20 accepted\ndeletes: 30 sent, 30 accepted\n")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 90)

	// Everyone leaves: only --force allows it.
	last := writeFile(t, "last.csv", emails(500, 10))
	r = replace(last)
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "replace would delete 90 of 90 known identifiers, more than --max-delete 10% (9)")
	r = replace(last, "--force")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "adds: 10 sent, 10 accepted\ndeletes: 90 sent, 90 accepted\n")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 10)

	// A file without a valid user never empties the audience, --force or not.
	empty := writeFile(t, "empty.csv", "email\nnot-an-email\n")
	r = replace(empty, "--force", "--max-invalid", "-1")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, empty+": no valid user")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 10)
}

func TestAudienceUploadCommandForQuotesValuesAndMasksTheDatabasePassword(t *testing.T) {
	t.Parallel()
	var uf uploadFlags
	f := pflag.NewFlagSet("upload", pflag.ContinueOnError)
	var db, in, create string
	var wait bool
	var aliases []string
	f.StringVar(&uf.account, "account", "", "")
	f.StringVar(&create, "create", "", "")
	f.StringVar(&db, "database-url", "", "")
	f.StringVar(&in, "in", "", "")
	f.BoolVar(&wait, "wait", false, "")
	f.StringArrayVar(&aliases, "alias", nil, "")
	require.NoError(t, f.Parse([]string{"--account", "a1", "--create", "CRM list", "--in", "/data/it's here.csv",
		"--database-url", "postgres://app:hunter2@db.example/adsync", "--alias", "mail=email", "--alias", "tel=phone_number", "--wait"}))
	uf.flags = f
	require.Equal(t, `adsync audience upload --account a1 --audience x9 --alias mail=email --alias tel=phone_number `+
		`--database-url postgres://app:xxxxx@db.example/adsync --in '/data/it'\''s here.csv' --wait`, uf.commandFor("x9"))
}

func TestAudienceUploadReadsASemicolonFileWithDelimiterAndHintsWithout(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	in := writeFile(t, "people.csv", strings.ReplaceAll(audienceCSV, ",", ";"))

	r := b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait", "--default-country", "US", "--max-invalid", "2")
	require.Equal(t, 2, r.code, "the input must change: %s", r.stderr)
	require.Contains(t, r.stderr, in+`: line 1: the header has one column "email;phone;external_id"; the file looks semicolon-delimited: use --delimiter ';'`)
	require.Empty(t, b.srv.AudienceMembers(aud, "email"), "nothing sent")

	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", in, "--wait", "--default-country", "US", "--max-invalid", "2", "--delimiter", ";")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "adds: 2 sent, 2 accepted\n")
	require.ElementsMatch(t, []string{sha256Hex("ok@example.org"), sha256Hex("test@example.com")}, b.srv.AudienceMembers(aud, "email"))
	require.Equal(t, []string{sha256Hex("14155550100")}, b.srv.AudienceMembers(aud, "phone_number"))
}

func TestAudienceUploadRefusesAnUnknownAccountInOneLine(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	for _, target := range [][]string{{"--audience", "abc"}, {"--create", "customers"}} {
		r := b.run(t, append([]string{"audience", "upload", "--account", "18ce54d4x", "--in", "../fixtures/sample/crm.csv", "--wait"}, target...)...)
		require.Equal(t, 2, r.code, r.stdout+r.stderr)
		require.Equal(t, "adsync: audience upload: --account: account 18ce54d4x: not found, or these credentials cannot reach it\n", r.stderr)
		require.Empty(t, r.stdout)
	}
}

// A replace from a file holding its 10 users 3 times counts 10 users
// unchanged, not 30, and says the other rows repeat users.
func TestAudienceUploadCountsEachUserOnceAndReportsDuplicates(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	file := writeFile(t, "crm.csv", tripled())
	r := b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--in", file, "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "duplicates: 20 rows repeat a user already in the file (each user is sent once)\nplan for audience "+aud+" (add):\n  add: 10 users\n")
	require.Contains(t, r.stdout, "adds: 10 sent, 10 accepted")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 10)

	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--mode", "replace", "--in", file, "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "duplicates: 20 rows repeat a user already in the file (each user is sent once)\n"+
		"plan for audience "+aud+" (replace):\n  add:        0 users\n  delete:     0 of 10 known identifiers\n  unchanged: 10 users\n")
}
