package adsynccmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adsync/adsync/export/exporttest"
	"github.com/adsync/adsync/fixtures/handbook"
	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

// audiencesDoc is the handbook's page on audiences, where the examples of
// adsync audience hash are.
const audiencesDoc = "docs/audiences.md"

// readAudiencesDoc returns the text of audiencesDoc.
func readAudiencesDoc(t *testing.T) string {
	t.Helper()
	doc, err := handbook.Read(audiencesDoc)
	require.NoError(t, err)
	return doc
}

// docExample returns the command and the output of the audiences page's
// console example that starts with prompt.
func docExample(t *testing.T, prompt string) ([]string, string) {
	t.Helper()
	block, ok := handbook.Block(readAudiencesDoc(t), "console", "$ "+prompt)
	require.True(t, ok, "%s shows %q in a console block", audiencesDoc, prompt)
	line, out, _ := strings.Cut(strings.TrimPrefix(block, "$ "), "\n")
	return strings.Fields(line), out
}

func TestTheDocsAudienceHashExampleRunsAsShown(t *testing.T) {
	t.Parallel()
	args, want := docExample(t, "adsync audience hash ")
	require.Equal(t, "adsync", args[0])
	out := filepath.Join(t.TempDir(), "users.ndjson")
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "fixtures/"):
			args[i] = filepath.Join("..", a) // the example runs from the project's root
		case a == "users.ndjson":
			args[i] = out
		}
	}
	r := run(t, args[1:]...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, want, r.stdout, "the docs show exactly what the command prints")
	users, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, 3000, strings.Count(string(users), "\n"), "the sample's 3,000 valid users")
}

// sampleCRM is the sample CRM file from this package's directory.
const sampleCRM = "../fixtures/sample/crm.csv"

func TestTheDocsAudienceHashOfTheSampleAsParquetRunsAsShown(t *testing.T) {
	t.Parallel()
	// The page's make duckdb line, run from the project's root, in a
	// folder of the test's.
	m := regexp.MustCompile(`make duckdb SQL="(COPY .*crm\.parquet.*)"`).FindStringSubmatch(readAudiencesDoc(t))
	require.NotNil(t, m, "%s shows how DuckDB writes crm.parquet", audiencesDoc)
	dir := t.TempDir()
	sample, err := filepath.Abs(sampleCRM)
	require.NoError(t, err)
	sql := strings.NewReplacer("'fixtures/sample/crm.csv'", "'"+sample+"'", "'crm.parquet'", "'"+filepath.Join(dir, "crm.parquet")+"'").Replace(m[1])
	exporttest.Duck(t, nil, map[string]string{"copy": sql})

	args, want := docExample(t, "adsync audience hash --in crm.parquet")
	out := filepath.Join(dir, "users.ndjson")
	for i, a := range args {
		switch a {
		case "crm.parquet":
			args[i] = filepath.Join(dir, a)
		case "users.ndjson":
			args[i] = out
		}
	}
	r := run(t, args[1:]...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, want, r.stdout, "the docs show exactly what the command prints")
	require.Contains(t, want, "invalid: row 101: ")
}

func TestTheDocsAudienceHashOfTheSampleAsAQueryRunsAsShown(t *testing.T) {
	t.Parallel()
	// The page loads the sample with psql's \copy (CSV: an empty field
	// is a null) into the table it creates.
	db := localpg.NewDatabase(t)
	pool := (&serviceBundle{db: db}).pool(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `CREATE SCHEMA crm; CREATE TABLE crm.customers (email text, phone text, handle text, partner_user_id text, opted_in boolean NOT NULL DEFAULT true)`)
	require.NoError(t, err)
	f, err := os.Open(sampleCRM)
	require.NoError(t, err)
	defer f.Close()
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	_, err = conn.Conn().PgConn().CopyFrom(ctx, f, "COPY crm.customers (email, phone, handle, partner_user_id) FROM STDIN (FORMAT csv, HEADER true)")
	conn.Release()
	require.NoError(t, err)

	doc := readAudiencesDoc(t)
	require.Contains(t, doc, `-c "\copy crm.customers (email, phone, handle, partner_user_id) FROM 'fixtures/sample/crm.csv' CSV HEADER"`)
	require.Contains(t, doc, `-c 'CREATE TABLE crm.customers (email text, phone text, handle text, partner_user_id text, opted_in boolean NOT NULL DEFAULT true)'`)
	_, want := docExample(t, `adsync audience hash --query "`)
	line := regexp.MustCompile(`\$ adsync audience hash --query "([^"]+)" --out users.ndjson\n`).FindStringSubmatch(doc)
	require.NotNil(t, line)
	out := filepath.Join(t.TempDir(), "users.ndjson")
	r := run(t, "audience", "hash", "--query", line[1], "--out", out, "--database-url", db)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, want, r.stdout, "the docs show exactly what the command prints")
	csv := run(t, "audience", "hash", "--in", sampleCRM)
	users, err := os.ReadFile(out)
	require.NoError(t, err)
	// A table's rows come in the order they lie in it, which need not be
	// the file's: the same users, not the same order.
	require.ElementsMatch(t, strings.Split(csv.stdout, "\n"), strings.Split(string(users), "\n"), "the same users as the CSV file")
}
