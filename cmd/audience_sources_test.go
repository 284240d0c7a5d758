package adsynccmd

import (
	"context"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

// crmTable creates crm.customers in the database at dbURL holding the rows
// of audienceCSV (an empty field is a null).
func crmTable(t *testing.T, dbURL string) {
	t.Helper()
	pool := (&serviceBundle{db: dbURL}).pool(t)
	_, err := pool.Exec(context.Background(), `CREATE SCHEMA crm;
		CREATE TABLE crm.customers (id int PRIMARY KEY, email text, phone text, external_id text);
		INSERT INTO crm.customers VALUES (1, 'Test@Example.com', '+1 (415) 555-0100', 'crm-1'), (2, 'broken-email', NULL, 'crm-2'),
			(3, '@x', NULL, NULL), (4, 'ok@example.org', NULL, NULL)`)
	require.NoError(t, err)
}

// duckCSVToParquet writes the CSV file at in as Parquet with DuckDB.
func duckCSVToParquet(t *testing.T, in, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	exporttest.Duck(t, nil, map[string]string{"copy": "COPY (SELECT * FROM read_csv('" + in + "', header = true, all_varchar = true)) TO '" + out + "' (FORMAT parquet)"})
	return out
}

func TestAudienceHashReadsParquetAndAQueryLikeTheCSVNamingRows(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "users.csv", audienceCSV)
	want := run(t, "audience", "hash", "--in", in, "--max-invalid", "-1", "--default-country", "US")
	require.Equal(t, 0, want.code, want.stderr)
	require.Contains(t, want.stderr, "invalid: line 3: ")

	pq := run(t, "audience", "hash", "--in", duckCSVToParquet(t, in, "users.parquet"), "--max-invalid", "-1", "--default-country", "US")
	require.Equal(t, 0, pq.code, pq.stderr)
	require.Equal(t, want.stdout, pq.stdout)
	require.Contains(t, pq.stderr, "invalid: row 2: ", "rows, not lines")

	db := localpg.NewDatabase(t)
	crmTable(t, db)
	q := run(t, "audience", "hash", "--query", "SELECT email, phone, external_id FROM crm.customers ORDER BY id", "--source-url", db,
		"--max-invalid", "-1", "--default-country", "US")
	require.Equal(t, 0, q.code, q.stderr)
	require.Equal(t, want.stdout, q.stdout)
	require.Contains(t, q.stderr, "rows read: 4\n")
	require.Contains(t, q.stderr, "invalid: row 2: ")

	r := run(t, "audience", "hash", "--query", "SELECT email AS mail FROM crm.customers", "--source-url", db)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, `"mail" names no identifier type`)
	r = run(t, "audience", "hash", "--in", in, "--query", "SELECT 1")
	require.Equal(t, 2, r.code, r.stderr)
}

func TestAudienceHashNamesAQueryThatFailsAsItsRowsAreReadOnce(t *testing.T) {
	t.Parallel()
	db := localpg.NewDatabase(t)
	crmTable(t, db)
	_, err := (&serviceBundle{db: db}).pool(t).Exec(context.Background(), `CREATE FUNCTION crm.lookup(id int) RETURNS text LANGUAGE plpgsql AS $$
		BEGIN IF id = 3 THEN RAISE EXCEPTION 'the lookup service is down'; END IF; RETURN id::text; END $$`)
	require.NoError(t, err)
	r := run(t, "audience", "hash", "--query", "SELECT email, crm.lookup(id) AS partner_user_id FROM crm.customers ORDER BY id", "--source-url", db)
	require.Equal(t, 1, r.code, r.stderr)
	require.Equal(t, "adsync: audience hash: query: the lookup service is down (SQLSTATE P0001)\n", r.stderr)
	require.Empty(t, r.stdout, "nothing of a failed run is written")
}

func TestAudienceUploadRefusesAWritingQueryAMailColumnAndAParquetFileWithoutIdentifiersRecordingNothing(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	crmTable(t, b.db)
	people := duckCSVToParquet(t, writeFile(t, "people.csv", "name,age\nAnn,40\n"), "people.parquet")
	audiences := len(b.srv.AdsTruth().Accounts[acct]["custom_audiences"].IDs)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--query", "DELETE FROM crm.customers RETURNING email"}, "query: refused: it starts with DELETE"},
		{[]string{"--query", "WITH gone AS (DELETE FROM crm.customers RETURNING email) SELECT email FROM gone"}, "query: refused: it writes"},
		{[]string{"--query", "SELECT email AS mail FROM crm.customers"}, `query: no identifier column: "mail" names no identifier type`},
		{[]string{"--in", people}, `people.parquet: no identifier column: "name", "age" name no identifier type`},
	} {
		for _, target := range [][]string{{"--audience", aud}, {"--create", "newsletter"}} {
			args := append(append([]string{"audience", "upload", "--account", acct}, target...), tt.args...)
			r := b.run(t, args...)
			require.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
			require.Contains(t, r.stderr, tt.want)
		}
	}
	var recorded int
	require.NoError(t, b.pool(t).QueryRow(context.Background(), `SELECT (SELECT count(*) FROM audience_uploads) + (SELECT count(*) FROM audience_creates)
		+ (SELECT count(*) FROM sync_runs) + (SELECT count(*) FROM river_job) + (4 - (SELECT count(*) FROM crm.customers))`).Scan(&recorded))
	require.Zero(t, recorded, "no upload, audience, run or job recorded; no customer deleted")
	require.Len(t, b.srv.AdsTruth().Accounts[acct]["custom_audiences"].IDs, audiences, "no audience created")
}

func TestAudienceUploadFromAQueryOnAdsyncsDatabaseSendsItsUsersThenSkipsThem(t *testing.T) {
	t.Parallel()
	b := setupService(t, bundleOptions{ownerToken: true})
	acct, aud := b.firstAudience(t)
	crmTable(t, b.db)
	query := "SELECT email, phone AS phone_number, external_id AS partner_user_id FROM crm.customers"
	r := b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--query", query, "--wait", "--default-country", "US", "--max-invalid", "2")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "invalid: row 2: ")
	require.Contains(t, r.stdout, "rows read: 4\nrows invalid: 2\n")
	require.ElementsMatch(t, []string{sha256Hex("ok@example.org"), sha256Hex("test@example.com")}, b.srv.AudienceMembers(aud, "email"))
	require.Equal(t, []string{"crm-1"}, b.srv.AudienceMembers(aud, "partner_user_id"))

	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--query", query+" ORDER BY id DESC", "--default-country", "US", "--max-invalid", "2")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "skipped: the query's result was already uploaded")

	// A password in --source-url is never printed.
	u, err := url.Parse(b.db)
	require.NoError(t, err)
	u.User = url.UserPassword(u.User.Username(), "pa55-w0rd-in-url")
	r = b.run(t, "audience", "upload", "--account", acct, "--audience", aud, "--query", "SELECT nope FROM crm.customers", "--source-url", u.String())
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, `column "nope" does not exist`)
	b.requireNoSecrets(t, r.stdout+r.stderr, "pa55-w0rd-in-url")
}
