package report

// ReadSQLForTest is Read's query and arguments for req over spans.
func ReadSQLForTest(req Request, spans []Span) (string, []any) {
	return readSQL(req), append(readArgs(spans), req.EntityIDs, req.Limit)
}
