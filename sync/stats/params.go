package stats

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// jobParams are a request's parameters as the service echoes them: in a
// job record and in the request.params of a stats answer (a job's file
// too).
type jobParams struct {
	AccountID        string   `json:"account_id"`
	Entity           string   `json:"entity"`
	EntityIDs        textList `json:"entity_ids"`
	StartTime        string   `json:"start_time"`
	EndTime          string   `json:"end_time"`
	Granularity      string   `json:"granularity"`
	Placement        string   `json:"placement"`
	MetricGroups     textList `json:"metric_groups"`
	SegmentationType *string  `json:"segmentation_type"`
	Country          *string  `json:"country"`
	Platform         *string  `json:"platform"`
}

// textList is a list parameter as echoed: a JSON array, or the
// comma-separated string the request sent.
type textList []string

// UnmarshalJSON reads an array of strings, a comma-separated string or null.
func (l *textList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = nil
		if s != "" {
			*l = strings.Split(s, ",")
		}
		return nil
	}
	var xs []string
	if err := json.Unmarshal(b, &xs); err != nil {
		return fmt.Errorf("want a list of strings: %w", err)
	}
	*l = xs
	return nil
}

// deref is *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// sameSet says whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// sameInstant says whether two ISO 8601 times are the same instant.
func sameInstant(a, b string) bool {
	ta, ea := time.Parse(time.RFC3339, a)
	tb, eb := time.Parse(time.RFC3339, b)
	return ea == nil && eb == nil && ta.Equal(tb)
}

// differs names the parameters of p that are not those asked (asked are
// the values a request sent to account accountID); none when p is the
// request asked for. The account and metric groups are compared only when
// the echo gives them (the spec's job record does not list account_id).
func (p jobParams) differs(accountID string, asked url.Values) []string {
	var out []string
	check := func(name string, same bool) {
		if !same {
			out = append(out, name)
		}
	}
	check("account_id", p.AccountID == "" || p.AccountID == accountID)
	check("entity", p.Entity == asked.Get("entity"))
	check("entity_ids", sameSet(p.EntityIDs, strings.Split(asked.Get("entity_ids"), ",")))
	check("placement", p.Placement == asked.Get("placement"))
	check("granularity", p.Granularity == asked.Get("granularity"))
	check("segmentation_type", deref(p.SegmentationType) == asked.Get("segmentation_type"))
	check("country", deref(p.Country) == asked.Get("country"))
	check("platform", deref(p.Platform) == asked.Get("platform"))
	check("start_time", sameInstant(p.StartTime, asked.Get("start_time")))
	check("end_time", sameInstant(p.EndTime, asked.Get("end_time")))
	check("metric_groups", len(p.MetricGroups) == 0 || sameSet(p.MetricGroups, strings.Split(asked.Get("metric_groups"), ",")))
	return out
}

// values are p in the form of the request's values, to describe it.
func (p jobParams) values() url.Values {
	v := url.Values{}
	v.Set("entity", p.Entity)
	v.Set("entity_ids", strings.Join(p.EntityIDs, ","))
	v.Set("start_time", p.StartTime)
	v.Set("end_time", p.EndTime)
	v.Set("granularity", p.Granularity)
	v.Set("placement", p.Placement)
	v.Set("metric_groups", strings.Join(p.MetricGroups, ","))
	v.Set("segmentation_type", deref(p.SegmentationType))
	v.Set("country", deref(p.Country))
	v.Set("platform", deref(p.Platform))
	return v
}

// describeValues names a request's parameters in one line.
func describeValues(accountID string, v url.Values) string {
	s := fmt.Sprintf("account %s %s %s on %s, %s, %s to %s", cmp.Or(accountID, "?"), cmp.Or(v.Get("entity"), "?"),
		cmp.Or(v.Get("entity_ids"), "no ids"), cmp.Or(v.Get("placement"), "?"), cmp.Or(v.Get("granularity"), "?"),
		cmp.Or(v.Get("start_time"), "?"), cmp.Or(v.Get("end_time"), "?"))
	if seg := v.Get("segmentation_type"); seg != "" {
		s += " by " + strings.TrimSuffix(strings.Join([]string{seg, v.Get("country"), v.Get("platform")}, " "), " ")
	}
	if g := v.Get("metric_groups"); g != "" {
		s += ", groups " + g
	}
	return s
}

// MismatchError is an answer that is not the one asked for: a job whose
// parameters are not the request's, or stats of an entity id or type the
// request did not ask for. Nothing of it is stored. No retry changes the
// answer of that job or request, so it is permanent: the request is given
// up and named missing rather than stored wrong.
type MismatchError struct {
	// What says what disagreed ("stats job 123", "the stats answer").
	What string
	// Asked and Got describe the request and what the answer says.
	Asked, Got string
	// Fields name what differs.
	Fields []string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s is not the request asked for (%s differ): asked for %s; it says %s",
		e.What, strings.Join(e.Fields, ", "), e.Asked, e.Got)
}

// Permanent says no retry changes the answer.
func (e *MismatchError) Permanent() bool { return true }

// checkParams returns a *MismatchError when p is not the request asked
// (sent to accountID), naming both.
func checkParams(what, accountID string, asked url.Values, p jobParams) error {
	fields := p.differs(accountID, asked)
	if len(fields) == 0 {
		return nil
	}
	return &MismatchError{What: what, Asked: describeValues(accountID, asked),
		Got: describeValues(cmp.Or(p.AccountID, accountID), p.values()), Fields: fields}
}
