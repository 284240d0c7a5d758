package audience_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/adsync/adsync/hashing"
	"github.com/adsync/adsync/hashing/bound"
	"github.com/adsync/adsync/sync/audience"
	"github.com/adsync/adsync/sync/synctest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

// sampleCRM is the repository's sample CRM file: 3,003 rows, 3 invalid.
const sampleCRM = "../../fixtures/sample/crm.csv"

// crmDatabase creates a database holding crm.customers, the rows of the
// CSV file at path as its columns' strings (an empty field is a null), in
// the file's order, and returns its URL and a pool on it.
func crmDatabase(t *testing.T, path string) (string, *pgxpool.Pool) {
	t.Helper()
	url := localpg.NewDatabase(t)
	pool := synctest.Pool(t, url)
	ctx := context.Background()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	cr := csv.NewReader(f)
	header, err := cr.Read()
	require.NoError(t, err)
	var rows [][]any
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		row := []any{int64(len(rows) + 1)}
		for _, v := range rec {
			if v == "" {
				row = append(row, nil)
			} else {
				row = append(row, v)
			}
		}
		rows = append(rows, row)
	}
	cols := "id bigint PRIMARY KEY, " + strings.Join(header, " text, ") + " text, opted_in boolean NOT NULL DEFAULT true"
	_, err = pool.Exec(ctx, `CREATE SCHEMA crm; CREATE TABLE crm.customers (`+cols+`)`)
	require.NoError(t, err)
	_, err = pool.CopyFrom(ctx, pgx.Identifier{"crm", "customers"}, append([]string{"id"}, header...), pgx.CopyFromRows(rows))
	require.NoError(t, err)
	return url, pool
}

// duckParquet writes the CSV file at csvPath as a Parquet file with
// DuckDB, every column a string, and returns its path.
func duckParquet(t *testing.T, csvPath, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	abs, err := filepath.Abs(csvPath)
	require.NoError(t, err)
	exporttest.Duck(t, nil, map[string]string{"copy": "COPY (SELECT * FROM read_csv('" + abs + "', header = true, all_varchar = true)) TO '" + out + "' (FORMAT parquet, ROW_GROUP_SIZE 1000)"})
	d := exporttest.Duck(t, []string{out}, nil)
	require.EqualValues(t, 3003, d.Files[0].Rows, "DuckDB wrote every row")
	return out
}

// storedUsers is every user object of an upload's batches, sorted: its
// batches' content whatever their order.
func storedUsers(t *testing.T, pool *pgxpool.Pool, uploadID int64) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT body FROM audience_batches WHERE upload_id = $1 ORDER BY seq`, uploadID)
	require.NoError(t, err)
	var users []string
	var body []byte
	_, err = pgx.ForEachRow(rows, []any{&body}, func() error {
		var ops []struct {
			Params struct {
				Users []json.RawMessage `json:"users"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &ops); err != nil {
			return err
		}
		for _, op := range ops {
			for _, u := range op.Params.Users {
				users = append(users, string(u))
			}
		}
		return nil
	})
	require.NoError(t, err)
	slices.Sort(users)
	return users
}

func TestTheSampleCRMFromCSVDuckDBParquetAndAPostgresQueryUploadsTheSameUsers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	parquetFile := duckParquet(t, sampleCRM, "crm.parquet")
	crmURL, _ := crmDatabase(t, sampleCRM)

	csvOpts := b.options(sampleCRM)
	parquetOpts := b.options(parquetFile)
	queryOpts := b.options("")
	queryOpts.Query = "SELECT email, phone_number, handle, partner_user_id FROM crm.customers WHERE opted_in"
	queryOpts.SourceURL = crmURL
	b.startWorker()
	var users [][]string
	for i, o := range []audience.PlanOptions{csvOpts, parquetOpts, queryOpts} {
		id, err := audience.CreateAudience(ctx, b.deps.API, b.account, []string{"csv", "parquet", "query"}[i])
		require.NoError(t, err)
		o.AudienceID = id
		res := b.plan(o)
		require.Equal(t, audience.Planned, res.Outcome)
		require.Equal(t, 3003, res.Report.RowsRead)
		require.Equal(t, 3, res.Report.RowsInvalid)
		require.EqualValues(t, 3000, res.Summary.Adds)
		require.Equal(t, 2, res.Batches)
		p := b.waitFinished(res.Upload.ID)
		require.EqualValues(t, 3000, p.AddsAccepted)
		users = append(users, storedUsers(t, b.pool, res.Upload.ID))
		b.audienceID = id
		require.Equal(t, expectedSet(t, sampleCRM), b.membership(), "source %d: the fake holds exactly the file's valid users", i)
	}
	require.Len(t, users[0], 3000)
	require.Equal(t, users[0], users[1], "Parquet: the same user objects")
	require.Equal(t, users[0], users[2], "query: the same user objects")
}

// recordedNothing requires that no upload, batch, run or job was recorded.
func (b *bundle) recordedNothing() {
	b.t.Helper()
	var n int
	require.NoError(b.t, b.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM audience_uploads) + (SELECT count(*) FROM audience_batches)
		+ (SELECT count(*) FROM sync_runs) + (SELECT count(*) FROM river_job)`).Scan(&n))
	require.Zero(b.t, n, "nothing recorded")
}

func TestASourceNoUserCanBeReadFromIsRefusedNamingWhyAndNothingIsRecordedOrWritten(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	crmURL, crm := crmDatabase(t, sampleCRM)
	_, err := crm.Exec(ctx, `CREATE SEQUENCE crm.ids`)
	require.NoError(t, err)
	type people struct {
		Name string `parquet:"name"`
		Age  int32  `parquet:"age"`
	}
	noIdentifier := filepath.Join(t.TempDir(), "people.parquet")
	require.NoError(t, parquet.WriteFile(noIdentifier, []people{{"Ann", 40}}))
	for _, tt := range []struct {
		query, path string
		want        string
	}{
		{query: `DELETE FROM crm.customers RETURNING email`, want: "query: refused: it starts with DELETE"},
		{query: `  /* nightly */ (UPDATE crm.customers SET opted_in = false RETURNING email)`, want: "query: refused: it starts with UPDATE"},
		{query: `WITH gone AS (DELETE FROM crm.customers RETURNING email) SELECT email FROM gone`, want: "query: refused: it writes"},
		{query: `SELECT email INTO crm.copy FROM crm.customers`, want: "query: refused: it writes"},
		{query: `SELECT email, nextval('crm.ids')::text AS partner_user_id FROM crm.customers`, want: "query: refused: it writes"},
		{query: `SELECT email FROM crm.customers; DELETE FROM crm.customers`, want: "cannot insert multiple commands"},
		{query: `SELECT email AS mail FROM crm.customers`, want: `query: no identifier column: "mail" names no identifier type`},
		{query: `SELECT email, handle AS mail FROM crm.customers`, want: `query: column "mail" names no identifier type`},
		{query: `SELECT email, 1.5::float8 AS phone_number FROM crm.customers`, want: `query: column "phone_number" is double precision: want a string, integer or uuid column`},
		{query: `SELECT email FROM crm.nope`, want: `query: relation "crm.nope" does not exist`},
		{path: noIdentifier, want: `people.parquet: no identifier column: "name", "age" name no identifier type`},
		{path: filepath.Join(t.TempDir(), "missing.csv"), want: "missing.csv: no such file"},
	} {
		o := b.options(tt.path)
		o.Query = tt.query
		if tt.query != "" {
			o.SourceURL = crmURL
		}
		_, err := audience.Plan(ctx, b.pool, o)
		t.Logf("%s%s: %v", tt.query, tt.path, err)
		require.ErrorContains(t, err, tt.want, tt.query+tt.path)
		var ie *hashing.InputError
		require.True(t, errors.As(err, &ie), "%s%s: an input error: %v", tt.query, tt.path, err)
		if !strings.Contains(tt.query, "nextval") {
			// A function that writes is only refused as the query runs:
			// CheckSource never runs it.
			require.ErrorContains(t, audience.CheckSource(ctx, b.pool, o), tt.want, "CheckSource, as Plan")
		}
	}
	b.recordedNothing()
	var rows, optedIn int
	var copied *string
	require.NoError(t, crm.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE opted_in), to_regclass('crm.copy')::text FROM crm.customers`).Scan(&rows, &optedIn, &copied))
	require.Equal(t, 3003, rows, "nothing deleted")
	require.Equal(t, 3003, optedIn, "nothing updated")
	require.Nil(t, copied, "no table created")
	var called bool
	require.NoError(t, crm.QueryRow(ctx, `SELECT is_called FROM crm.ids`).Scan(&called))
	require.False(t, called, "the sequence never moved")
	require.Empty(t, b.spy.requests())
}

func TestAQueryThatFailsAsItsRowsAreReadIsNamedOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	crmURL, crm := crmDatabase(t, sampleCRM)
	// Postgres runs the function only as the rows are fetched: its error,
	// not the query's text, is what fails (SQLSTATE P0001, no input error).
	_, err := crm.Exec(ctx, `CREATE SEQUENCE crm.ids; CREATE FUNCTION crm.lookup(id bigint) RETURNS text LANGUAGE plpgsql AS $$
		BEGIN IF id = 2000 THEN RAISE EXCEPTION 'the lookup service is down'; END IF; RETURN id::text; END $$`)
	require.NoError(t, err)
	o := b.options("")
	o.SourceURL = crmURL
	o.Query = "SELECT email, crm.lookup(id) AS partner_user_id FROM crm.customers ORDER BY id"
	_, err = audience.Plan(ctx, b.pool, o)
	require.EqualError(t, err, "audience upload: query: the lookup service is down (SQLSTATE P0001)")

	// A function that writes is refused as the rows are read too: an input
	// error, named as the query's other refusals are.
	o.Query = "SELECT email, nextval('crm.ids')::text AS partner_user_id FROM crm.customers"
	_, err = audience.Plan(ctx, b.pool, o)
	require.EqualError(t, err, "audience upload: query: refused: it writes: cannot execute nextval() in a read-only transaction (SQLSTATE 25006): "+
		"adsync runs only queries that read, in a read-only transaction; nothing was written")
	var ie *hashing.InputError
	require.ErrorAs(t, err, &ie)
}

func TestAQueryWithTheSameUsersIsSkippedAndAChangedOneIsSentAsADelta(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	crmURL, crm := crmDatabase(t, sampleCRM)
	o := b.options("")
	o.Mode = audience.ModeReplace
	o.SourceURL = crmURL
	o.Query = "SELECT email, phone_number, handle, partner_user_id FROM crm.customers ORDER BY id"
	b.startWorker()

	first := b.plan(o)
	require.Equal(t, audience.Planned, first.Outcome)
	require.EqualValues(t, 3000, first.Summary.Adds)
	require.Equal(t, "row 101", first.Report.Where(first.Report.InvalidRows[0].Line), "rows are numbered in the result")
	require.Contains(t, first.Upload.FilePath, "query on socket ")
	require.Contains(t, first.Upload.FilePath, ": "+o.Query)
	b.waitFinished(first.Upload.ID)
	sent := len(b.spy.requests())

	// The same users in another order are the same input.
	o.Query = "SELECT partner_user_id, handle, phone_number, email FROM crm.customers ORDER BY id DESC"
	again := b.plan(o)
	require.Equal(t, audience.Skipped, again.Outcome)
	require.Equal(t, first.Upload.ID, again.Upload.ID)
	require.Len(t, b.spy.requests(), sent, "nothing sent")

	// Ten customers leave, five join: only they are sent.
	_, err := crm.Exec(ctx, `DELETE FROM crm.customers WHERE id BETWEEN 11 AND 20;
		INSERT INTO crm.customers (id, email, partner_user_id) SELECT 10000 + i, 'new' || i || '@example.com', 'crm-new-' || i FROM generate_series(1, 5) i`)
	require.NoError(t, err)
	delta := b.plan(o)
	require.Equal(t, audience.Planned, delta.Outcome)
	require.EqualValues(t, 5, delta.Summary.Adds)
	require.EqualValues(t, 2990, delta.Summary.Unchanged)
	require.Positive(t, delta.Summary.Deletes)
	require.NotEqual(t, first.Upload.Checksum, delta.Upload.Checksum)
	p := b.waitFinished(delta.Upload.ID)
	require.EqualValues(t, 5+delta.Summary.Deletes, p.Users, "a delta: the changed users only")

	now := filepath.Join(t.TempDir(), "now.csv")
	var out strings.Builder
	out.WriteString("email,phone_number,handle,partner_user_id\n")
	rows, err := crm.Query(ctx, `SELECT coalesce(email, ''), coalesce(phone_number, ''), coalesce(handle, ''), coalesce(partner_user_id, '') FROM crm.customers`)
	require.NoError(t, err)
	var e, ph, h, id string
	_, err = pgx.ForEachRow(rows, []any{&e, &ph, &h, &id}, func() error {
		w := csv.NewWriter(&out)
		return errors.Join(w.Write([]string{e, ph, h, id}), func() error { w.Flush(); return w.Error() }())
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(now, []byte(out.String()), 0o600))
	require.Equal(t, expectedSet(t, now), b.membership(), "the audience holds the query's users now")
}

func TestASourceURLsPasswordIsInNoErrorAndNoRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	crmURL, _ := crmDatabase(t, sampleCRM)
	const secret = "s3cr3t-pa55"
	o := b.options("")
	o.Query = "SELECT email FROM crm.customers"
	o.MaxInvalid = bound.None()

	o.SourceURL = "postgres://crm:" + secret + "@127.0.0.1:1/crm?connect_timeout=2"
	_, err := audience.Plan(ctx, b.pool, o)
	require.Error(t, err)
	require.NotContains(t, err.Error(), secret)
	err = audience.CheckSource(ctx, b.pool, o)
	require.Error(t, err)
	require.NotContains(t, err.Error(), secret)
	o.SourceURL = "host=127.0.0.1 port=1 password=" + secret + " dbname=crm connect_timeout=x"
	err = audience.CheckSource(ctx, b.pool, o)
	require.Error(t, err)
	require.NotContains(t, err.Error(), secret)

	// The local server trusts its socket: the password is sent nowhere but
	// must still be recorded nowhere.
	u, err := neturl.Parse(crmURL)
	require.NoError(t, err)
	u.User = neturl.UserPassword(u.User.Username(), secret)
	o.SourceURL = u.String()
	res := b.plan(o)
	require.Equal(t, audience.Planned, res.Outcome)
	var recorded string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT u.file_path || ' ' || r::text FROM audience_uploads u JOIN sync_runs r ON r.id = u.run_id`).Scan(&recorded))
	require.Contains(t, recorded, "SELECT email FROM crm.customers")
	require.NotContains(t, recorded, secret)
}

func TestAQueryIsReadAcrossFetchesInOrderNamingItsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := localpg.NewDatabase(t)
	pool := synctest.Pool(t, url)
	// 25,000 rows, three FETCHes; invalid emails on both sides of the
	// batches' boundaries.
	_, err := pool.Exec(ctx, `CREATE TABLE people AS SELECT i, CASE WHEN i IN (10000, 10001, 20001) THEN 'bad' || i ELSE 'u' || i || '@example.com' END AS email,
		CASE WHEN i % 2 = 0 THEN i END AS external_id FROM generate_series(1, 25000) i`)
	require.NoError(t, err)
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	o := audience.PlanOptions{Query: "SELECT email, external_id FROM people ORDER BY i", SourceURL: url}
	rows, closeRows, err := audience.OpenSource(ctx, nil, o)
	require.NoError(t, err)
	report := &hashing.Report{}
	var lines []int
	var last string
	require.NoError(t, hashing.HashRecordsParallel(rows, n, 2, func(u hashing.HashedUser) error {
		lines = append(lines, u.Line)
		last = string(u.AppendJSON(nil))
		return nil
	}, report))
	require.NoError(t, closeRows())
	require.Equal(t, 25000, report.RowsRead)
	require.Equal(t, 24997, report.RowsEmitted)
	var where []string
	for _, e := range report.InvalidRows {
		where = append(where, report.Where(e.Line))
	}
	require.Equal(t, []string{"row 10000", "row 10001", "row 20001"}, where)
	require.True(t, slices.IsSorted(lines), "rows in the result's order")
	require.Equal(t, 25000, lines[len(lines)-1])
	require.Equal(t, `{"email":["`+hashEmail(t, n, "u25000@example.com")+`"],"partner_user_id":["25000"]}`, last, "an integer column's text")

	// Closing before the end stops the fetching and releases the query.
	rows, closeRows, err = audience.OpenSource(ctx, nil, o)
	require.NoError(t, err)
	for range 5 {
		_, err := rows.Next()
		require.NoError(t, err)
	}
	require.NoError(t, closeRows())
}

func hashEmail(t *testing.T, n *hashing.Normalizer, email string) string {
	t.Helper()
	h, _, err := n.Hash(hashing.TypeEmail, email)
	require.NoError(t, err)
	return h
}
