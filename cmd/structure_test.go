package adsynccmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sqlText is what a statement looks like: a literal that starts as one,
// a SELECT .. FROM in capitals (as the app writes its SQL), or a write.
var sqlText = regexp.MustCompile(`(?i)^\s*select\s[\s\S]*\bfrom\s+\w|^\s*with\s+\w+\s+as\s*\(|` +
	`(?-i:\bSELECT\b[\s\S]{0,400}?\bFROM\b)|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+\w+\s+set\b|\bcreate\s+(table|index|view)\b`)

// sqlKept are the SQL literals cmd and jobs hold, by file, that are not
// the app's queries of its own tables (text shown to a person, DuckDB's
// check of the demo's files), or that predate this test and belong in a
// sync/* package.
var sqlKept = map[string]int{
	"cmd/audience.go":           1, // --query's help shows a user's query
	"cmd/audience_upload.go":    1, // and so does audience upload's
	"cmd/run.go":                2, // the demo's psql and DuckDB checks, printed for the user to run
	"jobs/jobstest/jobstest.go": 1, // test support, not jobs: a database copied from the template gets its own identity
}

// SQL lives in sync/* and export: cmd parses flags and calls one
// function, jobs wires River to the pipelines (DESIGN.md, Shape). A string
// literal in cmd or jobs (their non-test Go files) that reads like SQL
// fails here, unless sqlKept names it.
func TestCmdAndJobsHoldNoSQL(t *testing.T) {
	t.Parallel()
	found := map[string][]string{}
	for _, dir := range []string{".", "../jobs"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			name := filepath.ToSlash(filepath.Join("cmd", path))
			if strings.HasPrefix(path, "..") {
				name = filepath.ToSlash(strings.TrimPrefix(path, "../"))
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && sqlText.MatchString(s) {
					found[name] = append(found[name], s)
				}
				return true
			})
			return nil
		})
		require.NoError(t, err)
	}
	for file, lits := range found {
		require.LessOrEqual(t, len(lits), sqlKept[file], "%s holds SQL; it belongs in sync/* or export:\n%s", file, strings.Join(lits, "\n---\n"))
	}
	require.NotEmpty(t, found["cmd/run.go"], "the check finds SQL where there is some")
}
