package hashing

import "slices"

// hashArena holds the hashes and user objects of a chunk of rows, written
// by the worker that hashes the chunk: the chunk's hashes become strings
// in one allocation, and its users' objects and keys are made there, on a
// worker, rather than on the emitting goroutine every row goes through.
// Every parallel path (CSV lines, other readers' records) hashes through
// one.
type hashArena struct {
	arena    []byte          // hashes, back to back
	spans    []int           // start and end in arena of each value
	rowSpans [][2]int        // per row: its values' range in spans
	typeEnds [][numTypes]int // per row: end in its range of each type's values
	flat     []string        // the values as strings, one allocation per chunk
	json     []byte          // user objects, back to back
	jsonEnds []int           // per row: end of its user object in json
}

func (a *hashArena) reset() {
	a.arena = a.arena[:0]
	a.spans = a.spans[:0]
	a.rowSpans = a.rowSpans[:0]
	a.typeEnds = a.typeEnds[:0]
}

// addRow starts the next row, holding no value yet.
func (a *hashArena) addRow() {
	a.rowSpans = append(a.rowSpans, [2]int{len(a.spans), len(a.spans)})
	a.typeEnds = append(a.typeEnds, [numTypes]int{})
}

// hashValue hashes raw, a value of types[t], into the arena, or counts why
// it is invalid in res.
func (a *hashArena) hashValue(n *Normalizer, res *rowResult, t int, raw string) {
	start := len(a.arena)
	out, skipped, err := n.AppendHash(a.arena, types[t], raw)
	a.arena = out
	if skipped {
		return
	}
	if err != nil {
		res.badTypes[t]++
		if res.reasons.Len() > 0 {
			res.reasons.WriteString("; ")
		}
		res.reasons.WriteString(err.Error())
		return
	}
	a.spans = append(a.spans, start, len(a.arena))
}

// finish makes each valid row's user from the arena (its values sorted
// and deduplicated per type, its user object and its key); rows with a
// row error or an invalid value get none.
func (a *hashArena) finish(results []rowResult, rowErrs []*RowError) {
	// The hashes become strings in one allocation.
	arena := string(a.arena)
	a.flat = a.flat[:0]
	for k := 0; k < len(a.spans); k += 2 {
		a.flat = append(a.flat, arena[a.spans[k]:a.spans[k+1]])
	}
	a.json = a.json[:0]
	a.jsonEnds = a.jsonEnds[:0]
	for i := range results {
		a.jsonEnds = append(a.jsonEnds, len(a.json))
		res := &results[i]
		res.user.keyed = false
		if rowErrs[i] != nil || res.reasons.Len() > 0 {
			continue
		}
		u := &res.user
		lo := a.rowSpans[i][0] / 2
		for t := range numTypes {
			hi := a.rowSpans[i][0]/2 + a.typeEnds[i][t]
			v := a.flat[lo:hi:hi]
			lo = hi
			if len(v) > 1 {
				slices.Sort(v)
				v = slices.Compact(v)
			}
			u.values[t] = v
		}
		if u.Len() > 0 {
			from := len(a.json)
			a.json = u.appendJSON(a.json)
			a.jsonEnds[i] = len(a.json)
			u.key, u.keyed = keyOf(a.json[from:]), true
		}
	}
	from := 0
	for i := range results {
		u := &results[i].user
		u.json = nil
		if to := a.jsonEnds[i]; to > from {
			u.json = a.json[from:to:to]
			from = to
		}
	}
}
