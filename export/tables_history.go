package export

// historyOf is the export of a table's history, the view named view (see
// store.History): t's columns plus valid_from and valid_to, one row per
// version, keyed by t's key and valid_from. A version is exported when it
// is written and again when the next version closes it (its valid_to set):
// written_at, stamped at both, is its change time. So an output holds a
// past version twice, current then closed; the newest run's row of a key
// is the version as it stands.
func historyOf(t Table, view string) Table {
	h := t
	h.Name, h.From, h.ChangedAt = view, view, "written_at"
	h.Key = append(append([]string{}, t.Key...), "valid_from")
	h.OrderBy = t.OrderBy + ", valid_from"
	h.Columns = append(append([]Column{}, t.Columns...),
		Column{Name: "valid_from", Kind: Timestamp},
		Column{Name: "valid_to", Kind: Timestamp, Nullable: true})
	return h
}
