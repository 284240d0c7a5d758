package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/fixtures"
	"github.com/stretchr/testify/require"
)

// Bad input is answered with a clear error (what and where) and a non-zero
// exit, and nothing already stored is lost or corrupted.

// snapshot is what a database holds that bad input must not change.
func (e *env) snapshot(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM campaigns)::text || '/' || (SELECT coalesce(string_agg(doc_hash, ',' ORDER BY account_id, id), '') FROM campaigns) ||
		'/' || (SELECT count(*) FROM audience_uploads)::text || '/' || (SELECT count(*) FROM audience_batches)::text ||
		'/' || (SELECT count(*) FROM sync_bookmarks)::text || '/' || (SELECT coalesce(max(bookmark)::text, '') FROM sync_bookmarks)`).Scan(&s))
	return s
}

// synced is an env whose campaigns were synced once.
func synced(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, func(o *fixtures.Options) { o.Accounts, o.CampaignsPerAccount = 2, 20 }, "")
	code, out := e.run(t, "sync", "--entities", "campaigns", "--wait")
	require.Equal(t, 0, code, out)
	return e
}

func TestMalformedCSVIsReportedByLineAndNeverUploaded(t *testing.T) {
	t.Parallel()
	e := synced(t)
	before := e.snapshot(t)
	long := strings.Repeat("x", 10<<20)
	file := filepath.Join(e.dir, "bad.csv")
	content := "email,phone_number\n" +
		"good.one@example.com,+1 415 555 0101\n" +
		"\"stray \"quote@example.com,+1 415 555 0102\n" +
		"bad\xff\xfeutf8@example.com,+1 415 555 0103\n" +
		long + "@example.com,+1 415 555 0104\n" +
		"good.two@example.com,+1 415 555 0105\n" +
		"only-one-column\n"
	require.NoError(t, os.WriteFile(file, []byte(content), 0o600))

	code, out := e.run(t, "audience", "hash", "--in", file, "--out", filepath.Join(e.dir, "out.ndjson"))
	require.Equal(t, 1, code, out)
	for _, line := range []string{"line 3", "line 4", "line 5", "line 7"} {
		require.Contains(t, out, line, "each bad row is reported with its line")
	}
	require.Contains(t, out, "rows invalid: 4")
	require.NoFileExists(t, filepath.Join(e.dir, "out.ndjson"), "no partial output")
	require.Less(t, len(out), 100000, "the 10 MB line is not echoed")

	// An upload applies the same bound: by default it refuses the file and
	// records nothing.
	code, out = e.run(t, "audience", "upload", "--account", e.firstAccount(t), "--create", "bad input refused", "--in", file, "--wait")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "4 of 6 rows invalid, more than --max-invalid 1% (0)")
	require.Contains(t, out, "line 7", "the refused rows are listed")
	require.Equal(t, before, e.snapshot(t), "nothing recorded")

	// Allowed, an upload sends only the good rows.
	code, out = e.run(t, "audience", "upload", "--account", e.firstAccount(t), "--create", "bad input", "--in", file, "--wait", "--max-invalid", "4")
	require.Equal(t, 0, code, out)
	aud := createdAudience.FindStringSubmatch(out)[1]
	require.Len(t, e.srv.AudienceMembers(aud, "email"), 2, "invalid rows never reach the service")
	require.Equal(t, strings.Split(before, "/")[0], strings.Split(e.snapshot(t), "/")[0])
}

func TestCSVWithMissingOrUnknownColumnsIsRefusedNamingThem(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, "")
	for name, tc := range map[string]struct {
		content, want string
		flags         []string
	}{
		"missing": {"name,zip\nAda,12345\n", "no identifier column", []string{"--ignore-unknown"}},
		"unknown": {"email,shoe_size\na@example.com,42\n", `unknown column "shoe_size"`, nil},
	} {
		file := filepath.Join(e.dir, name+".csv")
		require.NoError(t, os.WriteFile(file, []byte(tc.content), 0o600))
		code, out := e.run(t, append([]string{"audience", "hash", "--in", file}, tc.flags...)...)
		require.NotEqual(t, 0, code, out)
		require.Contains(t, out, tc.want)
		require.Contains(t, out, file, "the error names the file")
	}
}

func TestInvalidConfigurationIsRefusedNamingKeyFileAndLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, "")
	for name, tc := range map[string]struct{ yaml, want string }{
		"unknown key":   {"queues:\n  sync: 2\n  turbo: true\n", `line 3: unknown key "turbo"`},
		"invalid value": {"log_level: loud\n", `log_level "loud"`},
		"bad cron":      {"schedules:\n  sync: \"at midnight\"\n", `schedules.sync: invalid cron spec "at midnight"`},
		"broken yaml":   {"queues: [1, 2\n", "line"},
	} {
		file := filepath.Join(e.dir, strings.ReplaceAll(name, " ", "-")+".yaml")
		require.NoError(t, os.WriteFile(file, []byte(tc.yaml), 0o600))
		code, out := runRaw(t, adsyncExe(), "worker", "--config", file)
		require.Equal(t, 1, code, "%s: %s", name, out)
		require.Contains(t, out, tc.want, name)
		if name != "bad cron" && name != "invalid value" {
			require.Contains(t, out, file, "%s: the error names the file", name)
		}
		require.Equal(t, 1, strings.Count(strings.TrimSpace(out), "\n")+1, "%s: one line, no stack trace: %s", name, out)
	}
}

func TestUnreachableDatabaseIsNamedAndNothingStarts(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	for _, args := range [][]string{{"sync", "--wait"}, {"worker"}, {"migrate"}, {"status"}} {
		code, out := runRaw(t, adsyncExe(), append(args, "--database-url", "postgres://adsync:hunter2@"+addr+"/adsync?connect_timeout=3")...)
		require.Equal(t, 1, code, "%v: %s", args, out)
		require.Contains(t, out, "cannot connect to database at "+addr, "%v", args)
		require.NotContains(t, out, "hunter2")
		require.NotContains(t, out, "goroutine")
	}
}

func TestWrongAPIBaseURLFailsClearlyAndStoresNothing(t *testing.T) {
	t.Parallel()
	e := synced(t)
	before := e.snapshot(t)
	conf, err := os.ReadFile(e.conf)
	require.NoError(t, err)
	wrong := strings.Replace(string(conf), "/ads\n", "/not-the-ads-base\n", 1)
	require.NotEqual(t, string(conf), wrong)
	require.NoError(t, os.WriteFile(e.conf, []byte(wrong), 0o600))
	code, out := e.run(t, "sync", "--entities", "campaigns", "--wait")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "GET /12/accounts")
	require.Contains(t, out, "404")
	require.Equal(t, before, e.snapshot(t), "nothing stored changed")

	// An address nothing listens on fails with the connection error.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := l.Addr().String()
	require.NoError(t, l.Close())
	wrong = strings.Replace(string(conf), "ads_url: http://", "ads_url: http://"+dead+"/x#", 1)
	require.NoError(t, os.WriteFile(e.conf, []byte(wrong), 0o600))
	code, out = e.run(t, "api", "GET", "/12/accounts")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "connection refused")
	require.Equal(t, before, e.snapshot(t))
}

func TestRevokedCredentialsFailClearlyAndStoredDataStays(t *testing.T) {
	t.Parallel()
	e := synced(t)
	before := e.snapshot(t)
	// Revoke the configured access token at the service.
	code, out := e.run(t, "api", "POST", "/1.1/oauth/invalidate_token")
	require.Equal(t, 0, code, out)
	code, out = e.run(t, "sync", "--entities", "campaigns", "--full", "--wait")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "code 89")
	require.Contains(t, strings.ToLower(out), "invalid or expired token")
	require.NotContains(t, out, e.srv.Options().OwnerSecret)
	require.Equal(t, before, e.snapshot(t), "a failed run changes nothing stored, not even the bookmarks")
	code, out = e.run(t, "api", "GET", "/12/accounts")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "code 89")
}

// runRaw runs the adsync binary with args and no configuration file.
func runRaw(t *testing.T, self string, args ...string) (int, string) {
	t.Helper()
	cmd := execCommand(self, args...)
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(out)
}
