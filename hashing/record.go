package hashing

import (
	"fmt"
	"strings"
)

// Record is one row of an input: its number (the line of a text file, the
// row of a table or a query's result) and its raw values by identifier
// type, in column (or array) order. A reader reuses a Record's map and
// slices, so it is valid until the reader's next call.
type Record struct {
	Line   int
	Values map[Type][]string
}

// RecordReader reads records: rows of identifier columns, whatever the
// input (a CSV or NDJSON file, Parquet files, a query's result). It is the
// one interface every input is planned through. Next returns io.EOF at the
// end, a *RowError for a row that cannot be used (call Next again for the
// following row), and any other error when reading cannot go on.
type RecordReader interface {
	Next() (Record, error)
}

// RowNumbered is a RecordReader whose records are rows (of Parquet files,
// of a query's result) rather than lines of a text file: reports name its
// records with its RowNames.
type RowNumbered interface {
	RowNames() *RowNames
}

// RowNames names the rows of an input for people: "row 12", or, for rows
// numbered across several files, "row 12 (part-1.parquet row 2)". The zero
// value names rows of one result.
type RowNames struct {
	files  []string
	starts []int // rows before each file's first row
}

// NewRowNames names the rows of files holding rows[i] rows each, numbered
// from 1 across them in order.
func NewRowNames(files []string, rows []int64) *RowNames {
	n := &RowNames{files: files}
	total := 0
	for _, r := range rows {
		n.starts = append(n.starts, total)
		total += int(r)
	}
	return n
}

// Name names row n.
func (r *RowNames) Name(n int) string {
	if len(r.files) <= 1 {
		return fmt.Sprintf("row %d", n)
	}
	i := len(r.starts) - 1
	for i > 0 && r.starts[i] >= n {
		i--
	}
	return fmt.Sprintf("row %d (%s row %d)", n, r.files[i], n-r.starts[i])
}

// rowNamesOf returns r's RowNames, nil for a reader of lines.
func rowNamesOf(r RecordReader) *RowNames {
	if rn, ok := r.(RowNumbered); ok {
		return rn.RowNames()
	}
	return nil
}

// ReaderOptions tune the CSV and NDJSON readers.
type ReaderOptions struct {
	// Aliases maps more column (or key) names to identifier types; they
	// override DefaultAliases. Names match case-insensitively.
	Aliases map[string]Type
	// IgnoreUnknown drops columns or keys naming no identifier type instead
	// of failing on them.
	IgnoreUnknown bool
	// MaxLineBytes is the longest line accepted; longer lines are row errors
	// and are never held in memory. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// Delimiter separates CSV fields; zero means ','. It cannot be a quote,
	// a line break or an invalid rune (see ParseDelimiter).
	Delimiter rune
}

// DefaultAliases are the column names understood without configuration, with
// the names CRM exports commonly use.
func DefaultAliases() map[string]Type {
	return map[string]Type{
		"email": TypeEmail, "emails": TypeEmail, "e-mail": TypeEmail, "email_address": TypeEmail,
		"phone": TypePhoneNumber, "phone_number": TypePhoneNumber, "mobile": TypePhoneNumber,
		"handle": TypeHandle, "username": TypeHandle, "screen_name": TypeHandle,
		"device_id": TypeDeviceID, "idfa": TypeDeviceID, "adid": TypeDeviceID, "maid": TypeDeviceID,
		"service_id": TypeServiceID, "user_id": TypeServiceID,
		"partner_user_id": TypePartnerUserID, "external_id": TypePartnerUserID,
	}
}

// resolver maps column names to identifier types.
type resolver map[string]Type

func newResolver(opts ReaderOptions) resolver {
	r := resolver(DefaultAliases())
	for name, t := range opts.Aliases {
		r[strings.ToLower(strings.TrimSpace(name))] = t
	}
	return r
}

// resolve returns the type a column name stands for. A numeric suffix
// ("email2", "email_2", "email 2") names another column of the same type, so
// a row may carry several emails or phones.
func (r resolver) resolve(name string) (Type, bool) {
	key := strings.ToLower(strings.TrimSpace(name))
	if t, ok := r[key]; ok {
		return t, true
	}
	base := strings.TrimRight(key, "0123456789")
	if base == key || base == "" {
		return "", false
	}
	base = strings.TrimRight(base, "_- ")
	t, ok := r[base]
	return t, ok
}

// resetValues empties v's slices, keeping their storage for the next row.
func resetValues(v map[Type][]string) {
	for k, s := range v {
		v[k] = s[:0]
	}
}

// ColumnTypes maps the column names of a table-like input (a Parquet
// schema, a query's result) to identifier types the way the CSV reader maps
// its header: aliases, any case, a numeric suffix for more columns of one
// type. An ignored column (opts.IgnoreUnknown) maps to "". It fails, with an
// *InputError naming the column, on a column naming no identifier type
// (unless opts.IgnoreUnknown) and when no column names one.
func ColumnTypes(names []string, opts ReaderOptions) ([]Type, error) {
	res := newResolver(opts)
	out := make([]Type, len(names))
	var unknown []string
	for i, name := range names {
		t, ok := res.resolve(name)
		if !ok || t.index() < 0 {
			unknown = append(unknown, name)
			continue
		}
		out[i] = t
	}
	switch {
	case len(names) == 0:
		return nil, InputErrorf("no column (want one of %s, or an alias)", typeList())
	case len(unknown) == len(names):
		return nil, InputErrorf("no identifier column: %s %s no identifier type (want one of %s, or an alias)",
			quoteNames(names), map[bool]string{true: "names", false: "name"}[len(names) == 1], typeList())
	case len(unknown) > 0 && !opts.IgnoreUnknown:
		return nil, InputErrorf("column %q names no identifier type (want one of %s): map it with an alias or ignore unknown columns", unknown[0], typeList())
	}
	return out, nil
}

// quoteNames lists names for a message.
func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
