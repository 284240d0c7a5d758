package stats

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// answerSeeds are stats answers of the usual shape and the departures from
// it the fast reader must leave to encoding/json (or read as it does).
var answerSeeds = []string{
	`{"data_type":"stats","time_series_length":2,"data":[{"id":"c1","id_data":[{"segment":null,"metrics":{"impressions":[1,null],"engagements":null,"conversion_purchases":{"post_view":[1,2],"sale_amount":null}}}]}],"request":{"params":{"account_id":"a1","entity":"CAMPAIGN","entity_ids":["c1"],"start_time":"2026-03-01T00:00:00Z","end_time":"2026-03-03T00:00:00Z","granularity":"DAY","placement":"ALL_ON_SVC","metric_groups":["ENGAGEMENT"]}}}`,
	`{"time_series_length":1,"data":[{"id":"li1","id_data":[{"segment":{"segment_name":"Age 13 to 24","segment_value":"AGE_13_TO_24"},"metrics":{"impressions":[5]}},{"segment":{"segment_name":"Füße","segment_value":"x"},"metrics":{}}]}]}`,
	` { "time_series_length" : 3 , "data" : [ ] , "request" : null } `,
	`{"request":{"params":null},"data":[],"time_series_length":0}`,
	`{"request":{"params":{"entity_ids":"a,b","metric_groups":"ENGAGEMENT"}},"data":[]}`,
	`{"request":{"params":{"entity_ids":[],"metric_groups":"","country":"x","extra":[1,{"a":null}]}}}`,
	`{"request":{"params":{"segmentation_type":null,"entity_ids":null,"Entity":"X"}}}`,
	`{"request":{"params":{"entity":"A","entity":"B"}}}`, `{"request":{"params":{"entity_ids":["a",1]}}}`,
	`null`, `[]`, `{}`, ``, `{`, `{"data":[}`, `{"data":[]}x`, `{"data":[]} `,
	// Escapes, case folding, repeats, nulls and types where the fast
	// reader gives up.
	`{"data":[{"id":"c\u0031","id_data":[]}]}`,
	`{"data":[{"ID":"c1","id_data":[]}]}`,
	`{"Data":[{"id":"c1"}]}`,
	`{"ſegment":1,"data":[{"id":"c1","id_data":[{"ſegment":{"segment_name":"x"}}]}]}`,
	`{"data":[{"id":"c1","id_data":[{"metrics":{"impressions":[1],"impressions":null}}]}]}`,
	`{"data":[{"id":"c1","id":"c2","id_data":[]}]}`,
	`{"data":null}`, `{"data":[null]}`, `{"data":[{"id":null}]}`, `{"data":[{"id":1}]}`,
	`{"data":[{"id":"c1","id_data":[{"segment":{"segment_name":null}}]}]}`,
	`{"data":[{"id":"c1","id_data":[{"metrics":null}]}]}`,
	`{"time_series_length":1.0}`, `{"time_series_length":1e1}`, `{"time_series_length":-0}`,
	`{"time_series_length":99999999999999999999}`, `{"time_series_length":"2"}`, `{"time_series_length":01}`,
	`{"request":{"params":[]}}`, `{"request":{"params":{"entity_ids":5}}}`, `{"request":"x"}`,
	`{"data":[{"id":"c1","id_data":[{"metrics":{"x":{"a":[1,2]},"y":"s\n"}}]}]}`,
	"{\"data\":[{\"id\":\"c\xff\",\"id_data\":[]}]}",
	`{"extra":{"a":[1,{"b":"\"\\\/\b\f\n\r\t\u00e9"}],"c":true,"d":false,"e":null,"f":-1.5e-3}}`,
	`{"extra":"\x"}`, `{"extra":"\u12"}`, `{"extra":tru}`, `{"extra":-}`, `{"extra":1.}`, `{"extra":1e}`,
	`{"extra":[[[[[[[[[[]]]]]]]]]]}`, `{"extra":[1,]}`, `{"extra":{"a":1,}}`, `{"extra":{1:2}}`,
}

// conversionSeeds are metric objects of members.
var conversionSeeds = []string{
	`{"post_view":[1,2],"post_engagement":null}`, `{}`, ` { "a" : [ ] } `, `{"a":[1],"a":[2]}`,
	`{"a":[1.5]}`, `{"a":"x"}`, `{"a":[1]}x`, `{"a\n":[1]}`, `{"a":[1]`, `null`, `[1]`,
}

// The fast reader of a stats answer reads exactly what encoding/json reads,
// and leaves to it whatever it does not (FuzzAnswer explores beyond these).
func TestAnAnswerReadsAsEncodingJSONReadsIt(t *testing.T) {
	t.Parallel()
	fast := 0
	for _, in := range answerSeeds {
		if requireAnswerAsEncodingJSON(t, []byte(in)) {
			fast++
		}
	}
	require.GreaterOrEqual(t, fast, 5, "the usual answers take the fast path")
	deep := `{"extra":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`
	_, ok := scanAnswer([]byte(deep))
	require.False(t, ok, "nesting past maxDepth is left to encoding/json")
	for _, in := range conversionSeeds {
		requireMembersAsEncodingJSON(t, []byte(in))
	}
}

func FuzzAnswer(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add([]byte(s))
	}
	for _, s := range conversionSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		requireAnswerAsEncodingJSON(t, in)
		requireMembersAsEncodingJSON(t, in)
	})
}

// requireAnswerAsEncodingJSON checks the fast reader against
// encoding/json on in and reports whether the fast reader took it.
func requireAnswerAsEncodingJSON(t *testing.T, in []byte) bool {
	t.Helper()
	got, ok := scanAnswer(in)
	if !ok {
		return false
	}
	want, err := unmarshalAnswer(in)
	require.NoError(t, err, "the fast reader took %q, which encoding/json refuses", in)
	sortMetrics := func(a answer) answer {
		for _, d := range a.data {
			for _, s := range d.idData {
				slices.SortFunc(s.metrics, func(x, y answerMetric) int { return strings.Compare(x.name, y.name) })
			}
		}
		return a
	}
	require.Equal(t, normalize(sortMetrics(want)), normalize(sortMetrics(got)), "%q", in)
	return true
}

// normalize makes empty and nil lists alike (encoding/json keeps [] as an
// empty slice, the fast reader as nil) and raw messages comparable.
func normalize(a answer) answer {
	if len(a.data) == 0 {
		a.data = nil
	}
	for i := range a.data {
		if len(a.data[i].idData) == 0 {
			a.data[i].idData = nil
		}
		for j := range a.data[i].idData {
			s := &a.data[i].idData[j]
			if len(s.metrics) == 0 {
				s.metrics = nil
			}
			for k := range s.metrics {
				s.metrics[k].raw = append([]byte(nil), s.metrics[k].raw...)
			}
		}
	}
	return a
}

// requireMembersAsEncodingJSON checks scanMembers against encoding/json
// reading a map[string][]*int64.
func requireMembersAsEncodingJSON(t *testing.T, in []byte) {
	t.Helper()
	members, series, ok := scanMembers(in)
	if !ok {
		return
	}
	var want map[string][]*int64
	require.NoError(t, json.Unmarshal(in, &want), "scanMembers took %q, which encoding/json refuses", in)
	got := map[string][]*int64{}
	for k, m := range members {
		got[m] = series[k]
	}
	require.Equal(t, len(want), len(got), "%q", in)
	for m, xs := range want {
		require.Equal(t, xs, got[m], "%q member %s", in, m)
	}
}
