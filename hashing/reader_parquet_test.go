package hashing_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

// crmRow is a Parquet row as a CRM export might write it: strings with
// nulls, an integer phone, an unsigned id, a UUID device id.
type crmRow struct {
	Email     *string  `parquet:"email,optional"`
	Phone     *int64   `parquet:"phone_number,optional"`
	ServiceID uint32   `parquet:"user_id"`
	Device    [16]byte `parquet:"device_id,uuid"`
	External  string   `parquet:"external_id"`
}

func ptr[T any](v T) *T { return &v }

func writeParquet[T any](t *testing.T, path string, rows []T, opts ...parquet.WriterOption) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, parquet.WriteFile(path, rows, opts...))
	return path
}

func TestParquetReaderReadsStringsIntegersAndUUIDsWithNullsAsEmptyAcrossRowGroups(t *testing.T) {
	t.Parallel()
	dev := [16]byte{0x6d, 0x92, 0x07, 0x8a, 0x82, 0x46, 0x4b, 0xa4, 0xae, 0x5b, 0, 0, 0, 0, 0, 1}
	path := writeParquet(t, filepath.Join(t.TempDir(), "users.parquet"), []crmRow{
		{Email: ptr("A@Example.com"), Phone: ptr(int64(14155550100)), ServiceID: 4000000000, Device: dev, External: "crm-1"},
		{Email: nil, Phone: nil, ServiceID: 7, Device: dev, External: ""},
		{Email: ptr("c@example.com"), Phone: ptr(int64(-1)), ServiceID: 0, Device: dev, External: "crm-3"},
	}, parquet.MaxRowsPerRowGroup(2))
	r, err := hashing.NewParquetReader([]string{path}, hashing.ReaderOptions{})
	require.NoError(t, err)
	defer r.Close()
	uuid := "6d92078a-8246-4ba4-ae5b-000000000001"
	require.Equal(t, []row{
		{Line: 1, Values: map[hashing.Type][]string{"email": {"A@Example.com"}, "phone_number": {"14155550100"}, "service_id": {"4000000000"}, "device_id": {uuid}, "partner_user_id": {"crm-1"}}},
		{Line: 2, Values: map[hashing.Type][]string{"service_id": {"7"}, "device_id": {uuid}}},
		{Line: 3, Values: map[hashing.Type][]string{"email": {"c@example.com"}, "phone_number": {"-1"}, "service_id": {"0"}, "device_id": {uuid}, "partner_user_id": {"crm-3"}}},
	}, readAll(t, r))
	require.Equal(t, "row 3", r.RowNames().Name(3))
}

func TestParquetReaderRejectsARowWithInvalidUTF8NamingItsColumnAndGoesOn(t *testing.T) {
	t.Parallel()
	type bytesRow struct {
		Email []byte `parquet:"email"`
	}
	path := writeParquet(t, filepath.Join(t.TempDir(), "users.parquet"), []bytesRow{{[]byte("a@b.co")}, {[]byte("\xff@b.co")}, {[]byte("c@b.co")}})
	r, err := hashing.NewParquetReader([]string{path}, hashing.ReaderOptions{})
	require.NoError(t, err)
	rows := readAll(t, r)
	require.Len(t, rows, 3)
	require.Equal(t, row{Line: 2, Err: `column "email": invalid UTF-8 at byte 1`}, rows[1])
	require.Equal(t, []string{"c@b.co"}, rows[2].Values["email"])
}

func TestParquetReaderRefusesFilesItCannotReadUsersFromNamingFileAndColumn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type noIdentifier struct {
		Name string `parquet:"name"`
		Age  int32  `parquet:"age"`
	}
	type unknownColumn struct {
		Email string `parquet:"email"`
		Mail  string `parquet:"mail"`
	}
	type floatPhone struct {
		Phone float64 `parquet:"phone_number"`
	}
	type listEmails struct {
		Email []string `parquet:"email,list"`
	}
	type datePhone struct {
		Phone int32 `parquet:"phone,date"`
	}
	for _, tt := range []struct {
		path string
		want string
	}{
		{writeParquet(t, filepath.Join(dir, "people.parquet"), []noIdentifier{{"x", 1}}), `people.parquet: no identifier column: "name", "age" name no identifier type`},
		{writeParquet(t, filepath.Join(dir, "mail.parquet"), []unknownColumn{{"a@b.co", "x"}}), `mail.parquet: column "mail" names no identifier type`},
		{writeParquet(t, filepath.Join(dir, "float.parquet"), []floatPhone{{1}}), `float.parquet: column "phone_number" is DOUBLE: want a string or integer column`},
		{writeParquet(t, filepath.Join(dir, "list.parquet"), []listEmails{{[]string{"a@b.co"}}}), `list.parquet: column "email" is a list or a nested column`},
		{writeParquet(t, filepath.Join(dir, "date.parquet"), []datePhone{{1}}), `date.parquet: column "phone" is`},
	} {
		_, err := hashing.NewParquetReader([]string{tt.path}, hashing.ReaderOptions{})
		require.ErrorContains(t, err, tt.want)
		var ie *hashing.InputError
		require.True(t, errors.As(err, &ie), "%s: an input error, not a failure to read: %v", tt.path, err)
	}
	// Ignoring unknown columns reads the identifier ones, and still needs one.
	r, err := hashing.NewParquetReader([]string{filepath.Join(dir, "mail.parquet")}, hashing.ReaderOptions{IgnoreUnknown: true})
	require.NoError(t, err)
	require.Equal(t, []row{{Line: 1, Values: map[hashing.Type][]string{"email": {"a@b.co"}}}}, readAll(t, r))
	_, err = hashing.NewParquetReader([]string{filepath.Join(dir, "people.parquet")}, hashing.ReaderOptions{IgnoreUnknown: true})
	require.ErrorContains(t, err, "no identifier column")
	// An alias maps a column, as in a CSV header.
	r, err = hashing.NewParquetReader([]string{filepath.Join(dir, "mail.parquet")}, hashing.ReaderOptions{Aliases: map[string]hashing.Type{"mail": hashing.TypeHandle}})
	require.NoError(t, err)
	require.Equal(t, []row{{Line: 1, Values: map[hashing.Type][]string{"email": {"a@b.co"}, "handle": {"x"}}}}, readAll(t, r))
}

func TestParquetFilesOfAFolderOrGlobAreReadInOrderWithRowsNumberedAcrossThem(t *testing.T) {
	t.Parallel()
	type emailRow struct {
		Email string `parquet:"email"`
	}
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "dt=2/part-0.parquet"), []emailRow{{"c@b.co"}})
	writeParquet(t, filepath.Join(dir, "dt=1/part-0.parquet"), []emailRow{{"a@b.co"}, {"b@b.co"}})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dt=1/.part-1.parquet.crc"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))

	files, err := hashing.ParquetFiles(dir)
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "dt=1/part-0.parquet"), filepath.Join(dir, "dt=2/part-0.parquet")}, files)
	glob, err := hashing.ParquetFiles(filepath.Join(dir, "dt=*", "*.parquet"))
	require.NoError(t, err)
	require.Equal(t, files, glob)

	r, err := hashing.NewParquetReader(files, hashing.ReaderOptions{})
	require.NoError(t, err)
	rows := readAll(t, r)
	require.Equal(t, []string{"a@b.co", "b@b.co", "c@b.co"}, []string{rows[0].Values["email"][0], rows[1].Values["email"][0], rows[2].Values["email"][0]})
	require.Equal(t, 3, rows[2].Line)
	require.Equal(t, "row 3 ("+files[1]+" row 1)", r.RowNames().Name(3))
	require.Equal(t, "row 2 ("+files[0]+" row 2)", r.RowNames().Name(2))

	for _, tt := range []struct{ path, want string }{
		{filepath.Join(dir, "*.txt"), "which is not a Parquet file"},
		{filepath.Join(dir, "*.csv"), "matches no file"},
		{t.TempDir(), "holds no .parquet file"},
		{filepath.Join(dir, "missing.parquet"), "no such file"},
	} {
		_, err := hashing.ParquetFiles(tt.path)
		require.ErrorContains(t, err, tt.want)
		var ie *hashing.InputError
		require.True(t, errors.As(err, &ie), "%s: %v", tt.path, err)
	}
	csv := filepath.Join(dir, "users.csv")
	require.NoError(t, os.WriteFile(csv, []byte("email\na@b.co\n"), 0o644))
	none, err := hashing.ParquetFiles(csv)
	require.NoError(t, err)
	require.Nil(t, none, "a CSV file is no Parquet file")
	sniffed := filepath.Join(dir, "export.bin")
	require.NoError(t, os.Rename(files[0], sniffed))
	got, err := hashing.ParquetFiles(sniffed)
	require.NoError(t, err)
	require.Equal(t, []string{sniffed}, got, "recognized by its magic bytes")
}

func TestHashRecordsNamesParquetRowsAsRows(t *testing.T) {
	t.Parallel()
	type emailRow struct {
		Email string `parquet:"email"`
	}
	path := writeParquet(t, filepath.Join(t.TempDir(), "users.parquet"), []emailRow{{"a@b.co"}, {"nope"}})
	r, format, closeFn, err := hashing.OpenPath(path, hashing.ReaderOptions{})
	require.NoError(t, err)
	defer closeFn()
	require.Equal(t, hashing.FormatParquet, format)
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(t, err)
	report := &hashing.Report{}
	require.NoError(t, hashing.HashRecordsParallel(r, n, 2, func(hashing.HashedUser) error { return nil }, report))
	require.Equal(t, 1, report.RowsEmitted)
	require.Equal(t, "row 2", report.Where(report.InvalidRows[0].Line))
	var text strings.Builder
	require.NoError(t, report.WriteText(&text))
	require.Contains(t, text.String(), "invalid: row 2: invalid email")
}

func TestColumnTypesMapsColumnsLikeACSVHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		names  []string
		opts   hashing.ReaderOptions
		want   []hashing.Type
		errMsg string
	}{
		{names: []string{"email", "Phone", "external_id", "email_2"}, want: []hashing.Type{"email", "phone_number", "partner_user_id", "email"}},
		{names: []string{"mail"}, errMsg: `no identifier column: "mail" names no identifier type`},
		{names: []string{"email", "mail"}, errMsg: `column "mail" names no identifier type`},
		{names: []string{"email", "mail"}, opts: hashing.ReaderOptions{IgnoreUnknown: true}, want: []hashing.Type{"email", ""}},
		{names: []string{"mail"}, opts: hashing.ReaderOptions{Aliases: map[string]hashing.Type{"Mail": "email"}}, want: []hashing.Type{"email"}},
		{names: nil, errMsg: "no column"},
	} {
		got, err := hashing.ColumnTypes(tt.names, tt.opts)
		if tt.errMsg != "" {
			require.ErrorContains(t, err, tt.errMsg, "%v", tt.names)
			var ie *hashing.InputError
			require.True(t, errors.As(err, &ie))
			continue
		}
		require.NoError(t, err, "%v", tt.names)
		require.Equal(t, tt.want, got, "%v", tt.names)
	}
}

func TestParquetReadingErrorsNameTheFileOnlyWhenTheReaderHasSeveral(t *testing.T) {
	t.Parallel()
	type emailRow struct {
		Email string `parquet:"email"`
	}
	dir := t.TempDir()
	one := writeParquet(t, filepath.Join(dir, "one.parquet"), []emailRow{{"a@b.co"}})
	r, err := hashing.NewParquetReader([]string{one}, hashing.ReaderOptions{})
	require.NoError(t, err)
	writeParquet(t, one, []emailRow{{"a@b.co"}, {"b@b.co"}})
	_, err = r.Next()
	require.EqualError(t, err, "changed while it was read; run again", "the caller names the one file, as the source")

	a := writeParquet(t, filepath.Join(dir, "part", "a.parquet"), []emailRow{{"a@b.co"}})
	b := writeParquet(t, filepath.Join(dir, "part", "b.parquet"), []emailRow{{"b@b.co"}})
	r, err = hashing.NewParquetReader([]string{a, b}, hashing.ReaderOptions{})
	require.NoError(t, err)
	writeParquet(t, b, []emailRow{{"b@b.co"}, {"c@b.co"}})
	_, err = r.Next()
	require.NoError(t, err)
	_, err = r.Next()
	require.EqualError(t, err, b+": changed while it was read; run again", "which file of the folder")
}
