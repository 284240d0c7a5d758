package hashing

import (
	"strings"
)

// Record is one row of an input file: its line number and its raw values by
// identifier type, in column (or array) order. A reader reuses a Record's map
// and slices, so it is valid until the reader's next call.
type Record struct {
	Line   int
	Values map[Type][]string
}

// RecordReader reads records from a file. Next returns io.EOF at the end, a
// *RowError for a row that cannot be used (call Next again for the following
// row), and any other error when reading cannot go on.
type RecordReader interface {
	Next() (Record, error)
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
