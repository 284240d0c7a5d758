package adsynccmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/fixtures/handbook"
	"github.com/stretchr/testify/require"
)

// crmUser is one user of a nightly source: an email and the CRM's id,
// sent as partner_user_id.
type crmUser struct{ email, id string }

// crmUsers are users from..from+n-1.
func crmUsers(from, n int) []crmUser {
	out := make([]crmUser, n)
	for i := range out {
		out[i] = crmUser{email: fmt.Sprintf("user%d@example.com", from+i), id: fmt.Sprintf("crm-%d", from+i)}
	}
	return out
}

// nightlySource is where a nightly audience reads its users.
type nightlySource struct {
	// yaml is the audience's source: mapping, indented for its item.
	yaml string
	// set makes the source hold exactly users.
	set func(t *testing.T, users []crmUser)
}

// csvSource is a CSV file rewritten whole for each change, as an export
// renaming its finished file over the last one does.
func csvSource(t *testing.T) nightlySource {
	path := filepath.Join(t.TempDir(), "crm.csv")
	return nightlySource{
		yaml: "    source:\n      file: " + path + "\n",
		set: func(t *testing.T, users []crmUser) {
			var b strings.Builder
			b.WriteString("email,partner_user_id\n")
			for _, u := range users {
				fmt.Fprintf(&b, "%s,%s\n", u.email, u.id)
			}
			tmp := path + ".next"
			require.NoError(t, os.WriteFile(tmp, []byte(b.String()), 0o600))
			require.NoError(t, os.Rename(tmp, path))
		},
	}
}

// nightlyAudience is the configuration of a worker keeping a replace
// audience from src, on a schedule shrunk from nightly to every second;
// the other schedules are off.
func nightlyAudience(account string, src nightlySource) string {
	return "schedules:\n  sync: \"\"\n  insights: \"\"\n  posts: \"\"\n  stats: \"\"\n  export: \"\"\n" +
		"audiences:\n  - name: nightly\n    account: " + account + "\n    create: nightly customers\n" + src.yaml +
		"    mode: replace\n    max_delete: 20%\n    schedule: \"@every 1s\"\n"
}

// waitKept waits until the audience created for the nightly definition
// holds exactly users, with no upload left to send, and returns its id.
func waitKept(t *testing.T, b *serviceBundle, users []crmUser) string {
	t.Helper()
	ctx := context.Background()
	pool := b.pool(t)
	var emails, ids []string
	for _, u := range users {
		emails, ids = append(emails, sha256Hex(u.email)), append(ids, u.id)
	}
	slices.Sort(emails)
	slices.Sort(ids)
	var id string
	require.Eventually(t, func() bool {
		require.NoError(t, pool.QueryRow(ctx, `SELECT coalesce(max(audience_id), '') FROM audience_creates WHERE name = 'nightly customers'`).Scan(&id))
		var sending bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM audience_uploads WHERE state = 'planned')`).Scan(&sending))
		gotEmails, gotIDs := b.srv.AudienceMembers(id, "email"), b.srv.AudienceMembers(id, "partner_user_id")
		slices.Sort(gotEmails)
		slices.Sort(gotIDs)
		return id != "" && !sending && slices.Equal(emails, gotEmails) && slices.Equal(ids, gotIDs)
	}, busyWait, 50*time.Millisecond, "the audience holds exactly the source's %d users", len(users))
	return id
}

// runsOf counts the nightly audience's scheduled runs that ended with
// outcome.
func runsOf(t *testing.T, b *serviceBundle, outcome string) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*) FROM sync_runs
		WHERE pipeline = 'audience' AND trigger = 'schedule' AND params->>'audience' = 'nightly' AND outcome = $1`, outcome).Scan(&n))
	return n
}

// nightlyReplace runs a worker keeping a nightly replace audience, defined
// in YAML, equal to src across changes: users added, removed and changed
// reach the fake's membership exactly; an unchanged source sends nothing;
// a source emptied by mistake is refused, the run failed with its plan in
// adsync status and the metrics, and the audience keeps every member.
func nightlyReplace(t *testing.T, b *serviceBundle, src nightlySource) {
	t.Helper()
	account, _ := b.firstAudience(t)
	users := crmUsers(0, 30)
	src.set(t, users)
	addr, _, stop := startWorker(t, b, nightlyAudience(account, src))
	id := waitKept(t, b, users)

	// Users 0 and 1 leave, 30 and 31 join, user 10 changes its email: 5
	// of 60 known identifiers go, within max_delete 20%.
	users = crmUsers(2, 30)
	users[8].email = "user10-new@example.com"
	src.set(t, users)
	require.Equal(t, id, waitKept(t, b, users), "the same audience, created once")

	// Unchanged: the runs go on and send nothing.
	sent, runs := b.srv.Stats().Families[fixtures.FamilyAudienceUsers].Requests, runsOf(t, b, "succeeded")
	require.Eventually(t, func() bool { return runsOf(t, b, "succeeded") >= runs+2 }, busyWait, 50*time.Millisecond)
	require.Equal(t, sent, b.srv.Stats().Families[fixtures.FamilyAudienceUsers].Requests, "nothing sent")

	// Emptied by mistake: refused, nothing sent, every member kept.
	src.set(t, nil)
	require.Eventually(t, func() bool { return runsOf(t, b, "failed") > 0 }, busyWait, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		_, m := get(t, "http://"+addr+"/metrics")
		return nonZero(m, `adsync_audience_syncs_total{audience="nightly",outcome="refused"}`)
	}, busyWait, 50*time.Millisecond)
	r := stop()
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, sent, b.srv.Stats().Families[fixtures.FamilyAudienceUsers].Requests, "nothing sent")
	require.Equal(t, id, waitKept(t, b, users), "every member kept")
	st := b.run(t, "status")
	require.Equal(t, 0, st.code, st.stderr)
	require.Regexp(t, `(?m)^\d+\s+audience\s+schedule\s+.*\sfailed\s+.*planned_deletes=60 `, st.stdout)
	require.Regexp(t, `error:\s+audience nightly: the source has no valid user: a replace would delete every member; nothing was sent `+
		`\(plan: add 0 users, delete 60 of 60 known identifiers`, st.stdout)
}

func TestWorkerKeepsANightlyAudienceEqualToACSVFileRewrittenBetweenScheduledRuns(t *testing.T) {
	t.Parallel()
	nightlyReplace(t, setupService(t, bundleOptions{ownerToken: true}), csvSource(t))
}

// appendConfig adds yaml to the bundle's configuration file.
func appendConfig(t *testing.T, b *serviceBundle, yaml string) {
	t.Helper()
	f, err := os.OpenFile(b.conf, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(yaml)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func TestAudienceSyncRunsAConfiguredAudienceNowAndADryRunOnlyShowsItsPlan(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	in := writeFile(t, "crm.csv", "email\na@example.com\nb@example.com\nc@example.com\n")
	appendConfig(t, b, "audiences:\n  - name: crm\n    account: "+acct+"\n    audience: "+aud+"\n    source:\n      file: "+in+"\n    mode: replace\n")

	r := b.run(t, "audience", "sync", "crm", "--dry-run")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "plan for audience "+aud+" (replace):\n  add:       3 users\n  delete:    0 of 0 known identifiers\n  unchanged: 0 users\n"+
		"dry run: nothing recorded, created or sent\n", r.stdout)
	var runs int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT count(*) FROM sync_runs`).Scan(&runs))
	require.Zero(t, runs, "a dry run records nothing")

	r = b.run(t, "audience", "sync", "crm", "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `run \d+: upload \d+: 3 rows read, 0 invalid, 3 adds and 0 deletes in 1 batches to audience `+aud+"\n", r.stdout)
	require.Contains(t, r.stdout, "adds: 3 sent, 3 accepted\n")
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 3)

	r = b.run(t, "audience", "sync", "crm")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `run \d+: nothing to send: audience `+aud+` already holds the source\n$`, r.stdout)

	// Two of three members would go: refused, exit 1, the plan in the error.
	require.NoError(t, os.WriteFile(in, []byte("email\na@example.com\n"), 0o600))
	r = b.run(t, "audience", "sync", "crm")
	require.Equal(t, 1, r.code)
	require.Equal(t, "adsync: audience crm: replace would delete 2 of 3 known identifiers, more than max_delete 10% (0); nothing was sent "+
		"(plan: add 0 users, delete 2 of 3 known identifiers, 1 users unchanged; 1 rows read, 0 invalid); "+
		"if the source is right, adsync audience sync crm --force sends it\n", r.stderr)
	require.Len(t, b.srv.AudienceMembers(aud, "email"), 3)
	r = b.run(t, "audience", "sync", "crm", "--force", "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, []string{sha256Hex("a@example.com")}, b.srv.AudienceMembers(aud, "email"))

	r = b.run(t, "audience", "sync", "nope")
	require.Equal(t, 2, r.code)
	require.Equal(t, "adsync: audience sync: \"nope\" is not a configured audience (configured: crm)\n", r.stderr)
}

func TestConfigShowAndDoctorListTheAudiencesAndDoctorChecksTheirSourcesSendingNothing(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	in := writeFile(t, "crm.csv", "email\na@example.com\n")
	missing := filepath.Join(t.TempDir(), "missing.csv")
	const password = "warehouse-pw-never-shown"
	appendConfig(t, b, "audiences:\n"+
		"  - name: crm\n    account: "+acct+"\n    create: nightly crm\n    source:\n      file: "+in+"\n    mode: replace\n    schedule: \"@daily\"\n"+
		"  - name: gone\n    account: "+acct+"\n    audience: "+aud+"\n    source:\n      file: "+missing+"\n"+
		"  - name: vip\n    account: "+acct+"\n    audience: "+aud+"\n    source:\n      query: SELECT email FROM vip\n"+
		"      source_url: postgres://reader:"+password+"@127.0.0.1:1/warehouse\n")

	r := b.run(t, "config", "show")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "audiences:\n- name: crm\n  account: "+acct+"\n  create: nightly crm\n  source:\n    file: "+in+
		"\n  mode: replace\n  max_delete: 10%\n  schedule: \"@daily\"\n- name: gone\n", "the defaults a run applies filled in")
	require.Contains(t, r.stdout, "source_url: postgres://reader:xxxxx@127.0.0.1:1/warehouse")

	sent := b.srv.Stats().Families[fixtures.FamilyAudienceUsers].Requests
	r = b.run(t, "doctor")
	require.Equal(t, 1, r.code, "a source cannot be read")
	require.Regexp(t, `(?m)^crm\s+`+acct+`\s+create "nightly crm"\s+file `+in+`\s+replace, max_delete 10%\s+@daily\s+file `, r.stdout)
	require.Regexp(t, `(?m)^gone\s+`+acct+`\s+audience `+aud+`\s+file `+missing+`\s+add\s+\(none: adsync audience sync gone\)`, r.stdout)
	require.Regexp(t, `(?m)^vip\s+.*query on postgres://reader:xxxxx@127.0.0.1:1/warehouse`, r.stdout)
	require.Equal(t, "ok", doctorLine(t, r.stdout, "audience crm"), r.stdout)
	require.Contains(t, r.stdout, `file source can be read; the audience "nightly crm" is created on the first run`)
	require.Equal(t, "FAIL", doctorLine(t, r.stdout, "audience gone"))
	require.Contains(t, r.stdout, "missing.csv: no such file or directory")
	require.Regexp(t, `-> correct audiences\[1\]\.source\.file \(from file \S+:\d+\)`, r.stdout)
	b.requireNoSecrets(t, r.stdout+r.stderr, password)
	require.Equal(t, sent, b.srv.Stats().Families[fixtures.FamilyAudienceUsers].Requests, "nothing sent")
	require.Zero(t, b.srv.Stats().Families["POST /12/accounts/{account_id}/custom_audiences"].Requests, "nothing created")
}

// The audiences page's example, from the repository's root against the
// demo's account, runs as its commands say.
func TestTheDocsAudiencesExampleWorksAsWritten(t *testing.T) {
	t.Parallel()
	example, ok := handbook.Block(readAudiencesDoc(t), "yaml", "# audiences.yaml\n")
	require.True(t, ok, "%s shows audiences.yaml", audiencesDoc)
	b := setupService(t, bundleOptions{ownerToken: true})
	// The example runs from the project's root; the tests run in cmd/.
	appendConfig(t, b, strings.ReplaceAll(example, "file: fixtures/", "file: ../fixtures/"))

	r := b.run(t, "audience", "sync", "crm-nightly", "--dry-run")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "plan for audience \"crm-nightly\" (not created yet) (replace):\n  add:       3000 users\n")
	require.Zero(t, b.srv.Stats().Families["POST /12/accounts/{account_id}/custom_audiences"].Requests, "nothing created")

	r = b.run(t, "audience", "sync", "crm-nightly", "--wait")
	require.Equal(t, 0, r.code, r.stderr)
	m := regexp.MustCompile(`created custom audience (\S+) \("crm-nightly"\)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	require.Contains(t, r.stdout, "adds: 3000 sent, 3000 accepted\n")
	require.Len(t, b.srv.AudienceMembers(m[1], "email"), 3000)

	r = b.run(t, "audience", "sync", "crm-nightly")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "nothing to send: audience "+m[1]+" already holds the source\n")
}
