package hashing_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

var hash64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// FuzzNormalize checks every type's rule on the same input: no panic, a hash
// of 64 lowercase hex, errors of type *InvalidValueError, and normalization
// that is idempotent (phone numbers only without a default country, where
// digits-only input has one reading).
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", " Test@Example.COM ", "@Jack", "6D92078A-8246-4BA4-AE5B-76104861E7DC", "12345",
		"+1 (415) 555-0100", "14155550100", "+1 (222) 555-0123", "+55 090 500000101", "07911 123456", strings.Repeat("A", 64), "é@ü.de", "\xff@a.b"} {
		f.Add(s)
	}
	withCountry, err := hashing.NewNormalizer(hashing.Options{DefaultCountry: "GB", PassThroughHashed: true})
	require.NoError(f, err)
	plain, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, raw string) {
		for _, n := range []*hashing.Normalizer{withCountry, plain} {
			for _, typ := range hashing.Types() {
				h, skipped, err := n.Hash(typ, raw)
				if err != nil {
					var ive *hashing.InvalidValueError
					require.True(t, errors.As(err, &ive), "%T %v", err, err)
					continue
				}
				if skipped {
					require.Empty(t, strings.TrimSpace(raw))
					continue
				}
				if typ.Hashed() {
					require.Regexp(t, hash64, h, typ)
				}
				norm, err := n.Normalize(typ, raw)
				require.NoError(t, err, typ)
				if typ == hashing.TypePhoneNumber && n == withCountry {
					continue
				}
				again, err := n.Normalize(typ, norm)
				require.NoError(t, err, "%s: %q normalized to %q", typ, raw, norm)
				require.Equal(t, norm, again, "%s: idempotent", typ)
			}
		}
	})
}

// fuzzReader drains r: no panic, errors are row errors, line numbers grow.
func fuzzReader(t *testing.T, r hashing.RecordReader) {
	last := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		line := rec.Line
		var re *hashing.RowError
		if errors.As(err, &re) {
			line = re.Line
		} else {
			require.NoError(t, err)
		}
		require.Greater(t, line, last)
		last = line
	}
}

func FuzzCSVReader(f *testing.F) {
	f.Add("email,phone\na@b.co,1\n\"x\",\"y\"\"z\"\n")
	f.Add("email\n\"unclosed\n\xff\n")
	f.Add("\ufeffemail,email2\r\na,b\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := hashing.NewCSVReader(strings.NewReader(in), hashing.ReaderOptions{IgnoreUnknown: true, MaxLineBytes: 256})
		if err != nil {
			return
		}
		fuzzReader(t, r)
	})
}

func FuzzNDJSONReader(f *testing.F) {
	f.Add(`{"email":["a@b.co"],"phone_number":"1"}` + "\n" + `{"handle":null}`)
	f.Add("[1]\n{\"email\":1}\n\xff")
	f.Fuzz(func(t *testing.T, in string) {
		fuzzReader(t, hashing.NewNDJSONReader(strings.NewReader(in), hashing.ReaderOptions{MaxLineBytes: 256}))
	})
}

// FuzzUserJSON checks the user object encoder: whatever the partner ids and
// emails of a row, the request body it writes is valid JSON that decodes to
// the row's values (one bad user object would fail a whole batch).
func FuzzUserJSON(f *testing.F) {
	f.Add("a@b.co", "crm-1")
	f.Add("x@y.z", "quote\" back\\slash \x01 control")
	f.Add("", "\xff\xfe invalid utf-8")
	f.Add("u@v.w", "\u2028 line separator </script>")
	n, err := hashing.NewNormalizer(hashing.DefaultOptions())
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, email, partner string) {
		line := `{"email":` + strconvQuote(email) + `,"partner_user_id":` + strconvQuote(partner) + "}\n"
		r := hashing.NewNDJSONReader(strings.NewReader(line), hashing.ReaderOptions{})
		var users []hashing.HashedUser
		var report hashing.Report
		_ = hashing.HashRecords(r, n, func(u hashing.HashedUser) error { users = append(users, u); return nil }, &report)
		for _, u := range users {
			body := u.AppendJSON(nil)
			var decoded map[string][]string
			if err := json.Unmarshal(body, &decoded); err != nil {
				t.Fatalf("invalid JSON %q: %v", body, err)
			}
			for _, typ := range []hashing.Type{hashing.TypeEmail, hashing.TypePartnerUserID} {
				want := u.Values(typ)
				if len(want) == 0 {
					want = nil
				}
				got := decoded[string(typ)]
				if len(got) == 0 {
					got = nil
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s: encoded %q, decoded %q", typ, want, got)
				}
			}
		}
	})
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
