package hashing

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"sync"

	"github.com/nyaruka/phonenumbers"
)

// The phone fast path. Profiling a CRM file showed phone numbers taking
// about 80% of the planner's CPU, nearly all of it in Go's regexp engine
// running libphonenumber's general-purpose patterns: its parser runs a
// dozen patterns meant for any text (extensions, RFC 3966, letters, wide
// digits) before it looks at the digits, and IsValidNumber runs every
// number-type pattern of every region sharing a calling code (25 regions
// for +1) through the backtracking matcher.
//
// appendPhoneFast decides the common case without them: a number written
// with ASCII digits, spaces, dashes, dots and parentheses only, and at most
// a leading '+', that libphonenumber would parse and find valid. For those
// it follows libphonenumber's parse step by step (the same country code
// extraction, national and international prefix rules and length tests,
// with the metadata's own prefix patterns) and checks validity with the
// metadata's number patterns compiled once per calling code into
// deterministic automata over the digits, which answer in one table lookup
// a digit. Anything else (other characters, a parse error, a number that
// is not valid) goes to appendPhoneReference, the libphonenumber calls
// themselves, so every refusal and every possible-only number keeps its
// exact old treatment. TestPhoneFastPathMatchesReference and
// FuzzPhoneFastPath check both paths agree.

// phoneValidation is libphonenumber's ValidationResult for the length test.
type phoneValidation int

const (
	phoneIsPossible phoneValidation = iota
	phoneLocalOnly
	phoneInvalidLength
	phoneTooShort
	phoneTooLong
	phoneLengthUnknown // metadata without lengths: undecided, use the reference
)

// digitMatcher is a compiled libphonenumber pattern matching strings of
// ASCII digits: a deterministic automaton (next[state][digit], -1 for no
// way on), or, for the rare pattern the automaton builder does not handle,
// the regexp itself. It is immutable once built.
type digitMatcher struct {
	next   [][10]int32
	accept []bool
	full   *regexp.Regexp // "^(?:p)$" when next is nil
	prefix *regexp.Regexp // "^(?:p)" when next is nil
}

// maxDFAStates bounds one pattern's automaton; a larger one (none in
// today's metadata) falls back to the regexp.
const maxDFAStates = 4096

func newDigitMatcher(pattern string) *digitMatcher {
	if m := compileDigitDFA(pattern); m != nil {
		return m
	}
	full, err1 := regexp.Compile("^(?:" + pattern + ")$")
	prefix, err2 := regexp.Compile("^(?:" + pattern + ")")
	if err1 != nil || err2 != nil {
		return nil
	}
	return &digitMatcher{full: full, prefix: prefix}
}

// compileDigitDFA builds the automaton by subset construction over the
// program Go's regexp compiles the pattern to, restricted to the ten
// digits. It returns nil for patterns with empty-width assertions (^, $,
// \b inside the pattern) or too many states.
func compileDigitDFA(pattern string) *digitMatcher {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	b := dfaBuilder{prog: prog}
	start := make([]bool, len(prog.Inst))
	if !b.closure(start, uint32(prog.Start)) {
		return nil
	}
	m := &digitMatcher{}
	ids := map[string]int32{setKey(start): 0}
	sets := [][]bool{start}
	m.next = append(m.next, [10]int32{})
	m.accept = append(m.accept, b.accepts(start))
	for i := 0; i < len(sets); i++ {
		for d := 0; d < 10; d++ {
			to, reached, ok := b.step(sets[i], rune('0'+d))
			if !ok {
				return nil
			}
			if !reached {
				m.next[i][d] = -1
				continue
			}
			k := setKey(to)
			id, seen := ids[k]
			if !seen {
				if len(sets) >= maxDFAStates {
					return nil
				}
				id = int32(len(sets))
				ids[k] = id
				sets = append(sets, to)
				m.next = append(m.next, [10]int32{})
				m.accept = append(m.accept, b.accepts(to))
			}
			m.next[i][d] = id
		}
	}
	return m
}

// dfaBuilder turns a compiled pattern's instructions into automaton states:
// sets of instructions.
type dfaBuilder struct{ prog *syntax.Prog }

// closure adds pc and the states reachable from it without consuming input
// to set; false for an instruction it does not handle.
func (b dfaBuilder) closure(set []bool, pc uint32) bool {
	if set[pc] {
		return true
	}
	set[pc] = true
	in := &b.prog.Inst[pc]
	switch in.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		return b.closure(set, in.Out) && b.closure(set, in.Arg)
	case syntax.InstCapture, syntax.InstNop:
		return b.closure(set, in.Out)
	case syntax.InstMatch, syntax.InstFail, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		return true
	}
	return false // InstEmptyWidth
}

// step is the set of states set reaches on r; reached is false when it
// reaches none, ok false for an instruction the builder does not handle.
func (b dfaBuilder) step(set []bool, r rune) (to []bool, reached, ok bool) {
	to = make([]bool, len(set))
	for pc, in := range set {
		if !in {
			continue
		}
		inst := &b.prog.Inst[pc]
		var match bool
		switch inst.Op {
		case syntax.InstRune, syntax.InstRune1:
			match = inst.MatchRune(r)
		case syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			match = true
		}
		if match {
			if !b.closure(to, inst.Out) {
				return nil, false, false
			}
			reached = true
		}
	}
	return to, reached, true
}

// accepts says whether set holds the match instruction.
func (b dfaBuilder) accepts(set []bool) bool {
	for pc, in := range set {
		if in && b.prog.Inst[pc].Op == syntax.InstMatch {
			return true
		}
	}
	return false
}

// setKey names a state set.
func setKey(set []bool) string {
	k := make([]byte, 0, 16)
	for pc, in := range set {
		if in {
			k = strconv.AppendInt(k, int64(pc), 10)
			k = append(k, ',')
		}
	}
	return string(k)
}

// matchFull reports whether the whole of digits matches the pattern, as
// libphonenumber's "^(?:p)$" MatchString does.
func (m *digitMatcher) matchFull(digits string) bool {
	if m.next == nil {
		return m.full.MatchString(digits)
	}
	st := int32(0)
	for i := 0; i < len(digits); i++ {
		st = m.next[st][digits[i]-'0']
		if st < 0 {
			return false
		}
	}
	return m.accept[st]
}

// matchPrefix reports whether a prefix of digits matches the pattern, as
// libphonenumber's "^(?:p)" MatchString does.
func (m *digitMatcher) matchPrefix(digits string) bool {
	if m.next == nil {
		return m.prefix.MatchString(digits)
	}
	st := int32(0)
	if m.accept[st] {
		return true
	}
	for i := 0; i < len(digits); i++ {
		st = m.next[st][digits[i]-'0']
		if st < 0 {
			return false
		}
		if m.accept[st] {
			return true
		}
	}
	return false
}

// phoneDesc is a PhoneNumberDesc: its possible lengths and its pattern.
type phoneDesc struct {
	lengths []int32
	pattern *digitMatcher
}

// matches is libphonenumber's isNumberMatchingDesc.
func (d *phoneDesc) matches(nsn string) bool {
	if len(d.lengths) > 0 {
		found := false
		for _, l := range d.lengths {
			if int32(len(nsn)) == l {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return d.pattern.matchFull(nsn)
}

// phoneRegion is one region's metadata (or a non-geographical calling
// code's) as the fast path uses it.
type phoneRegion struct {
	id      string
	cc      int
	ccStr   string
	leading *digitMatcher // nil when the metadata has no leading digits
	general phoneDesc
	// types are the descriptions getNumberTypeHelper tries after the
	// general one, any match making the number valid: premium rate, toll
	// free, shared cost, VoIP, personal, pager, UAN, voicemail, fixed line,
	// then mobile unless the mobile pattern is the fixed-line one.
	types []phoneDesc
	// possible and localOnly are the general description's lengths, for
	// testNumberLength.
	possible, localOnly []int32
	natPrefix           *regexp.Regexp // "^(?:national prefix for parsing)", nil without one
	transform           string
	idd                 *regexp.Regexp // "^(?:international prefix)"
}

func newPhoneRegion(m *phonenumbers.PhoneMetadata) (*phoneRegion, bool) {
	r := &phoneRegion{id: m.GetId(), cc: int(m.GetCountryCode())}
	r.ccStr = strconv.Itoa(r.cc)
	desc := func(d *phonenumbers.PhoneNumberDesc) (phoneDesc, bool) {
		p := newDigitMatcher(d.GetNationalNumberPattern())
		if p == nil {
			return phoneDesc{}, false
		}
		var lengths []int32
		if d != nil {
			lengths = d.PossibleLength
		}
		return phoneDesc{lengths: lengths, pattern: p}, true
	}
	ok := true
	add := func(d *phonenumbers.PhoneNumberDesc) {
		pd, good := desc(d)
		ok = ok && good
		r.types = append(r.types, pd)
	}
	var good bool
	if r.general, good = desc(m.GetGeneralDesc()); !good {
		return nil, false
	}
	for _, d := range []*phonenumbers.PhoneNumberDesc{m.GetPremiumRate(), m.GetTollFree(), m.GetSharedCost(), m.GetVoip(),
		m.GetPersonalNumber(), m.GetPager(), m.GetUan(), m.GetVoicemail(), m.GetFixedLine()} {
		add(d)
	}
	if !m.GetSameMobileAndFixedLinePattern() {
		add(m.GetMobile())
	}
	if ld := m.GetLeadingDigits(); ld != "" {
		if r.leading = newDigitMatcher(ld); r.leading == nil {
			return nil, false
		}
	}
	r.possible = m.GetGeneralDesc().GetPossibleLength()
	r.localOnly = m.GetGeneralDesc().GetPossibleLengthLocalOnly()
	var err error
	if p := m.GetNationalPrefixForParsing(); p != "" {
		if r.natPrefix, err = regexp.Compile("^(?:" + p + ")"); err != nil {
			return nil, false
		}
	}
	r.transform = m.GetNationalPrefixTransformRule()
	// libphonenumber looks for the international prefix anywhere and uses
	// it only where it starts the number: the leftmost match starting at 0
	// is the anchored pattern's match.
	if r.idd, err = regexp.Compile("^(?:" + m.GetInternationalPrefix() + ")"); err != nil {
		return nil, false
	}
	return r, ok
}

// typeKnown is libphonenumber's getNumberTypeHelper(nsn) != UNKNOWN.
func (r *phoneRegion) typeKnown(nsn string) bool {
	if !r.general.matches(nsn) {
		return false
	}
	for i := range r.types {
		if r.types[i].matches(nsn) {
			return true
		}
	}
	return false
}

// testNumberLength is libphonenumber's testNumberLength for the UNKNOWN
// type: the general description's lengths.
func (r *phoneRegion) testNumberLength(number string) phoneValidation {
	if len(r.possible) == 0 {
		return phoneLengthUnknown
	}
	if r.possible[0] == -1 {
		return phoneInvalidLength
	}
	l := int32(len(number))
	for _, x := range r.localOnly {
		if x == l {
			return phoneLocalOnly
		}
	}
	switch {
	case r.possible[0] == l:
		return phoneIsPossible
	case r.possible[0] > l:
		return phoneTooShort
	case r.possible[len(r.possible)-1] < l:
		return phoneTooLong
	}
	for _, x := range r.possible[1:] {
		if x == l {
			return phoneIsPossible
		}
	}
	return phoneInvalidLength
}

// stripNationalPrefix is libphonenumber's
// maybeStripNationalPrefixAndCarrierCode without the carrier code.
func (r *phoneRegion) stripNationalPrefix(number string) string {
	if len(number) == 0 || r.natPrefix == nil {
		return number
	}
	groups := r.natPrefix.FindStringSubmatchIndex(number)
	if groups == nil {
		return number
	}
	viable := r.general.pattern.matchFull(number)
	numOfGroups := len(groups)/2 - 1
	if r.transform == "" || groups[numOfGroups*2] < 0 {
		if viable && !r.general.pattern.matchFull(number[groups[1]:]) {
			return number
		}
		return number[groups[1]:]
	}
	transformed := r.natPrefix.ReplaceAllString(number, r.transform)
	if viable && !r.general.pattern.matchFull(transformed) {
		return number
	}
	return transformed
}

// phoneCode is a calling code's regions, in libphonenumber's order (the
// main region first), built on first use.
type phoneCode struct {
	cc      int
	once    sync.Once
	regions []*phoneRegion
	ok      bool // every region built; false sends the code's numbers to the reference
}

func (c *phoneCode) load(t *phoneTables) *phoneCode {
	c.once.Do(func() {
		c.ok = true
		for _, id := range phonenumbers.GetRegionCodesForCountryCode(c.cc) {
			m := t.regionMeta[id]
			if id == "001" {
				m = t.nonGeoMeta[c.cc]
			}
			if m == nil {
				c.ok = false
				return
			}
			r, ok := newPhoneRegion(m)
			if !ok {
				c.ok = false
				return
			}
			c.regions = append(c.regions, r)
		}
		c.ok = len(c.regions) > 0
	})
	return c
}

// phoneTables holds the metadata by region and a phoneCode per calling
// code. Safe for concurrent use: the maps are read-only once built, each
// phoneCode builds under its sync.Once and is read-only after.
type phoneTables struct {
	regionMeta map[string]*phonenumbers.PhoneMetadata // supported regions only, as getMetadataForRegion
	nonGeoMeta map[int]*phonenumbers.PhoneMetadata
	codes      [1000]*phoneCode // nil: not a calling code
}

var phoneTablesOnce = sync.OnceValue(func() *phoneTables {
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return nil
	}
	t := &phoneTables{regionMeta: map[string]*phonenumbers.PhoneMetadata{}, nonGeoMeta: map[int]*phonenumbers.PhoneMetadata{}}
	supported := phonenumbers.GetSupportedRegions()
	for _, m := range coll.GetMetadata() {
		if m.GetId() == "001" {
			t.nonGeoMeta[int(m.GetCountryCode())] = m
		} else if supported[m.GetId()] {
			t.regionMeta[m.GetId()] = m
		}
	}
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		if cc > 0 && cc < len(t.codes) {
			t.codes[cc] = &phoneCode{cc: cc}
		}
	}
	return t
})

// code returns the loaded regions of calling code cc, or nil.
func (t *phoneTables) code(cc int) *phoneCode {
	if cc <= 0 || cc >= len(t.codes) || t.codes[cc] == nil {
		return nil
	}
	c := t.codes[cc].load(t)
	if !c.ok {
		return nil
	}
	return c
}

// region returns the phoneRegion of a supported region code, or nil.
func (t *phoneTables) region(id string) *phoneRegion {
	m := t.regionMeta[id]
	if m == nil {
		return nil
	}
	c := t.code(int(m.GetCountryCode()))
	if c == nil {
		return nil
	}
	for _, r := range c.regions {
		if r.id == id {
			return r
		}
	}
	return nil
}

// extractCountryCode is libphonenumber's: the first 1 to 3 digits that are
// a calling code, 0 when none is.
func (t *phoneTables) extractCountryCode(full string) (cc int, national string) {
	if len(full) == 0 || full[0] == '0' {
		return 0, ""
	}
	v := 0
	for i := 1; i <= 3 && i <= len(full); i++ {
		v = v*10 + int(full[i-1]-'0')
		if t.codes[v] != nil {
			return v, full[i:]
		}
	}
	return 0, ""
}

// isValid is libphonenumber's IsValidNumber for a number of calling code
// cc and national significant number nsn; ok is false when the tables
// cannot tell.
func (t *phoneTables) isValid(cc int, nsn string) (valid, ok bool) {
	c := t.code(cc)
	if c == nil {
		return false, false
	}
	var r *phoneRegion
	if len(c.regions) == 1 {
		r = c.regions[0]
	} else {
		for _, rg := range c.regions {
			if rg.leading != nil {
				if rg.leading.matchPrefix(nsn) {
					r = rg
					break
				}
			} else if rg.typeKnown(nsn) {
				r = rg
				break
			}
		}
	}
	if r == nil {
		return false, true
	}
	if r.id != "001" && r.cc != cc {
		return false, true
	}
	return r.typeKnown(nsn), true
}

// appendPhoneFast appends the E.164 digits of s and reports true when s is
// a plainly written number (see the comment at the top of this file) that
// appendPhoneReference would find valid and normalize to exactly these
// digits. false means undecided: dst is unchanged and the caller uses the
// reference.
func (n *Normalizer) appendPhoneFast(dst []byte, s string) ([]byte, bool) {
	var buf [20]byte
	nd := 0
	plus := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if nd == len(buf) {
				return dst, false
			}
			buf[nd] = c
			nd++
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')':
		case c == '+' && i == 0:
			plus = true
		default:
			return dst, false
		}
	}
	// Three digits or more make the text a viable number for the parser
	// whatever the separators between them; fewer are refused anyway.
	if nd < 3 {
		return dst, false
	}
	t := phoneTablesOnce()
	if t == nil {
		return dst, false
	}
	digits := string(buf[:nd])
	region := n.region
	if plus {
		region = ""
	} else if region == "" && nd != len(s) {
		// Without a default country, Parse refuses a number without '+'
		// and appendPhoneReference reads only digits-only text as E.164
		// without its '+'.
		return dst, false
	}
	cc, national, ok := t.parse(digits, region)
	if !ok {
		return dst, false
	}
	valid, ok := t.isValid(cc, national)
	if !ok {
		return dst, false
	}
	if !valid {
		// appendPhoneReference's second reading: digits-only text as E.164
		// without its '+', taken when valid.
		if region == "" || nd != len(s) {
			return dst, false
		}
		if cc, national, ok = t.parse(digits, ""); !ok {
			return dst, false
		}
		if valid, ok = t.isValid(cc, national); !valid || !ok {
			return dst, false
		}
	}
	dst = strconv.AppendInt(dst, int64(cc), 10)
	return append(dst, national...), true
}

// parse is libphonenumber's Parse of digits (the digits of a plainly
// written number, at least three) in region, "" for a number written with
// '+' (or digits-only text read as such): the calling code and the
// national significant number. ok is false for a parse error or whatever
// the tables cannot follow.
func (t *phoneTables) parse(digits, region string) (cc int, national string, ok bool) {
	var meta *phoneRegion // the parser's region metadata
	switch {
	case region == "":
		if len(digits) <= 2 {
			return 0, "", false
		}
		if cc, national = t.extractCountryCode(digits); cc == 0 {
			return 0, "", false
		}
	default:
		def := t.region(region)
		if def == nil {
			return 0, "", false
		}
		if loc := def.idd.FindStringIndex(digits); loc != nil && (loc[1] == len(digits) || digits[loc[1]] != '0') {
			// A number dialled with the default country's international
			// prefix.
			rest := digits[loc[1]:]
			if len(rest) <= 2 {
				return 0, "", false
			}
			if cc, national = t.extractCountryCode(rest); cc == 0 {
				return 0, "", false
			}
			break
		}
		if len(digits) > len(def.ccStr) && digits[:len(def.ccStr)] == def.ccStr {
			// The default country's calling code without '+': kept as such
			// when the rest is of the country's form and the whole is not,
			// or the whole is too long.
			pot := def.stripNationalPrefix(digits[len(def.ccStr):])
			fullValid := def.general.pattern.matchFull(digits)
			nationalValid := def.general.pattern.matchFull(pot)
			lv := def.testNumberLength(digits)
			if lv == phoneLengthUnknown {
				return 0, "", false
			}
			if (!fullValid && nationalValid) || lv == phoneTooLong {
				cc, national = def.cc, pot
			}
		} else if digits == def.ccStr {
			return 0, "", false // the code alone: leave the corner to the reference
		}
		if cc == 0 {
			cc, national, meta = def.cc, digits, def
		}
	}
	if meta == nil {
		c := t.code(cc)
		if c == nil {
			return 0, "", false
		}
		meta = c.regions[0]
	}
	if len(national) < 2 {
		return 0, "", false
	}
	pot := meta.stripNationalPrefix(national)
	switch meta.testNumberLength(pot) {
	case phoneLengthUnknown:
		return 0, "", false
	case phoneTooShort, phoneLocalOnly, phoneInvalidLength:
	default:
		national = pot
	}
	if len(national) < 2 || len(national) > 17 {
		return 0, "", false
	}
	for i := 0; i < len(national); i++ {
		if national[i] < '0' || national[i] > '9' {
			return 0, "", false // a transform rule wrote something else
		}
	}
	return cc, national, true
}
