package bound

import (
	"fmt"
	"strconv"
	"strings"
)

// Max is at most a count, at most a percentage of a whole, or no bound.
// The zero Max is unset: Or replaces it with a default.
type Max struct {
	set  bool
	none bool
	pct  bool
	// n is the count, or the percentage in hundredths of a percent (fixed
	// point, so 29% of 100 is 29, never 28.999...).
	n int64
}

// Count is at most n.
func Count(n int64) Max { return Max{set: true, n: n} }

// Percent is at most p percent of the whole, rounded down to a count.
func Percent(p int64) Max { return Max{set: true, pct: true, n: p * 100} }

// None is no bound at all.
func None() Max { return Max{set: true, none: true} }

// Parse reads N (a count), P% (a percentage of the whole, up to two
// decimals, at most 100%) or -1 (no bound).
func Parse(s string) (Max, error) {
	s = strings.TrimSpace(s)
	if s == "-1" {
		return None(), nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		whole, frac, _ := strings.Cut(p, ".")
		if whole == "" || len(frac) > 2 || strings.ContainsAny(whole+frac, "+-") {
			return Max{}, fmt.Errorf("%q: want N, P%% (up to two decimals) or -1", s)
		}
		frac += strings.Repeat("0", 2-len(frac))
		n, err := strconv.ParseInt(whole+frac, 10, 64)
		if err != nil || n > 100_00 {
			return Max{}, fmt.Errorf("%q: want a percentage from 0%% to 100%%", s)
		}
		return Max{set: true, pct: true, n: n}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return Max{}, fmt.Errorf("%q: want N, P%% or -1 (no bound)", s)
	}
	return Count(n), nil
}

// IsSet reports whether m was given (the zero Max is not).
func (m Max) IsSet() bool { return m.set }

// Or returns m, or def when m is unset.
func (m Max) Or(def Max) Max {
	if !m.set {
		return def
	}
	return m
}

// Limit is the largest count m allows out of whole, and false when m sets no
// limit. An unset Max allows nothing: callers apply their default with Or.
func (m Max) Limit(whole int64) (int64, bool) {
	switch {
	case m.none:
		return 0, false
	case m.pct:
		// whole*n/10000 rounded down, split so that no product overflows.
		return whole/100_00*m.n + whole%100_00*m.n/100_00, true
	default:
		return m.n, true
	}
}

// Allows reports whether n out of whole is within m.
func (m Max) Allows(n, whole int64) bool {
	limit, ok := m.Limit(whole)
	return !ok || n <= limit
}

// String writes m as Parse reads it.
func (m Max) String() string {
	switch {
	case !m.set:
		return ""
	case m.none:
		return "-1"
	case !m.pct:
		return strconv.FormatInt(m.n, 10)
	case m.n%100 == 0:
		return strconv.FormatInt(m.n/100, 10) + "%"
	default:
		return strings.TrimRight(fmt.Sprintf("%d.%02d", m.n/100, m.n%100), "0") + "%"
	}
}

// Describe is m for a message about a whole: "10% (961)", "50", "none".
func (m Max) Describe(whole int64) string {
	limit, ok := m.Limit(whole)
	switch {
	case !ok:
		return "none"
	case m.pct:
		return fmt.Sprintf("%s (%d)", m, limit)
	default:
		return m.String()
	}
}

// Set parses s into m (m is a command-line flag value).
func (m *Max) Set(s string) error {
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Type names the flag's values in help.
func (m *Max) Type() string { return "N|P%" }
