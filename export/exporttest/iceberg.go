package exporttest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// IcebergColumn is one exported column as the Iceberg reader compares it.
type IcebergColumn struct {
	// Name is the column's name in the table.
	Name string
	// SQL is its select expression in Postgres (empty: Name).
	SQL string
	// Kind is the name of its export.Kind (export.Kind.String).
	Kind string
}

// IcebergTable is one exported table as the Iceberg reader compares it:
// the fields of export.Table that say what to read and where Postgres
// holds it.
type IcebergTable struct {
	Name string
	// From is the table's SQL source in Postgres.
	From string
	// Run is the export's own column every row carries (export.RunColumn).
	Run     string
	Columns []IcebergColumn
}

// S3Read is how icebird_read.mjs reaches an S3 server.
type S3Read struct {
	Endpoint string `json:"endpoint"`
	Region   string `json:"region"`
	Key      string `json:"key"`
	Secret   string `json:"secret"`
}

// icebirdTable is one table of icebird_read.mjs's request.
type icebirdTable struct {
	Name     string      `json:"name"`
	URL      string      `json:"url"`
	Metadata string      `json:"metadata,omitempty"`
	Columns  [][2]string `json:"columns"`
}

// readKind is how icebird_read.mjs canonicalizes a column of kind k.
func readKind(k string) string {
	switch k {
	case "timestamp", "date", "micros":
		return k
	case "string_list", "int64_list":
		return "list"
	}
	return "value"
}

// canonicalSQL is a column's value as icebird_read.mjs prints it, in SQL.
func canonicalSQL(c IcebergColumn) string {
	e := c.SQL
	if e == "" {
		e = c.Name
	}
	e = "(" + e + ")"
	switch c.Kind {
	case "timestamp":
		return "floor(extract(epoch FROM " + e + ") * 1000)::bigint::text"
	case "float64":
		return e + "::float8::text"
	case "string_list", "int64_list":
		return "array_to_string(" + e + ", E'\\x1f')"
	case "bool":
		return "CASE WHEN " + e + " THEN 'true' WHEN NOT " + e + " THEN 'false' END"
	}
	return e + "::text"
}

// ReadIceberg reads tables of the catalog in pool (their current metadata
// files, or the metadata files given by table name) with icebird, all in
// one Node process, through s3 when not nil. Each row starts with the run
// column.
func ReadIceberg(t testing.TB, pool *pgxpool.Pool, tables []IcebergTable, metadata map[string]string, s3 *S3Read) map[string][][]*string {
	t.Helper()
	var req []icebirdTable
	for _, tb := range tables {
		loc := metadata[tb.Name]
		if loc == "" {
			loc = CurrentMetadata(t, pool, tb.Name)
		}
		it := icebirdTable{Name: tb.Name, URL: loc[:strings.LastIndex(loc, "/metadata/")], Metadata: path.Base(loc)}
		it.Columns = append(it.Columns, [2]string{tb.Run, "value"})
		for _, c := range tb.Columns {
			it.Columns = append(it.Columns, [2]string{c.Name, readKind(c.Kind)})
		}
		req = append(req, it)
	}
	arg, err := json.Marshal(map[string]any{"tables": req, "s3": s3})
	require.NoError(t, err)
	dir := testdata()
	_, err = os.Stat(filepath.Join(dir, "node_modules", "icebird"))
	require.NoError(t, err, "icebird is missing: run make test-deps (bash .ci/test-deps)")
	cmd := exec.Command("node", filepath.Join(dir, "icebird_read.mjs"))
	cmd.Stdin = strings.NewReader(string(arg))
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "icebird: %s (request %s)", stderr.String(), arg[:min(len(arg), 400)])
	var res map[string][][]*string
	require.NoError(t, json.Unmarshal(out, &res))
	return res
}

// CurrentMetadata is the catalog's metadata file of a table.
func CurrentMetadata(t testing.TB, pool *pgxpool.Pool, name string) string {
	t.Helper()
	var loc string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT metadata_location FROM iceberg_tables
		WHERE catalog_name = 'adsync' AND table_namespace = 'adsync' AND table_name = $1`, name).Scan(&loc))
	return loc
}

// PostgresRows is every row of tb in Postgres as icebird_read.mjs prints
// it, the run column left out.
func PostgresRows(t testing.TB, pool *pgxpool.Pool, tb IcebergTable) [][]*string {
	t.Helper()
	cols := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		cols[i] = canonicalSQL(c)
	}
	rows, err := pool.Query(context.Background(), fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), tb.From))
	require.NoError(t, err)
	defer rows.Close()
	var out [][]*string
	for rows.Next() {
		vals := make([]*string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		out = append(out, vals)
	}
	require.NoError(t, rows.Err())
	return out
}

// RequireIcebergEqualsPostgres checks that icebird reads every row of
// every table as Postgres holds it, each once, and returns what it read.
// sync_runs is compared without the runs from run on (the export run
// records itself while it runs).
func RequireIcebergEqualsPostgres(t testing.TB, pool *pgxpool.Pool, tables []IcebergTable, s3 *S3Read, run int64) map[string][][]*string {
	t.Helper()
	got := ReadIceberg(t, pool, tables, nil, s3)
	for _, tb := range tables {
		want := PostgresRows(t, pool, tb)
		rows := WithoutRun(got[tb.Name])
		if tb.Name == "sync_runs" {
			want, rows = RunsBefore(want, run), RunsBefore(rows, run)
		}
		require.Equal(t, SortedRows(want), SortedRows(rows), "table %s", tb.Name)
	}
	return got
}

// WithoutRun is rows as ReadIceberg read them without their first value,
// the run column (the export's own).
func WithoutRun(rows [][]*string) [][]*string {
	var out [][]*string
	for _, r := range rows {
		out = append(out, r[1:])
	}
	return out
}

// RunsBefore keeps the sync_runs rows of runs before run.
func RunsBefore(rows [][]*string, run int64) [][]*string {
	var out [][]*string
	for _, r := range rows {
		if id, _ := strconv.ParseInt(*r[0], 10, 64); id < run {
			out = append(out, r)
		}
	}
	return out
}

// SortedRows is rows as sorted JSON lines, to compare sets of rows.
func SortedRows(rows [][]*string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		b, _ := json.Marshal(r)
		out[i] = string(b)
	}
	sort.Strings(out)
	return out
}
