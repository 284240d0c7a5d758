package stats

import "testing"

// QueryFromJSON reads a stats_jobs row's query, for tests.
func QueryFromJSON(t testing.TB, raw []byte) Query {
	t.Helper()
	q, err := unmarshalQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// DateOf is t's calendar date as a UTC midnight, for tests.
var DateOf = dateOf
