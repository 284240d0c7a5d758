package stats

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A metric's series decodes exactly as encoding/json decodes it into a
// []*int64: the same values and nulls, and an error for the same inputs.
func TestASeriesDecodesAsEncodingJSONDecodesIt(t *testing.T) {
	t.Parallel()
	cases := []string{
		`[]`, ` [ ] `, `[0]`, `[null]`, `[1,2,3]`, `[ -5 , null,7 ]`, "[1,\n\t2]",
		`[9223372036854775807]`, `[-9223372036854775808]`, `[-0]`,
		// Left to encoding/json, which refuses them or reads them its way.
		`[9223372036854775808]`, `[1.5]`, `[1e3]`, `[01]`, `[-]`, `[1,]`, `[,1]`, `[1 2]`, `[nul]`, `[1]x`,
		`["1"]`, `{}`, `[true]`, `[`, `]`, ``, `null`, `[1,null,nullx]`, `[1.0]`, `[2E1]`,
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 500 {
		var b strings.Builder
		b.WriteString("[")
		for i := range rng.IntN(40) {
			if i > 0 {
				b.WriteString([]string{",", " ,", ", ", ",\n"}[rng.IntN(4)])
			}
			switch rng.IntN(5) {
			case 0:
				b.WriteString("null")
			case 1:
				b.WriteString("0")
			default:
				n := rng.Int64() >> rng.IntN(63)
				if rng.IntN(2) == 0 {
					n = -n
				}
				b.WriteString(itoa(n))
			}
		}
		b.WriteString("]")
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		var want, got []*int64
		wantErr := json.Unmarshal([]byte(c), &want)
		gotErr := decodeSeries([]byte(c), &got)
		if wantErr != nil {
			require.Error(t, gotErr, "%q", c)
			continue
		}
		require.NoError(t, gotErr, "%q", c)
		require.Equal(t, want, got, "%q", c)
	}
	fast, ok := scanSeries([]byte(`[1, null, -3]`))
	require.True(t, ok, "a plain series takes the fast path")
	require.Len(t, fast, 3)
	require.Nil(t, fast[1])
	require.EqualValues(t, -3, *fast[2])
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
