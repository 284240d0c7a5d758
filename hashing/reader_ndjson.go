package hashing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"
)

// NDJSONReader reads records from newline-delimited JSON: one user object
// per line, keyed like the service's user object, each value a string or an
// array of strings. Lines are bounded by MaxLineBytes.
type NDJSONReader struct {
	lines   *LineReader
	res     resolver
	ignore  bool
	rec     Record
	fields  map[string]json.RawMessage
	scratch []string
}

// NewNDJSONReader returns a reader of the objects in r.
func NewNDJSONReader(r io.Reader, opts ReaderOptions) *NDJSONReader {
	return &NDJSONReader{
		lines:  NewLineReader(r, opts.MaxLineBytes),
		res:    newResolver(opts),
		ignore: opts.IgnoreUnknown,
		rec:    Record{Values: map[Type][]string{}},
		fields: map[string]json.RawMessage{},
	}
}

// Next returns the next object; see RecordReader.
func (d *NDJSONReader) Next() (Record, error) {
	for {
		b, num, tooLong, err := d.lines.Next()
		if err != nil {
			return Record{}, err
		}
		if tooLong {
			return Record{}, &RowError{Line: num, Reason: fmt.Sprintf("line longer than %d bytes", d.lines.max)}
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		if reason := d.parse(b); reason != "" {
			return Record{}, &RowError{Line: num, Reason: reason}
		}
		d.rec.Line = num
		return d.rec, nil
	}
}

// parse fills d.rec from one line, or says why it cannot.
func (d *NDJSONReader) parse(b []byte) string {
	// encoding/json would silently replace invalid UTF-8; the row is
	// rejected instead, as in CSV.
	if !utf8.Valid(b) {
		return fmt.Sprintf("invalid UTF-8 at byte %d", invalidUTF8At(b)+1)
	}
	if b[0] != '{' {
		return "not a JSON object"
	}
	clear(d.fields)
	if err := json.Unmarshal(b, &d.fields); err != nil {
		return fmt.Sprintf("malformed JSON: %v", err)
	}
	resetValues(d.rec.Values)
	keys := d.scratch[:0]
	for k := range d.fields {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic: the first unknown key named is always the same
	d.scratch = keys
	for _, k := range keys {
		t, ok := d.res.resolve(k)
		if !ok || t.index() < 0 {
			if d.ignore {
				continue
			}
			return fmt.Sprintf("unknown key %q", k)
		}
		raw := bytes.TrimSpace(d.fields[k])
		switch {
		case bytes.Equal(raw, []byte("null")):
		case len(raw) > 0 && raw[0] == '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Sprintf("key %q: %v", k, err)
			}
			d.rec.Values[t] = append(d.rec.Values[t], s)
		case len(raw) > 0 && raw[0] == '[':
			var list []string
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Sprintf("key %q: want a string or an array of strings", k)
			}
			d.rec.Values[t] = append(d.rec.Values[t], list...)
		default:
			return fmt.Sprintf("key %q: want a string or an array of strings", k)
		}
	}
	return ""
}
