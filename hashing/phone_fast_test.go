package hashing

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"
	"github.com/stretchr/testify/require"
)

// phoneDiffRegions are the default countries the differential checks run
// with: none, the benchmark's, shared calling codes (+1 NANP, +7, +44 with
// the crown dependencies, +47, +61, +262, +590, +599), and countries with
// national prefix transform rules, carrier codes or leading zeros.
var phoneDiffRegions = []string{"", "US", "CA", "PR", "JM", "AG", "GB", "GG", "JE", "IM", "RU", "KZ", "DE", "FR", "IT", "SM", "VA",
	"BR", "AR", "MX", "CO", "IN", "CN", "JP", "KR", "AU", "CX", "NO", "SJ", "RE", "YT", "GP", "BL", "CW", "BQ", "FI", "AX",
	"NL", "ES", "CH", "AT", "BE", "IE", "ZA", "NG", "EG", "IL", "AE", "SA", "TR", "PL", "UA", "SE", "DK", "NZ", "SG", "HK",
	"ID", "PH", "VN", "TH", "MY", "PK", "BD", "CL", "PE", "VE", "UY", "GF", "MQ", "PM", "MA", "DZ", "TN"}

// checkPhoneFast compares the fast path with the reference for one input:
// when the fast path decides, the reference must give the same digits and
// no error. It reports whether the fast path decided and whether the
// reference accepts s.
func checkPhoneFast(t testing.TB, n *Normalizer, s string) (decided, accepted bool) {
	t.Helper()
	ref, err := n.appendPhoneReference(nil, s)
	fast, ok := n.appendPhoneFast([]byte("prefix:"), s)
	if !ok {
		if string(fast) != "prefix:" {
			t.Fatalf("region %q, %q: undecided fast path changed dst to %q", n.region, s, fast)
		}
		return false, err == nil
	}
	if err != nil {
		t.Fatalf("region %q, %q: fast path gives %q, reference refuses: %v", n.region, s, fast[len("prefix:"):], err)
	}
	if got := string(fast[len("prefix:"):]); got != string(ref) {
		t.Fatalf("region %q, %q: fast path gives %q, reference %q", n.region, s, got, ref)
	}
	return true, true
}

// phoneDiffInputs generates writings of numbers: libphonenumber's example
// numbers of every region and type in E.164, international and national
// formats, with and without '+', with other separators, digits dropped,
// added and changed, other leading digits, the international prefixes
// 00 and 011 in place of '+', and random digit strings.
func phoneDiffInputs(rng *rand.Rand, perRegion int) []string {
	var in []string
	regions := make([]string, 0, 256)
	for r := range phonenumbers.GetSupportedRegions() {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	types := []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.TOLL_FREE,
		phonenumbers.PREMIUM_RATE, phonenumbers.SHARED_COST, phonenumbers.VOIP, phonenumbers.PERSONAL_NUMBER,
		phonenumbers.PAGER, phonenumbers.UAN, phonenumbers.VOICEMAIL}
	var examples []*phonenumbers.PhoneNumber
	for _, r := range regions {
		for _, typ := range types {
			if ex := phonenumbers.GetExampleNumberForType(r, typ); ex != nil {
				examples = append(examples, ex)
			}
		}
	}
	var nonGeo []int
	for cc := range phonenumbers.GetSupportedGlobalNetworkCallingCodes() {
		nonGeo = append(nonGeo, cc)
	}
	sort.Ints(nonGeo)
	for _, cc := range nonGeo {
		if ex := phonenumbers.GetExampleNumberForNonGeoEntity(cc); ex != nil {
			examples = append(examples, ex)
		}
	}
	seps := []string{"", " ", "-", ".", " - ", "  "}
	mutate := func(d string) string {
		b := []byte(d)
		switch rng.IntN(8) {
		case 0: // drop a digit
			if len(b) > 1 {
				i := rng.IntN(len(b))
				b = append(b[:i], b[i+1:]...)
			}
		case 1: // add a digit
			i := rng.IntN(len(b) + 1)
			b = append(b[:i], append([]byte{byte('0' + rng.IntN(10))}, b[i:]...)...)
		case 2, 3: // change the last digits: another subscriber
			for i := max(0, len(b)-4); i < len(b); i++ {
				b[i] = byte('0' + rng.IntN(10))
			}
		case 4: // change a leading digit
			if len(b) > 0 {
				b[rng.IntN(min(3, len(b)))] = byte('0' + rng.IntN(10))
			}
		case 5: // a leading 0 or 1 (trunk prefixes)
			b = append([]byte{"01"[rng.IntN(2)]}, b...)
		}
		return string(b)
	}
	group := func(d string) string {
		if len(d) < 4 || rng.IntN(3) == 0 {
			return d
		}
		sep := seps[rng.IntN(len(seps))]
		var sb strings.Builder
		i := 0
		if rng.IntN(3) == 0 && len(d) > 6 {
			sb.WriteString("(" + d[:3] + ") ")
			i = 3
		}
		for i < len(d) {
			j := min(len(d), i+2+rng.IntN(3))
			if i > 0 && sb.Len() > 0 && !strings.HasSuffix(sb.String(), " ") {
				sb.WriteString(sep)
			}
			sb.WriteString(d[i:j])
			i = j
		}
		return sb.String()
	}
	for _, ex := range examples {
		cc := fmt.Sprint(ex.GetCountryCode())
		nsn := phonenumbers.GetNationalSignificantNumber(ex)
		in = append(in,
			phonenumbers.Format(ex, phonenumbers.E164),
			phonenumbers.Format(ex, phonenumbers.INTERNATIONAL),
			phonenumbers.Format(ex, phonenumbers.NATIONAL),
			cc+nsn, nsn, "00"+cc+nsn, "011"+cc+nsn, "8"+cc+nsn, "0"+nsn)
		for range perRegion {
			m := mutate(nsn)
			switch rng.IntN(5) {
			case 0:
				in = append(in, "+"+cc+" "+group(m))
			case 1:
				in = append(in, cc+group(m))
			case 2:
				in = append(in, group(m))
			case 3:
				in = append(in, "+"+group(cc+m))
			default:
				in = append(in, group(mutate(cc+nsn)))
			}
		}
	}
	// Random digit strings, sometimes behind a calling code of a shared
	// plan or an international prefix.
	prefixes := []string{"", "", "+", "+1", "1", "+7", "7", "+44", "44", "0", "00", "011", "+39", "+262", "+599", "+590", "8"}
	for range 20 * perRegion {
		var sb strings.Builder
		sb.WriteString(prefixes[rng.IntN(len(prefixes))])
		for range 1 + rng.IntN(17) {
			sb.WriteByte(byte('0' + rng.IntN(10)))
		}
		s := sb.String()
		if rng.IntN(2) == 0 {
			s = group(s)
		}
		in = append(in, s)
	}
	return in
}

// TestPhoneReferenceIsUpstreamLibphonenumber pins what the differential
// checks compare against: the published github.com/nyaruka/phonenumbers
// module, compiled from the module cache at a released version, not a
// replacement of it in the tree (a local copy would make the fast path
// agree with that copy, and keep a user's `go get -u` from bringing in the
// library's metadata updates).
func TestPhoneReferenceIsUpstreamLibphonenumber(t *testing.T) {
	fn := runtime.FuncForPC(reflect.ValueOf(phonenumbers.Parse).Pointer())
	require.NotNil(t, fn, "phonenumbers.Parse has no symbol")
	file, _ := fn.FileLine(fn.Entry())
	require.Regexp(t, `(^|/)github\.com/nyaruka/phonenumbers@v[0-9]+\.[0-9]+\.[0-9]+/[^/]+\.go$`, filepath.ToSlash(file),
		"phonenumbers.Parse is compiled from a released module version")
}

// TestPhoneFastPathMatchesReference runs generated writings of numbers of
// every region through the fast path and libphonenumber (the reference),
// with each default country of phoneDiffRegions: whenever the fast path
// decides, its E.164 digits are the reference's. It also checks the fast
// path decides the bulk of valid plainly written numbers (it is not
// silently handing everything to the reference).
func TestPhoneFastPathMatchesReference(t *testing.T) {
	t.Parallel()
	perRegion := 3
	if testing.Short() {
		perRegion = 1
	}
	inputs := phoneDiffInputs(rand.New(rand.NewPCG(1, 2)), perRegion)
	// Every input with no default country and with the benchmark's, a
	// seventh with each other one. Under the race detector (ten times
	// slower) an eighth with no default country and the benchmark's, and
	// each input exactly once with one of the other default countries
	// (share is their count, so (j+i)%share is 0 for one i per input j):
	// every writing the generator makes is still checked.
	every, share := 1, 7
	if raceEnabled {
		every, share = 8, len(phoneDiffRegions)-2
	}
	decided, validPlain := 0, 0
	checked := make([]bool, len(inputs))
	for i, region := range phoneDiffRegions {
		n, err := NewNormalizer(Options{DefaultCountry: region})
		if err != nil {
			t.Fatal(err)
		}
		for j, s := range inputs {
			if (region == "" || region == "US") && j%every != 0 || region != "" && region != "US" && (j+i)%share != 0 {
				continue
			}
			checked[j] = true
			d, accepted := checkPhoneFast(t, n, s)
			if d {
				decided++
			}
			if accepted && strings.Trim(s, "0123456789+ -.()") == "" {
				validPlain++
			}
		}
	}
	if j := slices.Index(checked, false); j >= 0 {
		t.Fatalf("input %d, %q, is checked with none of the default countries", j, inputs[j])
	}
	t.Logf("%d inputs, %d default countries: fast path decided %d, reference accepts %d plainly written", len(inputs), len(phoneDiffRegions), decided, validPlain)
	if decided < validPlain/2 {
		t.Fatalf("fast path decided %d of %d accepted inputs", decided, validPlain)
	}
}

// TestPhoneFastPathDecidesCommonWritings pins what the fast path takes: the
// writings of the CRM benchmark and the normalization rules' valid cases.
func TestPhoneFastPathDecidesCommonWritings(t *testing.T) {
	t.Parallel()
	us, _ := NewNormalizer(Options{DefaultCountry: "US"})
	gb, _ := NewNormalizer(Options{DefaultCountry: "GB"})
	none, _ := NewNormalizer(Options{})
	for _, tc := range []struct {
		n    *Normalizer
		in   string
		want string
	}{
		{us, "+1 415 555 0100", "14155550100"},
		{us, "(212) 555-0199", "12125550199"},
		{us, "+44 20 7946 0123", "442079460123"},
		{us, "1-415-555-0100", "14155550100"},
		{us, "011 44 20 7946 0123", "442079460123"},
		{us, "447911123456", "447911123456"},
		{gb, "07911 123456", "447911123456"},
		{gb, "00 33 1 23 45 67 89", "33123456789"},
		{none, "14155550100", "14155550100"},
		{none, "+39 06 1234 5678", "390612345678"},
		{none, "+7 912 345-67-89", "79123456789"},
	} {
		out, ok := tc.n.appendPhoneFast(nil, tc.in)
		if !ok || string(out) != tc.want {
			t.Errorf("region %q, %q: fast path gives %q, %v; want %q", tc.n.region, tc.in, out, ok, tc.want)
		}
		checkPhoneFast(t, tc.n, tc.in)
	}
}

// TestPhoneFastPathConcurrent runs the fast path from several goroutines
// on calling codes not loaded yet (run it with -race).
func TestPhoneFastPathConcurrent(t *testing.T) {
	t.Parallel()
	n, _ := NewNormalizer(Options{})
	inputs := []string{"+61 2 1234 5678", "+81 3-1234-5678", "+27 21 123 4567", "+49 30 123456", "+33 1 23 45 67 89", "+86 10 1234 5678"}
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 50 {
				checkPhoneFast(t, n, inputs[(g+i)%len(inputs)])
			}
		}()
	}
	for range 4 {
		<-done
	}
}

// FuzzPhoneFastPath is the differential check on fuzzed text, with each
// default country of phoneDiffRegions chosen by the second argument.
func FuzzPhoneFastPath(f *testing.F) {
	for i, s := range []string{"+1 (415) 555-0100", "(212) 555-0100", "+44 20 7946 0000", "07911 123456", "011 44 20 7946 0123",
		"14155550100", "+7 912 345-67-89", "8 912 345 67 89", "+39 06 1234 5678", "+54 9 11 1234 5678", "+52 1 55 1234 5678",
		"+262 262 12 34 56", "+599 9 123 4567", "1 (222) 555-0123", "+1 123 456 7890", "555-0123", "00000"} {
		f.Add(s, uint8(i))
	}
	ns := make([]*Normalizer, len(phoneDiffRegions))
	for i, r := range phoneDiffRegions {
		n, err := NewNormalizer(Options{DefaultCountry: r})
		if err != nil {
			f.Fatal(err)
		}
		ns[i] = n
	}
	f.Fuzz(func(t *testing.T, s string, region uint8) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		checkPhoneFast(t, ns[int(region)%len(ns)], s)
	})
}
