package config

import (
	"fmt"
	"slices"
	"strings"
)

// otherEnvNames are the ADSYNC_* variables read besides the settings':
// the configuration file's path, and those of tests, benchmarks and their
// helpers. KnownEnvNames is the one list; a test checks it against the code.
var otherEnvNames = []string{
	"ADSYNC_CONFIG",
	"ADSYNC_TEST_DATABASE_URL", "ADSYNC_TEST_NOW", "ADSYNC_FAKE_ANCHOR", "ADSYNC_FAKE_LOCATIONS", "ADSYNC_TEST_AS_MAIN", "ADSYNC_TEST_BINARY",
	"ADSYNC_VERSITYGW", "ADSYNC_LOCALPG_CHILD_DIR", "ADSYNC_LOCALPG_SHARED_CHILD",
	"ADSYNC_BENCH_ROWS", "ADSYNC_BENCH_FAKE", "ADSYNC_BENCH_PROFILE", "ADSYNC_BENCH_PERF", "ADSYNC_CRM_ROWS", "ADSYNC_RSS_ROWS", "ADSYNC_RSS_DB", "ADSYNC_RSS_OUT", "ADSYNC_RSS_FILE", "ADSYNC_RSS_QUERY",
	"ADSYNC_EXPORT_RSS_CHILD", "ADSYNC_AUDIENCE_RSS_CHILD",
}

// KnownEnvNames lists every ADSYNC_* environment variable adsync or its
// tests read, sorted.
func KnownEnvNames() []string {
	out := slices.Clone(otherEnvNames)
	for _, s := range settings {
		out = append(out, s.env)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// UnknownEnv warns of each ADSYNC_* variable in environ (KEY=VALUE
// entries, as os.Environ gives them) that adsync does not read, naming the
// nearest known name when one is close: "ADSYNC_ADS_ULR: unknown; did you
// mean ADSYNC_ADS_URL?". Values are never part of a warning.
func UnknownEnv(environ []string) []string {
	known := KnownEnvNames()
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "ADSYNC_") || slices.Contains(known, name) {
			continue
		}
		w := name + ": unknown"
		if near, d := nearest(name, known); d <= max(2, len(name)/5) {
			w += "; did you mean " + near + "?"
		} else {
			w += fmt.Sprintf(" (adsync reads %s)", strings.Join(EnvNames(), ", "))
		}
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// nearest is the name in names closest to s and its edit distance.
func nearest(s string, names []string) (string, int) {
	best, bestD := "", -1
	for _, n := range names {
		if d := editDistance(s, n); bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	return best, bestD
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of adjacent characters.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
