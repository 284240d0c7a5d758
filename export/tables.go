package export

import (
	"fmt"
	"sort"
	"strings"
)

// registry holds every exportable table by name. Each source of data adds
// its tables here as it lands.
var registry = map[string]Table{}

// register adds t; a duplicate or invalid description is a programming error.
func register(t Table) {
	if err := t.Validate(); err != nil {
		panic(err)
	}
	if _, dup := registry[t.Name]; dup {
		panic("export: table " + t.Name + " registered twice")
	}
	registry[t.Name] = t
}

// Tables returns every exportable table, by name.
func Tables() []Table {
	out := make([]Table, 0, len(registry))
	for _, t := range registry {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Select returns the named tables (all when names is empty). An unknown
// name is an error listing the known ones.
func Select(names []string) ([]Table, error) {
	if len(names) == 0 {
		return Tables(), nil
	}
	var out []Table
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		t, ok := registry[n]
		if !ok {
			known := make([]string, 0, len(registry))
			for k := range registry {
				known = append(known, k)
			}
			sort.Strings(known)
			return nil, fmt.Errorf("unknown table %q (known: %s)", n, strings.Join(known, ", "))
		}
		seen[n] = true
		out = append(out, t)
	}
	return out, nil
}

func init() {
	register(Table{
		Name: "sync_runs", From: "sync_runs", ChangedAt: "coalesce(finished_at, started_at)", OrderBy: "id", Key: []string{"id"},
		Columns: []Column{
			{Name: "id", Kind: Int64},
			{Name: "pipeline", Kind: String},
			{Name: "trigger", Kind: String},
			{Name: "params", Kind: JSON},
			{Name: "started_at", Kind: Timestamp},
			{Name: "finished_at", Kind: Timestamp, Nullable: true},
			{Name: "outcome", Kind: String},
			{Name: "counts", Kind: JSON},
			{Name: "error", Kind: String, Nullable: true},
		},
	})
}
