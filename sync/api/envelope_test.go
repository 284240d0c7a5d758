package api

import (
	"encoding/json"
	"reflect"
	"testing"
)

// DecodeRawList decodes exactly what Decode[List[json.RawMessage]] does:
// same records (bytes), cursor, count and echo, and an error for the same
// bodies.
func FuzzDecodeRawListEqualsDecode(f *testing.F) {
	for _, s := range []string{
		`{"request":{"params":{"count":2}},"next_cursor":"c2","data":[{"id":"1"},{"id":"2","x":[1,{"y":"\"]}"}]}],"total_count":7}`,
		` { "data" : [ 1 , "a\\" , null , [ ] , { } ] , "next_cursor" : null } `,
		`{"data":null}`, `{}`, `{"data":{}}`, `{"Data":[1]}`, `{"d\u0061ta":[1]}`, `{"data":[1],"data":[2,3]}`,
		`{"request":{"params":{"a":1}},"request":{"params":{"b":2}}}`, `{"total_count":"x","data":[]}`,
		`{"data":[1]} x`, `[1]`, `null`, `{"data":[1,]}`, `{"other":1,"data":[1]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		want, wantErr := Decode[List[json.RawMessage]]("GET /x", []byte(body))
		got, err := DecodeRawList("GET /x", []byte(body))
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, want %v", body, err, wantErr)
		}
		if err != nil {
			if err.Error() != wantErr.Error() {
				t.Fatalf("%q: error %q, want %q", body, err, wantErr)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got  %#v\n want %#v", body, got, want)
		}
	})
}

// SplitRawList decodes what Decode[List[json.RawMessage]] does when every
// record it splits out is valid JSON; when Decode refuses the body, either
// SplitRawList does (with Decode's error) or a record it splits out is not
// valid JSON (which its caller refuses).
func FuzzSplitRawListEqualsDecodeForValidRecords(f *testing.F) {
	for _, s := range []string{
		`{"request":{"params":{"count":2}},"next_cursor":"c2","data":[{"id":"1"},{"id":"2","x":[1,{"y":"\"]}"}]}],"total_count":7}`,
		` { "data" : [ 1 , "a\\" , null , [ ] , { } ] , "next_cursor" : null } `,
		`{"data":null}`, `{}`, `{"data":{}}`, `{"Data":[1]}`, `{"d\u0061ta":[1]}`, `{"data":[1],"data":[2,3]}`,
		`{"data":[1]} x`, `[1]`, `null`, `{"data":[1,]}`, `{"other":1,"data":[1]}`, `{"data":[{"a":[1}, {"b":2]}]}`,
		`{"data":[{"a":1}}, {"b":2}]}`, `{"data":[1 2]}`, `{"data":["a]}`, `{"data":[{"a":"x\"}]}`, `{"data":nullx}`,
		`{"next_cursor":"a" "b","data":[]}`, `{"data":[01]}`, "{\"data\":[\"\x01\"]}", `{"data":[{"a":1}`, `{"data":[`, `{`, ``,
		`{"data":[]}}`, `{"data":[],}`, `{"total_count":1 2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		want, wantErr := Decode[List[json.RawMessage]]("GET /x", []byte(body))
		got, err := SplitRawList("GET /x", []byte(body))
		if err != nil {
			if wantErr == nil || err.Error() != wantErr.Error() {
				t.Fatalf("%q: error %v, want %v", body, err, wantErr)
			}
			return
		}
		for _, r := range got.Data {
			if !json.Valid(r) {
				return // refused by the caller
			}
		}
		if wantErr != nil {
			t.Fatalf("%q: split %#v, all valid, but Decode refused it: %v", body, got, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got  %#v\n want %#v", body, got, want)
		}
	})
}
