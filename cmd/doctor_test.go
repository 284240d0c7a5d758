package adsynccmd

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/fixtures/s3test"
	"github.com/adsync/adsync/sync/api"
	"github.com/adsync/adsync/sync/stats"
	"github.com/stretchr/testify/require"
)

// doctorConfig is the bundle's configuration file with export.out set to
// out and replace applied (old, new pairs).
func doctorConfig(t *testing.T, b *serviceBundle, out string, replace ...string) string {
	t.Helper()
	data, err := os.ReadFile(b.conf)
	require.NoError(t, err)
	body := strings.NewReplacer(replace...).Replace(string(data)) + "export:\n  out: " + out + "\n"
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(file, []byte(body), 0o600))
	return file
}

// doctorLine finds the check line named name and returns its status.
func doctorLine(t *testing.T, stdout, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(ok|warn|FAIL|skip)\s+` + name + `\s+(.*)$`).FindStringSubmatch(stdout)
	require.NotNil(t, m, "no %s line in:\n%s", name, stdout)
	return m[1]
}

func TestDoctorPassesEveryCheckAgainstTheFakeAndShowsNoSecret(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	out := t.TempDir()
	conf := doctorConfig(t, b, out)
	r := run(t, "doctor", "--config", conf, "--database-url", b.db)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	for _, name := range []string{"database", "service", "bearer", "clock", "export"} {
		require.Equal(t, "ok", doctorLine(t, r.stdout, name), r.stdout)
	}
	require.Regexp(t, `(?m)^api\.consumer_secret\s+\*{8}\s+file `+regexp.QuoteMeta(conf)+`:6$`, r.stdout)
	require.Regexp(t, `(?m)^database_url\s+\S+\s+flag --database-url$`, r.stdout)
	require.Regexp(t, `(?m)^api\.timeout\s+30s\s+default$`, r.stdout)
	// The analytics defaults as the pipeline applies them, not an empty list.
	require.Regexp(t, `(?m)^stats\.entities\s+`+strings.Join(stats.DefaultEntities, ", ")+`\s+default$`, r.stdout)
	require.Regexp(t, `(?m)^stats\.metric_groups\s+`+strings.Join(stats.Groups, ", ")+`\s+default$`, r.stdout)
	require.Regexp(t, `(?m)^export\.out\s+`+regexp.QuoteMeta(out)+`\s+file `, r.stdout)
	require.Contains(t, r.stdout, "these credentials reach 3 accounts")
	require.Contains(t, r.stdout, "all checks passed")
	b.requireNoSecrets(t, r.stdout+r.stderr)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Empty(t, entries, "doctor leaves nothing in the export folder")
}

func TestDoctorFailsOnABadSecretSayingWhatToCheck(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	opts := b.srv.Options()
	conf := doctorConfig(t, b, t.TempDir(), "consumer_secret: "+opts.ConsumerSecret, "consumer_secret: wrong-secret-never-shown")
	r := run(t, "doctor", "--config", conf, "--database-url", b.db)
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "service"))
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "bearer"))
	require.Equal(t, "ok", doctorLine(t, r.stdout, "database"))
	require.Regexp(t, `-> the service refused the credentials: check api\.consumer_key \(from file .*\), api\.consumer_secret \(from file `, r.stdout)
	require.Regexp(t, `-> the service refused the bearer token request \(403 code 99\): check api\.consumer_key \(from file .*\) and api\.consumer_secret`, r.stdout)
	require.Contains(t, r.stderr, "doctor: 2 of 6 checks failed")
	b.requireNoSecrets(t, r.stdout+r.stderr, "wrong-secret-never-shown")
}

func TestDoctorFailsOnAnUnreachableDatabase(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	r := run(t, "doctor", "--config", doctorConfig(t, b, t.TempDir()), "--database-url", "postgres://app:db-password-never-shown@"+addr+"/adsync")
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "database"))
	require.Contains(t, r.stdout, "cannot connect to database at "+addr)
	require.Contains(t, r.stdout, "-> start Postgres or correct database_url (from flag --database-url)")
	require.Equal(t, "ok", doctorLine(t, r.stdout, "service"), "the other checks still run")
	require.Equal(t, "ok", doctorLine(t, r.stdout, "export"))
	b.requireNoSecrets(t, r.stdout+r.stderr, "db-password-never-shown")
}

func TestDoctorNamesPendingMigrations(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	r := run(t, "doctor", "--config", doctorConfig(t, b, t.TempDir()), "--database-url", localpg.NewDatabase(t))
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "database"))
	require.Regexp(t, `\d+ pending migrations: river 1 create river migration, .*, app 1 sync_runs, `, r.stdout)
	require.Contains(t, r.stdout, "-> run adsync migrate")
	require.Equal(t, "ok", doctorLine(t, r.stdout, "service"), "the service checks do without the database")
}

// Without a token in the configuration, the user's token is the one adsync
// auth login stored in the database: with the database not migrated, the
// service check waits for it instead of advising a login.
func TestDoctorSkipsTheSignedCallWhenTheStoredTokenIsOutOfReach(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	r := run(t, "doctor", "--config", doctorConfig(t, b, t.TempDir()), "--database-url", localpg.NewDatabase(t))
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "database"))
	require.Equal(t, "skip", doctorLine(t, r.stdout, "service"), r.stdout)
	require.Contains(t, r.stdout, "a token stored by adsync auth login is kept there")
	require.NotContains(t, r.stdout, "run adsync auth login")
}

func TestDoctorFailsOnClockSkewAndWarnsBeforeIt(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	conf := doctorConfig(t, b, t.TempDir())

	b.srv.SetClockOffset(-10 * time.Minute)
	r := run(t, "doctor", "--config", conf, "--database-url", b.db)
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "clock"))
	require.Regexp(t, `the service's clock is 10m0s behind this machine's`, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "service"), "the service refuses the timestamp")
	require.Contains(t, r.stdout, "code 135")
	require.Contains(t, r.stdout, "-> this machine's clock is off (see clock)")

	b.srv.SetClockOffset(2 * time.Minute)
	r = run(t, "doctor", "--config", conf, "--database-url", b.db)
	require.Equal(t, 0, r.code, r.stdout)
	require.Equal(t, "warn", doctorLine(t, r.stdout, "clock"))
	require.Regexp(t, `the service's clock is 2m0s ahead of this machine's`, r.stdout)
	require.Equal(t, "ok", doctorLine(t, r.stdout, "service"))
}

func TestDoctorSaysExportWouldRefuseAFolderItDidNotCreate(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, "report.csv"), []byte("a,b\n"), 0o644))
	r := run(t, "doctor", "--config", doctorConfig(t, b, out), "--database-url", b.db)
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "export"))
	require.Contains(t, r.stdout, "export would refuse "+out+": it is not empty (report.csv) and has no _adsync_export.json marker")
	require.Contains(t, r.stdout, "-> point export.out (from file ")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the user's file")
}

// The S3 checks set the AWS environment: not in parallel.
func TestDoctorChecksAnS3ExportPrefixWithTheSameRules(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	b := setupService(t, bundleOptions{ownerToken: true})
	conf := func(prefix string) string { return doctorConfig(t, b, strconv.Quote(srv.URL(srv.Bucket, prefix))) }

	r := run(t, "doctor", "--config", conf("fresh"), "--database-url", b.db)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Equal(t, "ok", doctorLine(t, r.stdout, "export"))
	require.Contains(t, r.stdout, "s3://"+srv.Bucket+"/fresh is empty and writable")
	require.Empty(t, srv.List(t, srv.Bucket, ""), "the write check leaves nothing")

	srv.Put(t, srv.Bucket, "theirs/notes.txt", []byte("mine"))
	r = run(t, "doctor", "--config", conf("theirs"), "--database-url", b.db)
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "export"))
	require.Contains(t, r.stdout, "export would refuse s3://"+srv.Bucket+"/theirs: it holds objects (notes.txt)")

	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret-value")
	r = run(t, "doctor", "--config", conf("fresh"), "--database-url", b.db)
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "export"))
	require.Contains(t, r.stdout, "check the AWS credentials")
	require.NotContains(t, r.stdout+r.stderr, "wrong-secret-value")
	require.NotContains(t, r.stdout+r.stderr, srv.SecretKey)
}

// An S3 endpoint that refuses connections is named by host and port, with
// what to do about it, and the AWS SDK adds nothing to the output. It sets
// the AWS environment: not in parallel.
func TestDoctorNamesAnS3EndpointThatRefusesTheConnection(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, "")
			require.NoError(t, os.Unsetenv(k))
		}
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDNEVERSHOWN")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret-never-shown")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "config"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	file := filepath.Join(t.TempDir(), "adsync.yaml")
	require.NoError(t, os.WriteFile(file, []byte("export:\n  out: \"s3://bkt/p?endpoint=http://"+addr+"&use_path_style=true&region=us-east-1\"\n"), 0o600))

	r := run(t, "doctor", "--config", file)
	require.Equal(t, 1, r.code, r.stdout)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "export"))
	require.Contains(t, r.stdout, "the S3 endpoint "+addr+" refused the connection")
	require.Contains(t, r.stdout, "-> start the S3 server at "+addr+", or correct the endpoint in export.out (from file "+file+":2)")
	require.NotContains(t, r.stdout, "make it writable")
	require.NotContains(t, r.stdout+r.stderr, "secret-never-shown")
	require.NotContains(t, r.stdout+r.stderr, "AKIDNEVERSHOWN")
}

func TestDoctorNamesATokenStoredByAuthLoginAsSuch(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{})
	o := b.srv.Options()
	require.NoError(t, api.PGUserTokenStore{Pool: b.pool(t), SecretKey: testSecretKey}.Save(t.Context(), b.creds(),
		api.UserToken{Token: o.OwnerToken, Secret: o.OwnerSecret, UserID: "1", ScreenName: "owner_screen", AccessType: "write"}))
	r := b.run(t, "doctor")
	require.Regexp(t, `(?m)^api\.access_token\s+stored: @owner_screen\s+adsync auth login \(database\)$`, r.stdout)
	require.Regexp(t, `(?m)^api\.access_secret\s+stored: @owner_screen\s+adsync auth login \(database\)$`, r.stdout)
	require.NotRegexp(t, `(?m)^api\.access_token\s.*default$`, r.stdout)
	require.Equal(t, "ok", doctorLine(t, r.stdout, "service"), r.stdout)
	b.requireNoSecrets(t, r.stdout+r.stderr)
}
