package ads

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/adsync/adsync/sync/store"
	"github.com/stretchr/testify/require"
)

// oldCanonical is the canonical form as stage computed it before the
// one-pass canonicalizer: decoded into a map with UseNumber, re-marshalled
// (Go marshals map keys sorted). Stored doc_hash values were computed so.
func oldCanonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errNotObject
	}
	return json.Marshal(m)
}

// canonicalCases are records whose canonical form must equal the old one.
var canonicalCases = []string{
	`{}`,
	`{"id":"c1"}`,
	`{"b":1,"a":2}`,
	`{"id":"c1","n":[3,2,{"z":null,"y":[true,false]}],"o":{"k":{},"j":[]}}`,
	`{"a":1,"a":2}`,                               // a repeated key: the last wins
	`{"b":{"x":1},"a":0,"b":{"y":2}}`,             // ... also for nested values
	`{"n":1.0,"m":1,"e":-1.5e+10,"E":2E-3,"z":0}`, // numbers as sent
	`{"big":12000000000000000001}`,
	`{"s":"\u00e9t\u00E9 \ud83d\ude00 é 😀"}`, // escaped and raw non-ASCII
	`{"s":"<a href=\"x\">&amp;</a>"}`,        // HTML characters are escaped
	`{"s":"\b\f\n\r\t\u0001\u001f\/\\"}`,
	`{"s":"\u2028\u2029 line separators"}`,
	`{"s":"\ud800 lone \udc00 surrogates \ud800\u0041"}`,
	"{\"s\":\"invalid \xff\xfe utf-8\"}",
	"{\"k\xff\":1,\"k\":2}",
	`{"\u0062":1,"a":2,"\u00e9":3,"z":4,"é2":5}`, // keys sorted by their decoded bytes
	`{"<":1,">":2,"&":3,"a":4}`,
	" \n\t{ \"id\" : \"c1\" , \"x\" : [ 1 , 2 ] , \"y\" : { } }\r\n",
	`{"a":{"b":{"c":{"e":1,"d":2}}},"0":[[[]],[{}]]}`,
}

func TestCanonicalEqualsTheOldMapAndMarshalForm(t *testing.T) {
	t.Parallel()
	var c canonicalizer
	for _, in := range canonicalCases {
		want, err := oldCanonical([]byte(in))
		require.NoError(t, err, in)
		got, err := c.canonical([]byte(in), "id")
		require.NoError(t, err, in)
		require.Equal(t, string(want), string(got), in)
	}
}

func FuzzCanonicalEqualsTheOldMapAndMarshalForm(f *testing.F) {
	for _, in := range canonicalCases {
		f.Add([]byte(in))
	}
	for _, in := range []string{ // not valid JSON, or not objects
		`{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":+1}`, "{\"a\":\"x\x01\"}",
		"{\"a\x1f\":1}", `{"a":tru}`, `{"a":truex}`, `{"a":1,}`, `{"a":[1,]}`, `{"a":1} x`, `1 x`, `1`, `[1]`, `"x"`,
		`{"a":"\x"}`, `{"a":"\u12"}`, `{"a" 1}`, `{a:1}`, `{"a":1`, `{"a":[1}`, `{"a":{}]}`, ``, ` `,
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		`{"a":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`,
		`{"a":` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `}`,
	} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var c canonicalizer
		got, err := c.canonical(in, "id") // malformed input: an error, never a panic
		if !json.Valid(in) {
			// The canonicalizer is the records' validator: it refuses
			// exactly what json.Valid refuses.
			if !errors.Is(err, errSyntax) {
				t.Fatalf("%q is not valid JSON, canonical gave %q, %v", in, got, err)
			}
			return
		}
		if errors.Is(err, errSyntax) {
			t.Fatalf("%q is valid JSON, canonical refused it: %v", in, err)
		}
		want, oldErr := oldCanonical(in)
		if oldErr != nil {
			if err == nil {
				t.Fatalf("%q: old form refused it, canonical gave %s", in, got)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v (old form: %s)", in, err, want)
		}
		if !bytes.Equal(want, got) {
			t.Fatalf("%q:\n got  %s\n want %s", in, got, want)
		}
		checkTop(t, in, got, c.top)
	})
}

// checkTop holds the members canonicalizing in noted to what decoding it
// gives: each key once, in order, each value's span in canon its value.
func checkTop(t *testing.T, in, canon []byte, top []topMember) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(in, &m); err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	if len(top) != len(m) {
		t.Fatalf("%q: %d members noted, %d decoded", in, len(top), len(m))
	}
	for i, tm := range top {
		if i > 0 && bytes.Compare(top[i-1].key, tm.key) >= 0 {
			t.Fatalf("%q: member %q noted after %q", in, tm.key, top[i-1].key)
		}
		want, err := oldCanonical([]byte(`{"v":` + string(m[string(tm.key)]) + `}`))
		if err != nil {
			t.Fatalf("%q: member %q: %v", in, tm.key, err)
		}
		if got := `{"v":` + string(canon[tm.start:tm.end]) + `}`; got != string(want) {
			t.Fatalf("%q: member %q spans %s, decoded %s", in, tm.key, got, want)
		}
	}
}

// The service need not sort keys or format one way: one record sent with
// its keys in other orders (nested objects included; array order is data),
// other whitespace and other escapes of the same strings is one hash.
// Numbers are kept textually as sent (as UseNumber did), so 1.0 and 1 are
// different records: the service sends a field's numbers one way.
func TestDocHashIsCanonicalForAServiceThatDoesNotSortKeys(t *testing.T) {
	t.Parallel()
	e, _ := Lookup("campaigns")
	u := &Unit{AccountID: "a1", Entity: e}
	variants := []string{
		`{"id":"c1","name":"Caf\u00e9 <1>","budget":1000,"tags":["b","a"],"nested":{"y":[{"q":1,"p":2}],"x":null},"updated_at":"2026-01-02T03:04:05Z","deleted":false}`,
		`{"deleted":false,"updated_at":"2026-01-02T03:04:05Z","nested":{"x":null,"y":[{"p":2,"q":1}]},"tags":["b","a"],"budget":1000,"name":"Café <1>","id":"c1"}`,
		"{\n  \"nested\" : { \"y\" : [ { \"p\" : 2 , \"q\" : 1 } ] , \"x\" : null } ,\n\t\"name\": \"Caf\\u00E9 \\u003c1\\u003e\",\r\n" +
			"  \"id\":\"c1\", \"tags\" : [\"b\",\"a\"], \"budget\":1000, \"deleted\" : false, \"updated_at\":\"2026-01-02T03:04:05Z\" }",
	}
	var hashes []string
	for _, v := range variants {
		r, err := stage(u, "", json.RawMessage(v))
		require.NoError(t, err, v)
		require.Equal(t, "c1", r.ID)
		require.NotNil(t, r.UpdatedAt)
		hashes = append(hashes, r.DocHash)
	}
	for _, h := range hashes[1:] {
		require.Equal(t, hashes[0], h)
	}
	for _, other := range []string{
		`{"id":"c1","name":"Café <1>","budget":1000.0,"tags":["b","a"],"nested":{"y":[{"q":1,"p":2}],"x":null},"updated_at":"2026-01-02T03:04:05Z","deleted":false}`,
		`{"id":"c1","name":"Café <1>","budget":1000,"tags":["a","b"],"nested":{"y":[{"q":1,"p":2}],"x":null},"updated_at":"2026-01-02T03:04:05Z","deleted":false}`,
	} {
		r, err := stage(u, "", json.RawMessage(other))
		require.NoError(t, err)
		require.NotEqual(t, hashes[0], r.DocHash, other)
	}
}

func TestStageTakesTheTopLevelFieldsAsTheMapDid(t *testing.T) {
	t.Parallel()
	e, _ := Lookup("bidding_rules") // keyed by currency
	u := &Unit{Entity: e}
	r, err := stage(u, "", json.RawMessage(`{"currency":"U\u0053D","x":{"currency":"no","deleted":true,"updated_at":"2020-01-01T00:00:00Z"},"deleted":true,"created_at":"2026-01-02T03:04:05+02:00","updated_at":"bad"}`))
	require.NoError(t, err)
	require.Equal(t, "USD", r.ID)
	require.True(t, r.Deleted)
	require.Nil(t, r.UpdatedAt)
	require.Equal(t, "2026-01-02T01:04:05Z", r.CreatedAt.Format("2006-01-02T15:04:05Z07:00"))
	// A numeric key is its text; a repeated field's last copy wins.
	r, err = stage(u, "", json.RawMessage(`{"currency":1.50,"deleted":true,"deleted":false,"currency":2.50}`))
	require.NoError(t, err)
	require.Equal(t, "2.50", r.ID)
	require.False(t, r.Deleted)
	for _, bad := range []string{`{"currency":true}`, `{"currency":null}`, `{"currency":["USD"]}`, `{"currency":""}`} {
		_, err = stage(u, "", json.RawMessage(bad))
		require.ErrorContains(t, err, "a record has no currency", bad)
	}
	for _, bad := range []string{`null`, `[1]`, `"x"`} {
		_, err = stage(u, "", json.RawMessage(bad))
		require.ErrorContains(t, err, "not a JSON object", bad)
	}
	// Not valid JSON: refused as the page's decode refuses it.
	for _, bad := range []string{`{"a":}`, `{"a":1`, `{"a" 1}`, `{"a":1}x`} {
		_, err = stage(u, "", json.RawMessage(bad))
		var syn *json.SyntaxError
		require.ErrorAs(t, err, &syn, bad)
	}
}

// stage canonicalizes one record with a canonicalizer of its own.
func stage(u *Unit, part string, raw json.RawMessage) (store.StagedRecord, error) {
	var c canonicalizer
	return c.stage(u, part, raw)
}
