package webui

import (
	"strings"

	"github.com/adsync/adsync/sync/store"
)

// countsSentence says a run's counts as a short sentence in its pipeline's
// words (a sync: "55,590 fetched: 55,497 new, 193 deleted"), leaving out
// what is zero; counts of an unknown shape keep adsync status's
// key=value form.
func countsSentence(r store.RunSummary) string {
	c := counts(r.Counts)
	var s string
	switch r.Pipeline {
	case "sync":
		s = phrase(c.n("fetched"), "fetched", ": ", c.list("inserted", "new", "updated", "updated", "unchanged", "unchanged",
			"deleted", "deleted"))
		if s == "" && c.n("units") > 0 {
			s = "nothing fetched"
		}
		if n := c.n("failed_units"); n > 0 {
			s += "; " + plural(n, "unit") + " failed"
		}
	case "stats":
		s = phrase(c.n("rows"), "rows", " from ", c.list("requests", "requests", "jobs", "jobs", "accounts", "accounts"))
	case "export":
		var rows, tables int64
		for _, v := range r.Counts {
			if f, ok := v.(float64); ok {
				rows, tables = rows+int64(f), tables+1
			}
		}
		if tables > 0 {
			s = formatInt(rows) + " rows exported from " + plural(tables, "table")
		}
	case "audience":
		s = phrase(c.n("users"), "users", ": ", c.list("adds", "added", "deletes", "deleted", "rows_invalid", "invalid rows"))
		if n := c.n("batches"); n > 0 {
			s += "; " + formatInt(c.n("batches_done")) + " of " + plural(n, "batch") + " sent"
		}
	case "insights":
		s = phrase(c.n("buckets"), "buckets", " in ", c.list("windows", "windows", "sets", "keyword sets"))
	case "posts":
		s = phrase(c.n("found"), "posts found", " of ", c.list("requested", "asked for", "media", "media", "users", "users"))
	}
	if s == "" {
		return r.CountsSummary()
	}
	return s
}

// counts are a run's counts as numbers, summed over the per-entity
// objects a sync keeps.
type counts map[string]any

// n is the count key summed: a number, or the key of every object.
func (c counts) n(key string) int64 {
	var sum float64
	for k, v := range c {
		switch x := v.(type) {
		case float64:
			if k == key {
				sum += x
			}
		case map[string]any:
			if f, ok := x[key].(float64); ok {
				sum += f
			}
		}
	}
	return int64(sum)
}

// list writes the non-zero counts of key, word pairs: "3 new, 1 deleted".
func (c counts) list(pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if n := c.n(pairs[i]); n != 0 {
			parts = append(parts, formatInt(n)+" "+pairs[i+1])
		}
	}
	return strings.Join(parts, ", ")
}

// phrase is "N what" followed by sep and rest when there is one; "" when
// the run counted none of it.
func phrase(n int64, what, sep, rest string) string {
	if n == 0 && rest == "" {
		return ""
	}
	s := formatInt(n) + " " + what
	if rest != "" {
		s += sep + rest
	}
	return s
}

// plural is "1 table" or "3 tables" (batch: batches).
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "ch") {
		return formatInt(n) + " " + word + "es"
	}
	return formatInt(n) + " " + word + "s"
}
