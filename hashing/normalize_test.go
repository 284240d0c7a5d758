package hashing_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/adsync/adsync/hashing"
	"github.com/stretchr/testify/require"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func normalizer(t testing.TB, opts hashing.Options) *hashing.Normalizer {
	t.Helper()
	n, err := hashing.NewNormalizer(opts)
	require.NoError(t, err)
	return n
}

// TestNormalizeRules pins each identifier type's rule: valid variants give
// the normalized form, invalid ones an *InvalidValueError, empty ones "".
func TestNormalizeRules(t *testing.T) {
	t.Parallel()
	us := hashing.Options{DefaultCountry: "US", PassThroughHashed: true}
	none := hashing.DefaultOptions()
	tests := []struct {
		name string
		opts hashing.Options
		typ  hashing.Type
		in   string
		want string // "" with wantErr false means skipped
		bad  string // substring of the error reason; "" means valid
	}{
		{"email trimmed and lowercased", none, hashing.TypeEmail, "  Test@Example.COM \t", "test@example.com", ""},
		{"email plus tag kept", none, hashing.TypeEmail, "a.b+tag@sub.example.org", "a.b+tag@sub.example.org", ""},
		{"email unicode lowercased", none, hashing.TypeEmail, "ÉLODIE@Exemple.FR", "élodie@exemple.fr", ""},
		{"email without @ rejected", none, hashing.TypeEmail, "test.example.com", "", "no @"},
		{"email without local part rejected", none, hashing.TypeEmail, "@example.com", "", "empty local part"},
		{"email without domain rejected", none, hashing.TypeEmail, "test@", "", "no domain"},
		{"email with undotted domain rejected", none, hashing.TypeEmail, "test@localhost", "", "dotted"},
		{"email with trailing dot domain rejected", none, hashing.TypeEmail, "test@example.", "", "dotted"},
		{"email with two @ rejected", none, hashing.TypeEmail, "a@b@example.com", "", "more than one @"},
		{"email with inner space rejected", none, hashing.TypeEmail, "te st@example.com", "", "whitespace"},
		{"email empty skipped", none, hashing.TypeEmail, "   ", "", ""},

		{"handle leading @ dropped and lowercased", none, hashing.TypeHandle, " @Jack_Dorsey ", "jack_dorsey", ""},
		{"handle without @ lowercased", none, hashing.TypeHandle, "Abc123", "abc123", ""},
		{"handle only one @ dropped", none, hashing.TypeHandle, "@@jack", "", "characters other than"},
		{"handle empty after @ rejected", none, hashing.TypeHandle, "@", "", "empty after"},
		{"handle with dot rejected", none, hashing.TypeHandle, "jack.d", "", "characters other than"},
		{"handle empty skipped", none, hashing.TypeHandle, "", "", ""},

		{"device id lowercased with dashes kept", none, hashing.TypeDeviceID, " 6D92078A-8246-4BA4-AE5B-76104861E7DC ", "6d92078a-8246-4ba4-ae5b-76104861e7dc", ""},
		{"device id without dashes rejected", none, hashing.TypeDeviceID, "6D92078A82464BA4AE5B76104861E7DC", "", "8-4-4-4-12"},
		{"device id with braces rejected", none, hashing.TypeDeviceID, "{6D92078A-8246-4BA4-AE5B-76104861E7D}", "", "8-4-4-4-12"},
		{"device id with non-hex rejected", none, hashing.TypeDeviceID, "6D92078G-8246-4BA4-AE5B-76104861E7DC", "", "8-4-4-4-12"},
		{"device id all zero rejected", none, hashing.TypeDeviceID, "00000000-0000-0000-0000-000000000000", "", "all-zero"},

		{"service id digits kept", none, hashing.TypeServiceID, " 783214 ", "783214", ""},
		{"service id with letters rejected", none, hashing.TypeServiceID, "78x3214", "", "digits only"},
		{"service id negative rejected", none, hashing.TypeServiceID, "-783214", "", "digits only"},

		{"phone with + and punctuation to E.164 digits", none, hashing.TypePhoneNumber, "+1 (415) 555-0100", "14155550100", ""},
		{"phone national in default country", us, hashing.TypePhoneNumber, "(415) 555-0100", "14155550100", ""},
		{"phone with country code in default country", us, hashing.TypePhoneNumber, "1-415-555-0100", "14155550100", ""},
		{"phone with + in other country than default", us, hashing.TypePhoneNumber, "+44 7911 123456", "447911123456", ""},
		{"phone national GB with trunk zero", hashing.Options{DefaultCountry: "gb"}, hashing.TypePhoneNumber, "07911 123456", "447911123456", ""},
		{"phone already normalized passes unchanged", us, hashing.TypePhoneNumber, "447911123456", "447911123456", ""},
		{"phone digits without default country read as E.164", none, hashing.TypePhoneNumber, "14155550100", "14155550100", ""},
		{"phone national without default country rejected", none, hashing.TypePhoneNumber, "(415) 555-0100", "", "no default country"},
		{"phone letters rejected", us, hashing.TypePhoneNumber, "call me", "", "not a valid phone number"},
		{"phone too short rejected", us, hashing.TypePhoneNumber, "555", "", "not a valid phone number: too short for country code +1"},

		// A number of a possible length for its country is kept even where the
		// numbering plan lists no assigned range: the service matches what it holds.
		{"phone unassigned North American area code kept", none, hashing.TypePhoneNumber, "+1 (222) 555-0123", "12225550123", ""},
		{"phone reserved North American area code kept", none, hashing.TypePhoneNumber, "+1 (555) 012-3456", "15550123456", ""},
		{"phone unassigned area code national in default country kept", us, hashing.TypePhoneNumber, "(222) 555-0123", "12225550123", ""},
		{"phone unassigned area code digits in default country kept", us, hashing.TypePhoneNumber, "2225550123", "12225550123", ""},
		{"phone unassigned area code digits without default country read as E.164", none, hashing.TypePhoneNumber, "12225550123", "12225550123", ""},
		{"phone unassigned area code with extension kept without it", none, hashing.TypePhoneNumber, "+1 222-555-0123 ext. 9", "12225550123", ""},
		{"phone valid E.164 reading wins over a possible national one", us, hashing.TypePhoneNumber, "4930123456", "4930123456", ""},

		// A number that cannot be one of its country's stays rejected.
		{"phone one digit short for its country rejected", none, hashing.TypePhoneNumber, "+1 222 555 012", "", "not a valid phone number: too short for country code +1"},
		{"phone one digit long for its country rejected", none, hashing.TypePhoneNumber, "+1 222 555 01234", "", "not a valid phone number: too long for country code +1"},
		{"phone North American area code starting with 1 rejected", none, hashing.TypePhoneNumber, "+1 123 456 7890", "", "not a valid phone number: not of the form of country code +1's numbers"},
		{"phone French number keeping its trunk zero rejected", none, hashing.TypePhoneNumber, "+33 0 23 45 67 89", "", "not a valid phone number: not of the form of country code +33's numbers"},
		{"phone South African digits of zeros rejected", none, hashing.TypePhoneNumber, "2700000000", "", "no default country set"},
		{"phone whose E.164 form would not read back as itself rejected", none, hashing.TypePhoneNumber, "+55 090 500000101", "", "not a valid phone number: not of the form of country code +55's numbers"},
		{"phone local number without area code rejected", us, hashing.TypePhoneNumber, "555-0123", "", "not a valid phone number: a local number without its area code (country code +1)"},
		{"phone unknown country calling code rejected", none, hashing.TypePhoneNumber, "+999 1234 5678", "", "not a valid phone number"},
		{"phone plus alone rejected", us, hashing.TypePhoneNumber, "+", "", "not a valid phone number"},
		{"phone punctuation only rejected", us, hashing.TypePhoneNumber, "(--)", "", "not a valid phone number"},
		{"phone short digits without default country rejected", none, hashing.TypePhoneNumber, "12", "", "no default country set"},

		{"partner user id trimmed only", none, hashing.TypePartnerUserID, "  CRM-00042 ", "CRM-00042", ""},

		{"pre-hashed passes through lowercased", none, hashing.TypeEmail, strings.ToUpper(sha("x")), sha("x"), ""},
		{"pre-hashed without pass-through is an invalid email", hashing.Options{}, hashing.TypeEmail, sha("x"), "", "no @"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := normalizer(t, tc.opts).Normalize(tc.typ, tc.in)
			if tc.bad != "" {
				var ive *hashing.InvalidValueError
				require.ErrorAs(t, err, &ive)
				require.Equal(t, tc.typ, ive.Type)
				require.Contains(t, ive.Reason, tc.bad)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestHashOfNormalizedEmailIsKnownSHA256(t *testing.T) {
	t.Parallel()
	h, skipped, err := normalizer(t, hashing.DefaultOptions()).Hash(hashing.TypeEmail, " Test@Example.com ")
	require.NoError(t, err)
	require.False(t, skipped)
	// Computed independently: printf 'test@example.com' | sha256sum
	require.Equal(t, "973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b", h)
}

func TestPhoneNumberOfAnUnassignedRangeIsHashed(t *testing.T) {
	t.Parallel()
	h, skipped, err := normalizer(t, hashing.Options{DefaultCountry: "US"}).Hash(hashing.TypePhoneNumber, "(222) 555-0123")
	require.NoError(t, err)
	require.False(t, skipped)
	// Computed independently: printf '12225550123' | sha256sum
	require.Equal(t, "e16e7d69c53190eca08f8f736ed2c539df2ea02e1e879e5675be928662eae076", h)
}

func TestHashIsSHA256OfNormalizedValueForEveryHashedType(t *testing.T) {
	t.Parallel()
	n := normalizer(t, hashing.Options{DefaultCountry: "US"})
	for typ, raw := range map[hashing.Type]string{
		hashing.TypeEmail: "A@B.co", hashing.TypeHandle: "@Jack", hashing.TypeServiceID: "12",
		hashing.TypeDeviceID: "6D92078A-8246-4BA4-AE5B-76104861E7DC", hashing.TypePhoneNumber: "415 555 0100",
	} {
		norm, err := n.Normalize(typ, raw)
		require.NoError(t, err)
		h, skipped, err := n.Hash(typ, raw)
		require.NoError(t, err)
		require.False(t, skipped)
		require.Equal(t, sha(norm), h, typ)
	}
}

func TestHashSkipsEmptyValues(t *testing.T) {
	t.Parallel()
	n := normalizer(t, hashing.DefaultOptions())
	for _, typ := range hashing.Types() {
		h, skipped, err := n.Hash(typ, " \t ")
		require.NoError(t, err)
		require.True(t, skipped, typ)
		require.Empty(t, h)
	}
}

func TestHashNeverHashesPartnerUserID(t *testing.T) {
	t.Parallel()
	n := normalizer(t, hashing.DefaultOptions())
	h, _, err := n.Hash(hashing.TypePartnerUserID, " crm-42 ")
	require.NoError(t, err)
	require.Equal(t, "crm-42", h)
	h, _, err = n.Hash(hashing.TypePartnerUserID, strings.ToUpper(sha("x")))
	require.NoError(t, err)
	require.Equal(t, strings.ToUpper(sha("x")), h, "not even lowercased as a hash")
}

func TestHashPassThroughOfPreHashedValuesIsSwitchable(t *testing.T) {
	t.Parallel()
	pre := strings.ToUpper(sha("someone@example.com"))

	h, _, err := normalizer(t, hashing.Options{PassThroughHashed: true}).Hash(hashing.TypeServiceID, pre)
	require.NoError(t, err)
	require.Equal(t, strings.ToLower(pre), h, "on: unchanged except case")

	_, _, err = normalizer(t, hashing.Options{PassThroughHashed: false}).Hash(hashing.TypeServiceID, pre)
	var ive *hashing.InvalidValueError
	require.ErrorAs(t, err, &ive, "off: hex is not digits only")

	allDigits := strings.Repeat("7", 64)
	h, _, err = normalizer(t, hashing.Options{PassThroughHashed: false}).Hash(hashing.TypeServiceID, allDigits)
	require.NoError(t, err)
	require.Equal(t, sha(allDigits), h, "off: hashed like any value")
}

func TestInvalidValueErrorRedactsTheValue(t *testing.T) {
	t.Parallel()
	_, err := normalizer(t, hashing.DefaultOptions()).Normalize(hashing.TypeEmail, "secret.person.example.com")
	require.Error(t, err)
	require.NotContains(t, err.Error(), "secret.person")
	require.Contains(t, err.Error(), `"s"… (25 chars)`)
}

func TestNewNormalizerRejectsUnknownDefaultCountry(t *testing.T) {
	t.Parallel()
	_, err := hashing.NewNormalizer(hashing.Options{DefaultCountry: "XX"})
	require.ErrorContains(t, err, `default country "XX"`)
}

func TestParseTypeAcceptsUserObjectKeysOnly(t *testing.T) {
	t.Parallel()
	for _, typ := range hashing.Types() {
		got, err := hashing.ParseType(" " + strings.ToUpper(string(typ)) + " ")
		require.NoError(t, err)
		require.Equal(t, typ, got)
	}
	_, err := hashing.ParseType("fax")
	require.ErrorContains(t, err, `unknown identifier type "fax"`)
}
