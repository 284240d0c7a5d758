package stats

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A stats answer is read without reflection when it has the usual shape,
// and by encoding/json otherwise. The answer's bulk is the metric arrays;
// decoding it into structs and a map of raw messages cost more CPU than
// storing the rows (a tenth of a stats pull's). The fast reader accepts
// only what it reads exactly as encoding/json would, and gives up on
// anything else: a string with an escape or invalid UTF-8, a key that
// differs from a field's only in case, a repeated key, a null or a type
// where the struct expects another, a number that is not a plain integer,
// deeper nesting than encoding/json allows. encoding/json then reads the
// whole answer, so its result or error is the answer's (FuzzAnswer
// compares the two).

// answer is a stats answer (or job file) as Decode uses it.
type answer struct {
	params *jobParams // request.params; nil when absent or null
	length int        // time_series_length
	data   []answerID
}

// answerID is one entity's entry of data.
type answerID struct {
	id     string
	idData []answerSegment
}

// answerSegment is one entry of id_data.
type answerSegment struct {
	segment     bool // a segment object was given (not null)
	name, value string
	metrics     []answerMetric
}

// answerMetric is one metric of metrics, undecoded.
type answerMetric struct {
	name string
	raw  []byte
}

// parseAnswer reads a stats answer: fast when it can, else with
// encoding/json.
func parseAnswer(body []byte) (answer, error) {
	if a, ok := scanAnswer(body); ok {
		return a, nil
	}
	return unmarshalAnswer(body)
}

// unmarshalAnswer reads a stats answer with encoding/json.
func unmarshalAnswer(body []byte) (answer, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return answer{}, err
	}
	a := answer{length: r.TimeSeriesLength}
	if r.Request != nil {
		a.params = r.Request.Params
	}
	for _, d := range r.Data {
		ad := answerID{id: d.ID}
		for _, idd := range d.IDData {
			as := answerSegment{segment: idd.Segment != nil}
			if idd.Segment != nil {
				as.name, as.value = idd.Segment.Name, idd.Segment.Value
			}
			for name, raw := range idd.Metrics {
				as.metrics = append(as.metrics, answerMetric{name, raw})
			}
			ad.idData = append(ad.idData, as)
		}
		a.data = append(a.data, ad)
	}
	return a, nil
}

// scanner reads JSON from b at i. Its methods report false for anything
// the fast reader leaves to encoding/json.
type scanner struct {
	b     []byte
	i     int
	depth int
}

// maxDepth bounds the nesting the fast reader skips, well below
// encoding/json's limit (10,000 levels), whose error is then its own.
const maxDepth = 1000

func (s *scanner) space() { s.i = skipSpace(s.b, s.i) }

// next skips whitespace and reports whether the next byte is c, taking it
// when it is.
func (s *scanner) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal takes lit (null, true or false) when it is next.
func (s *scanner) literal(lit string) bool {
	s.space()
	if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		s.i += len(lit)
		return true
	}
	return false
}

// null takes a null literal when one is next.
func (s *scanner) null() bool { return s.literal("null") }

// rawValue takes one value of any kind (see skip) and returns its bytes.
func (s *scanner) rawValue() ([]byte, bool) {
	s.space()
	start := s.i
	ok := s.skip()
	return s.b[start:s.i], ok
}

// plainString reads a string without escapes or control characters, in
// valid UTF-8: one whose text is its bytes.
func (s *scanner) plainString() (string, bool) {
	if !s.next('"') {
		return "", false
	}
	start := s.i
	ascii := true
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(raw) {
				return "", false
			}
			return string(raw), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// object reads an object, calling member for each key with the scanner at
// its value; member reads the value and reports whether it could.
func (s *scanner) object(member func(key string) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		key, ok := s.plainString()
		if !ok || !s.next(':') || !member(key) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// array reads an array, calling elem with the scanner at each element.
func (s *scanner) array(elem func() bool) bool {
	if !s.next('[') {
		return false
	}
	if s.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// structObject reads an object that encoding/json would read into a
// struct with fields names: read(n) reads the value of names[n], and an
// unknown key's value is skipped. A repeated field, or a key that matches
// a field only by case folding (as encoding/json matches it), is left to
// encoding/json.
func (s *scanner) structObject(names []string, read func(n int) bool) bool {
	var seen uint64
	return s.object(func(key string) bool {
		for n, name := range names {
			if key == name {
				if seen&(1<<n) != 0 {
					return false
				}
				seen |= 1 << n
				return read(n)
			}
		}
		for _, name := range names {
			if strings.EqualFold(key, name) {
				return false
			}
		}
		return s.skip()
	})
}

// scanAnswer is the fast reader of a whole answer.
func scanAnswer(body []byte) (answer, bool) {
	s := &scanner{b: body}
	var a answer
	ok := s.structObject([]string{"request", "time_series_length", "data"}, func(n int) bool {
		switch n {
		case 0:
			return s.request(&a)
		case 1:
			return s.length(&a.length)
		}
		return s.array(func() bool {
			d, ok := s.entity()
			a.data = append(a.data, d)
			return ok
		})
	})
	s.space()
	return a, ok && s.i == len(s.b)
}

// request reads request: null, or an object whose params is null or
// jobParams (read by encoding/json when params does not suit the fast
// reader).
func (s *scanner) request(a *answer) bool {
	if s.null() {
		return true
	}
	return s.structObject([]string{"params"}, func(int) bool {
		if s.null() {
			return true
		}
		s.space()
		start := s.i
		p, ok := s.params()
		if !ok {
			// Read again by encoding/json, into a fresh jobParams: what
			// the fast reader filled before it gave up is not kept.
			s.i = start
			p = jobParams{}
			raw, ok := s.rawValue()
			if !ok || json.Unmarshal(raw, &p) != nil {
				return false
			}
		}
		a.params = &p
		return true
	})
}

// params reads request.params when each value is a plain string (an array
// of them, or a comma-separated one, for a list).
func (s *scanner) params() (jobParams, bool) {
	var p jobParams
	strs := []*string{&p.AccountID, &p.Entity, &p.StartTime, &p.EndTime, &p.Granularity, &p.Placement}
	opts := []**string{&p.SegmentationType, &p.Country, &p.Platform}
	lists := []*textList{&p.EntityIDs, &p.MetricGroups}
	names := []string{"account_id", "entity", "start_time", "end_time", "granularity", "placement",
		"segmentation_type", "country", "platform", "entity_ids", "metric_groups"}
	ok := s.structObject(names, func(n int) bool {
		switch {
		case n < len(strs):
			v, ok := s.plainString()
			*strs[n] = v
			return ok
		case n < len(strs)+len(opts):
			v, ok := s.plainString()
			*opts[n-len(strs)] = &v
			return ok
		}
		l := lists[n-len(strs)-len(opts)]
		s.space()
		if s.i < len(s.b) && s.b[s.i] == '"' {
			v, ok := s.plainString()
			*l = nil
			if v != "" {
				*l = strings.Split(v, ",")
			}
			return ok
		}
		xs := textList{}
		ok := s.array(func() bool {
			v, ok := s.plainString()
			xs = append(xs, v)
			return ok
		})
		*l = xs
		return ok
	})
	return p, ok
}

// length reads an integer into n (a number of another form, or past an
// int, is left to encoding/json).
func (s *scanner) length(n *int) bool {
	raw, ok := s.rawValue()
	if !ok {
		return false
	}
	v, err := strconv.Atoi(string(raw))
	*n = v
	return err == nil
}

// entity reads one element of data.
func (s *scanner) entity() (answerID, bool) {
	var d answerID
	ok := s.structObject([]string{"id", "id_data"}, func(n int) bool {
		if n == 0 {
			id, ok := s.plainString()
			d.id = id
			return ok
		}
		return s.array(func() bool {
			seg, ok := s.segmentEntry()
			d.idData = append(d.idData, seg)
			return ok
		})
	})
	return d, ok
}

// segmentEntry reads one element of id_data.
func (s *scanner) segmentEntry() (answerSegment, bool) {
	var as answerSegment
	ok := s.structObject([]string{"segment", "metrics"}, func(n int) bool {
		if n == 0 {
			return s.segment(&as)
		}
		return s.metrics(&as)
	})
	return as, ok
}

// segment reads segment: null or {segment_name, segment_value}.
func (s *scanner) segment(as *answerSegment) bool {
	if s.null() {
		return true
	}
	as.segment = true
	return s.structObject([]string{"segment_name", "segment_value"}, func(n int) bool {
		v, ok := s.plainString()
		if n == 0 {
			as.name = v
		} else {
			as.value = v
		}
		return ok
	})
}

// metrics reads metrics, an object of any values, kept undecoded; a
// repeated name is left to encoding/json (its map keeps the last).
func (s *scanner) metrics(as *answerSegment) bool {
	return s.object(func(key string) bool {
		for _, m := range as.metrics {
			if m.name == key {
				return false
			}
		}
		raw, ok := s.rawValue()
		as.metrics = append(as.metrics, answerMetric{key, raw})
		return ok
	})
}

// skip takes one JSON value of any kind, checking its syntax as
// encoding/json does.
func (s *scanner) skip() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		s.depth++
		defer func() { s.depth-- }()
		if s.depth > maxDepth {
			return false
		}
		if c == '[' {
			return s.array(s.skip)
		}
		return s.object(func(string) bool { return s.skip() })
	case c == '"':
		return s.skipString()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.skipNumber()
	}
	return s.literal("null") || s.literal("true") || s.literal("false")
}

// skipString takes a string, escapes included.
func (s *scanner) skipString() bool {
	s.i++ // the opening quote
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 6
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipNumber takes a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) skipNumber() bool {
	digits := func() bool {
		start := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		return s.i > start
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if !digits() {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !digits() {
			return false
		}
	}
	return true
}

// scanMembers reads a conversion metric's object of series (member to
// array or null) as encoding/json reads it into a map[string][]*int64; ok
// is false for anything it leaves to encoding/json, a repeated member
// included.
func scanMembers(raw []byte) (members []string, series [][]*int64, ok bool) {
	s := &scanner{b: raw}
	ok = s.object(func(key string) bool {
		if slices.Contains(members, key) {
			return false
		}
		var xs []*int64
		if !s.null() {
			raw, ok := s.rawValue()
			if !ok {
				return false
			}
			if xs, ok = scanSeries(raw); !ok {
				return false
			}
		}
		members, series = append(members, key), append(series, xs)
		return true
	})
	s.space()
	return members, series, ok && s.i == len(raw)
}
