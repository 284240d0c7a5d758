package insights

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Limits of the keyword insights endpoint (spec document 2, Limits).
const (
	// MaxSpan is the longest time span one request may cover.
	MaxSpan = 7 * 24 * time.Hour
	// MaxKeywords is the number of keywords and negative keywords one
	// request may carry, combined.
	MaxKeywords = 10
)

// Granularities of the volume series.
const (
	Day  = "DAY"
	Hour = "HOUR"
)

// ErrSetRejected marks a keyword set that no valid requests can express.
var ErrSetRejected = errors.New("keyword set rejected")

// KeywordSet is one configured set of keywords.
type KeywordSet struct {
	Name             string
	Keywords         []string
	NegativeKeywords []string
	// Location is one country-level targeting value; empty means worldwide.
	Location string
	// Granularity is DAY or HOUR (empty means DAY).
	Granularity string
}

// Step returns the length of one bucket of the set's granularity.
func (s KeywordSet) Step() time.Duration {
	if s.Granularity == Hour {
		return time.Hour
	}
	return 24 * time.Hour
}

// Group is one request's keywords: a slice of the set's positive keywords
// with all of its negatives.
type Group struct {
	Keywords         []string
	NegativeKeywords []string
}

// Hash names the group stably (the same keywords in any order and case give
// the same hash), so stored rows of a group can be told apart.
func (g Group) Hash() string {
	h := sha256.New()
	for _, k := range g.Keywords {
		h.Write([]byte(strings.ToLower(k)))
		h.Write([]byte{0})
	}
	h.Write([]byte{1})
	for _, k := range g.NegativeKeywords {
		h.Write([]byte(strings.ToLower(k)))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Normalize trims keywords, drops duplicates (case-insensitively, the first
// spelling kept), defaults the granularity to DAY and checks every field.
// Errors name the set.
func (s KeywordSet) Normalize() (KeywordSet, error) {
	out := s
	out.Name = strings.TrimSpace(s.Name)
	if out.Name == "" {
		return out, errors.New("keyword set: name is empty")
	}
	var err error
	if out.Keywords, err = cleanKeywords(out.Name, "keywords", s.Keywords); err != nil {
		return out, err
	}
	if len(out.Keywords) == 0 {
		return out, fmt.Errorf("keyword set %q: keywords is empty", out.Name)
	}
	if out.NegativeKeywords, err = cleanKeywords(out.Name, "negative_keywords", s.NegativeKeywords); err != nil {
		return out, err
	}
	out.Location = strings.TrimSpace(s.Location)
	if strings.Contains(out.Location, ",") {
		// Results are for one country (spec: Limits).
		return out, fmt.Errorf("keyword set %q: location %q: one country-level value only", out.Name, out.Location)
	}
	switch g := strings.ToUpper(strings.TrimSpace(s.Granularity)); g {
	case "":
		out.Granularity = Day
	case Day, Hour:
		out.Granularity = g
	default:
		return out, fmt.Errorf("keyword set %q: granularity %q: must be DAY or HOUR", out.Name, s.Granularity)
	}
	return out, nil
}

func cleanKeywords(set, field string, in []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, k := range in {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if strings.Contains(k, ",") {
			// The parameter is comma-separated: a comma would split the keyword.
			return nil, fmt.Errorf("keyword set %q: %s: %q contains a comma", set, field, k)
		}
		if !seen[strings.ToLower(k)] {
			seen[strings.ToLower(k)] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// Groups splits a normalized set into requests within MaxKeywords. Keywords
// are OR-ed, so requests over disjoint groups of positive keywords, each
// carrying every negative, together mean what the set means. Negatives
// cannot be split the same way (a request with only some of them would count
// posts the others exclude), so a set whose negatives leave no room for a
// keyword is rejected.
func (s KeywordSet) Groups() ([]Group, error) {
	room := MaxKeywords - len(s.NegativeKeywords)
	if room < 1 {
		return nil, fmt.Errorf("%w: keyword set %q has %d negative keywords; a request holds at most %d keywords and negatives combined, so at most %d negatives fit beside a keyword, and splitting negatives across requests would change the set's meaning",
			ErrSetRejected, s.Name, len(s.NegativeKeywords), MaxKeywords, MaxKeywords-1)
	}
	var out []Group
	for i := 0; i < len(s.Keywords); i += room {
		end := min(i+room, len(s.Keywords))
		out = append(out, Group{Keywords: s.Keywords[i:end:end], NegativeKeywords: s.NegativeKeywords})
	}
	return out, nil
}

// Window is a half-open time range [Start, End) of at most MaxSpan.
type Window struct {
	Start, End time.Time
}

// Align rounds t down to the UTC boundary of step (an hour or a day). The
// service's buckets start on these boundaries, so aligned windows make the
// i-th value's bucket exactly Start + i*step. Durations since the Unix epoch
// count no leap seconds and UTC has no daylight saving, so truncation is
// exact.
func Align(t time.Time, step time.Duration) time.Time {
	return t.UTC().Truncate(step)
}

// Windows splits [start, end) into consecutive windows of at most MaxSpan,
// the first starting at start aligned to step; every window but the last
// spans exactly MaxSpan. A range of exactly MaxSpan is one window.
func Windows(start, end time.Time, step time.Duration) ([]Window, error) {
	start = Align(start, step)
	end = end.UTC()
	if !end.After(start) {
		return nil, fmt.Errorf("insights: end %s is not after start %s", end.Format(time.RFC3339), start.Format(time.RFC3339))
	}
	var out []Window
	for s := start; s.Before(end); s = s.Add(MaxSpan) {
		out = append(out, Window{Start: s, End: minTime(s.Add(MaxSpan), end)})
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
