package hashing

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"
)

// Options tune a Normalizer.
type Options struct {
	// DefaultCountry is the ISO 3166-1 alpha-2 region (for example "US") of
	// phone numbers written without a country code. Empty means such numbers
	// are read as E.164 digits without the leading '+'.
	DefaultCountry string
	// PassThroughHashed sends a value that already is 64 hex characters as
	// it is (lowercased) instead of hashing it again: files often come
	// pre-hashed from a CRM export.
	PassThroughHashed bool
}

// DefaultOptions are the options used when none are given: no default
// country, pre-hashed values passed through.
func DefaultOptions() Options { return Options{PassThroughHashed: true} }

// Normalizer normalizes and hashes identifier values. It is safe for
// concurrent use.
type Normalizer struct {
	opts   Options
	region string
}

// NewNormalizer returns a Normalizer, checking that opts.DefaultCountry is a
// region with a known calling code.
func NewNormalizer(opts Options) (*Normalizer, error) {
	region := strings.ToUpper(strings.TrimSpace(opts.DefaultCountry))
	if region != "" && phonenumbers.GetCountryCodeForRegion(region) == 0 {
		return nil, fmt.Errorf("default country %q: not an ISO 3166-1 alpha-2 region with a phone calling code", opts.DefaultCountry)
	}
	opts.DefaultCountry = region
	return &Normalizer{opts: opts, region: region}, nil
}

// Normalize returns raw in the form the service matches on, before hashing.
// An empty value (after trimming) gives "" and no error: it is skipped, not
// invalid. A pre-hashed value (with PassThroughHashed) gives the lowercased hash.
func (n *Normalizer) Normalize(t Type, raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		if t.index() < 0 {
			return "", fmt.Errorf("unknown identifier type %q", t)
		}
		return "", nil
	}
	if t == TypePartnerUserID {
		return s, nil
	}
	if n.opts.PassThroughHashed && isHex64(s) {
		return lowerASCII(s), nil
	}
	var buf [128]byte
	b, err := n.appendNormalized(buf[:0], t, s)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Hash returns the value sent to the service for raw: the lowercase hex
// SHA-256 of its normalized form, the trimmed value for partner_user_id
// (never hashed), or the lowercased value when it already is a hash and
// PassThroughHashed is set. skipped is true for an empty value.
func (n *Normalizer) Hash(t Type, raw string) (hash string, skipped bool, err error) {
	// A stack buffer keeps the hot path to a single allocation: the
	// returned string.
	var buf [sha256.Size * 2]byte
	b, skipped, err := n.AppendHash(buf[:0], t, raw)
	if err != nil || skipped {
		return "", skipped, err
	}
	return string(b), false, nil
}

// AppendHash is Hash appending the value to dst instead of returning a
// string: dst grows by the value, or is returned as it was when raw is
// skipped or invalid. raw is never retained.
func (n *Normalizer) AppendHash(dst []byte, t Type, raw string) (out []byte, skipped bool, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		if t.index() < 0 {
			return dst, false, fmt.Errorf("unknown identifier type %q", t)
		}
		return dst, true, nil
	}
	if t == TypePartnerUserID {
		return append(dst, s...), false, nil
	}
	if n.opts.PassThroughHashed && isHex64(s) {
		return appendLowerASCII(dst, s), false, nil
	}
	var buf [128]byte
	b, err := n.appendNormalized(buf[:0], t, s)
	if err != nil {
		return dst, false, err
	}
	sum := sha256.Sum256(b)
	return hex.AppendEncode(dst, sum[:]), false, nil
}

// appendNormalized appends the normalized form of s (trimmed, not empty, not
// pre-hashed) to dst.
func (n *Normalizer) appendNormalized(dst []byte, t Type, s string) ([]byte, error) {
	switch t {
	case TypeEmail:
		return appendEmail(dst, s)
	case TypeHandle:
		return appendHandle(dst, s)
	case TypeDeviceID:
		return appendDeviceID(dst, s)
	case TypeServiceID:
		return appendServiceID(dst, s)
	case TypePhoneNumber:
		return n.appendPhone(dst, s)
	case TypePartnerUserID:
		return append(dst, s...), nil
	}
	return dst, fmt.Errorf("unknown identifier type %q", t)
}

// appendEmail applies the service's email rule: trimmed and lowercased. We
// also reject what can never match an account: no '@', an empty local part,
// a domain without a dot, or whitespace inside.
func appendEmail(dst []byte, s string) ([]byte, error) {
	if out, ok := appendPlainEmail(dst, s); ok {
		return out, nil
	}
	return appendEmailChecked(dst, s)
}

// appendPlainEmail is appendEmail's one pass for the common address: ASCII
// without whitespace or control characters, one '@' after a non-empty
// local part, and a dotted domain (a '.' neither first nor last, no "..").
// It appends the lowercased address and reports true only when
// appendEmailChecked would append exactly that; anything else (every error
// among it) is left to appendEmailChecked.
func appendPlainEmail(dst []byte, s string) ([]byte, bool) {
	l := len(dst)
	dst = append(dst, s...)
	b := dst[l:]
	at, dot := -1, -1
	var prev byte
	for i, c := range b {
		switch {
		case c <= ' ' || c >= 0x7f:
			return dst[:l], false
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case c == '@':
			if at >= 0 {
				return dst[:l], false
			}
			at = i
		case c == '.' && at >= 0:
			if dot < 0 {
				dot = i
			}
			if prev == '.' {
				return dst[:l], false
			}
		}
		prev = c
	}
	if at <= 0 || dot <= at+1 || prev == '.' {
		return dst[:l], false
	}
	return dst, true
}

// appendEmailChecked is appendEmail for any input, naming the first rule
// the address breaks.
func appendEmailChecked(dst []byte, s string) ([]byte, error) {
	at := strings.IndexByte(s, '@')
	switch {
	case at < 0:
		return dst, invalid(TypeEmail, "no @", s)
	case at == 0:
		return dst, invalid(TypeEmail, "empty local part", s)
	case strings.IndexByte(s[at+1:], '@') >= 0:
		return dst, invalid(TypeEmail, "more than one @", s)
	}
	domain := s[at+1:]
	if domain == "" {
		return dst, invalid(TypeEmail, "no domain", s)
	}
	dot := strings.IndexByte(domain, '.')
	if dot <= 0 || domain[len(domain)-1] == '.' || strings.Contains(domain, "..") {
		return dst, invalid(TypeEmail, "domain is not a dotted name", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f {
			return dst, invalid(TypeEmail, "contains whitespace or a control character", s)
		}
		if c >= utf8.RuneSelf {
			return appendEmailUnicode(dst, s)
		}
	}
	return appendLowerASCII(dst, s), nil
}

// appendEmailUnicode handles internationalized addresses, which are rare: the
// slow path lowercases by Unicode rules.
func appendEmailUnicode(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return dst, invalid(TypeEmail, "not valid UTF-8", s)
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return dst, invalid(TypeEmail, "contains whitespace or a control character", s)
		}
	}
	return append(dst, strings.ToLower(s)...), nil
}

// appendHandle applies the service's handle rule: trimmed, one leading '@'
// dropped, lowercased. Handles are made of letters, digits and '_' only, so
// anything else cannot match an account and is rejected.
func appendHandle(dst []byte, s string) ([]byte, error) {
	s = strings.TrimPrefix(s, "@")
	if s == "" {
		return dst, invalid(TypeHandle, "empty after the leading @", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return dst, invalid(TypeHandle, "characters other than letters, digits and _", s)
		}
	}
	return appendLowerASCII(dst, s), nil
}

// appendDeviceID applies the service's device id rule: trimmed, lowercased,
// dashes kept (IDFA and AdID style). Both IDFA and AdID are UUIDs written in
// the canonical 8-4-4-4-12 hex form, which is the form the service hashes, so
// anything else (no dashes, braces, other lengths) could never match a device
// and is rejected rather than guessed at. The all-zero id is what devices
// report when the user limits ad tracking: it matches no one.
func appendDeviceID(dst []byte, s string) ([]byte, error) {
	if len(s) != 36 {
		return dst, invalid(TypeDeviceID, "not a UUID in 8-4-4-4-12 form", s)
	}
	zero := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return dst, invalid(TypeDeviceID, "not a UUID in 8-4-4-4-12 form", s)
			}
			continue
		}
		if !isHexDigit(c) {
			return dst, invalid(TypeDeviceID, "not a UUID in 8-4-4-4-12 form", s)
		}
		zero = zero && c == '0'
	}
	if zero {
		return dst, invalid(TypeDeviceID, "all-zero advertising id (ad tracking limited)", s)
	}
	return appendLowerASCII(dst, s), nil
}

// appendServiceID applies the service's user id rule: decimal digits only.
func appendServiceID(dst []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return dst, invalid(TypeServiceID, "not digits only", s)
		}
	}
	return append(dst, s...), nil
}

// appendPhone applies the service's phone rule, from its audience
// documentation: E.164 with the country code, digits only, the leading '+'
// removed ("+1 (415) 555-0100" becomes "14155550100"). Parsing is
// libphonenumber's (github.com/nyaruka/phonenumbers). A number without a '+'
// is read in the default country; digits-only input may also be E.164
// without its '+', which is the form this function writes, so normalized
// files go through unchanged.
//
// A number is rejected only when it cannot be a phone number of its country:
// it does not parse (letters, no digits, an unknown country calling code, no
// country code and no default country), its length or form is impossible for
// its country code, or it is a local number without its area code (see
// isPossiblePhone). A number the numbering plan does not list as assigned (a
// North American number with an unassigned area code, say) is normalized and
// hashed: the service matches whatever it holds, and libphonenumber's list of
// assigned ranges lags the real ones. Of the two readings of digits-only
// input, one valid by that list wins over one only possible, and the default
// country's reading wins between equals.
func (n *Normalizer) appendPhone(dst []byte, s string) ([]byte, error) {
	if out, ok := n.appendPhoneFast(dst, s); ok {
		return out, nil
	}
	return n.appendPhoneReference(dst, s)
}

// appendPhoneReference is appendPhone done with libphonenumber's own calls
// only: the definition appendPhoneFast must agree with, and the path for
// every number appendPhoneFast cannot decide (anything but a plainly written
// number, and every number libphonenumber does not find valid).
func (n *Normalizer) appendPhoneReference(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return dst, invalid(TypePhoneNumber, "not valid UTF-8", s)
	}
	num, err := phonenumbers.Parse(s, n.region)
	if err != nil {
		num = nil
	}
	best := num
	if num == nil || !phonenumbers.IsValidNumber(num) {
		var alt *phonenumbers.PhoneNumber
		if s[0] != '+' && allDigits(s) {
			if a, err := phonenumbers.Parse("+"+s, ""); err == nil {
				alt = a
			}
		}
		switch {
		case alt != nil && phonenumbers.IsValidNumber(alt):
			best = alt
		case isPossiblePhone(num):
			best = num
		case isPossiblePhone(alt):
			best = alt
		default:
			if num == nil {
				num = alt
			}
			return dst, invalid(TypePhoneNumber, n.impossiblePhoneReason(num, s), s)
		}
	}
	e164 := phonenumbers.Format(best, phonenumbers.E164)
	return append(dst, strings.TrimPrefix(e164, "+")...), nil
}

// isPossiblePhone reports whether num can be a whole number of its country:
// its length is one the country code allows (libphonenumber's possibility
// check) and it has the form of the country's numbers (the numbering plan's
// general pattern, which covers unassigned ranges too: a North American area
// code never starts with 0 or 1). A local number without its area code, which
// IsPossibleNumber accepts, is not whole: it has no E.164 form. Nor is a
// number whose E.164 form does not read back as itself: the parser strips a
// national prefix or carrier code from the front of a number it does not
// know, and would strip again from the normalized form, which then would not
// normalize to itself.
func isPossiblePhone(num *phonenumbers.PhoneNumber) bool {
	if num == nil || phonenumbers.IsPossibleNumberWithReason(num) != phonenumbers.IS_POSSIBLE || !hasPhoneForm(num) {
		return false
	}
	e164 := phonenumbers.Format(num, phonenumbers.E164)
	back, err := phonenumbers.Parse(e164, "")
	return err == nil && phonenumbers.Format(back, phonenumbers.E164) == e164
}

// hasPhoneForm reports whether num's national number matches the general
// pattern of a region of its country code, or the code has no pattern.
func hasPhoneForm(num *phonenumbers.PhoneNumber) bool {
	forms := phoneForms()[num.GetCountryCode()]
	if len(forms) == 0 {
		return true
	}
	nsn := phonenumbers.GetNationalSignificantNumber(num)
	for _, d := range forms {
		if phonenumbers.MatchNationalNumber(nsn, d, false) {
			return true
		}
	}
	return false
}

// phoneForms maps each country calling code to the general number patterns
// of its regions (several regions share +1, +7, +44, ...). libphonenumber
// checks these inside its parser but exports no check for a parsed number,
// so they are read from its metadata once.
var phoneForms = sync.OnceValue(func() map[int32][]*phonenumbers.PhoneNumberDesc {
	forms := map[int32][]*phonenumbers.PhoneNumberDesc{}
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return forms // the library could not load its own data: lengths alone decide
	}
	for _, m := range coll.GetMetadata() {
		if d := m.GetGeneralDesc(); d.GetNationalNumberPattern() != "" {
			forms[m.GetCountryCode()] = append(forms[m.GetCountryCode()], d)
		}
	}
	return forms
})

// impossiblePhoneReason says why s, parsed as num (nil when it did not
// parse), cannot be a phone number.
func (n *Normalizer) impossiblePhoneReason(num *phonenumbers.PhoneNumber, s string) string {
	if n.region == "" && s[0] != '+' {
		return "not a valid number with a country code (no default country set)"
	}
	if num == nil {
		return "not a valid phone number"
	}
	cc := num.GetCountryCode()
	switch phonenumbers.IsPossibleNumberWithReason(num) {
	case phonenumbers.TOO_SHORT:
		return fmt.Sprintf("not a valid phone number: too short for country code +%d", cc)
	case phonenumbers.TOO_LONG:
		return fmt.Sprintf("not a valid phone number: too long for country code +%d", cc)
	case phonenumbers.INVALID_LENGTH:
		return fmt.Sprintf("not a valid phone number: no number of country code +%d has this length", cc)
	case phonenumbers.IS_POSSIBLE_LOCAL_ONLY:
		return fmt.Sprintf("not a valid phone number: a local number without its area code (country code +%d)", cc)
	case phonenumbers.IS_POSSIBLE:
		return fmt.Sprintf("not a valid phone number: not of the form of country code +%d's numbers", cc)
	}
	return "not a valid phone number"
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isHex64 reports whether s looks like a SHA-256 already: 64 hex characters.
func isHex64(s string) bool {
	if len(s) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

// appendLowerASCII appends s with ASCII letters lowercased.
func appendLowerASCII(dst []byte, s string) []byte {
	l := len(dst)
	dst = append(dst, s...)
	b := dst[l:]
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// lowerASCII returns s with ASCII letters lowercased, without allocating when
// it already is.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return string(appendLowerASCII(make([]byte, 0, len(s)), s))
		}
	}
	return s
}
