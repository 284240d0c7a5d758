package ads

import (
	"fmt"
	"sort"
	"strings"
)

// Refresh says in a line how a run refreshes the entity's table, derived
// from its declaration: docs/export.md's table of keys shows it for every
// entity, and a test keeps the two equal.
func (e *Entity) Refresh() string {
	var b strings.Builder
	switch {
	case e.AccessList:
		return "every run, the whole list; accounts it no longer returns are marked inaccessible, not deleted"
	case e.Single:
		return "every run, one object per account"
	case e.Reference:
		b.WriteString("at most daily (`--full`: every run), the whole list")
		if e.Streamed() {
			b.WriteString(" streamed into one COPY and merged in one transaction")
		}
	case e.Incremental:
		b.WriteString("incremental (`sort_by=updated_at-desc`, `with_deleted=true`) from the bookmark minus `sync.overlap`; `--full`: the whole list (`sort_by=created_at-asc`)")
	default:
		b.WriteString("every run, the whole list")
	}
	switch {
	case e.Parents != nil:
		fmt.Fprintf(&b, ", by chunks of up to %d stored %s ids (`%s`) after the run's %s of the account: all of them in a complete listing (`--full`, or no bookmark yet), "+
			"else the live ones and those deleted since the bookmark minus `sync.overlap`; rows of deleted %s stay as the service shows them",
			e.Parents.Chunk, e.Parents.Entity, e.Parents.Param, e.Parents.Entity, e.Parents.Entity)
	case e.PartsFrom != nil:
		fmt.Fprintf(&b, ", once per `%s` (each `%s` of `%s`)", e.PartParam, e.PartsFrom.Field, queryPath(e.PartsFrom.Path, e.PartsFrom.Query))
	case e.Scope == PerParent:
		b.WriteString(", once per live custom audience")
	case len(e.Parts) > 0:
		fmt.Fprintf(&b, ", once per `%s` (%s)", e.PartParam, strings.Join(e.Parts, ", "))
	}
	if e.DeletedField != "" {
		fmt.Fprintf(&b, "; `%s` %s is stored deleted", e.DeletedField, e.DeletedValue)
	}
	if e.Reference || !e.Incremental {
		b.WriteString("; rows the list no longer holds are tombstoned")
	}
	return b.String()
}

// queryPath is a path with its fixed query, for prose.
func queryPath(path string, q map[string]string) string {
	if len(q) == 0 {
		return path
	}
	var kv []string
	for k, v := range q {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return path + "?" + strings.Join(kv, "&")
}
