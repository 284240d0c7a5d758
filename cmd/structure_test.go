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
	"cmd/next_steps.go":         2, // the demo's psql and DuckDB checks, printed for the user to run
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
			if err == nil && d.IsDir() && d.Name() == "jobstest" {
				return filepath.SkipDir // test support: its SQL sets up the tests' databases
			}
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
	require.NotEmpty(t, found["cmd/next_steps.go"], "the check finds SQL where there is some")
}

// maxRunEStatements bounds a command's RunE: parsing its flags into an
// options struct and one call of the package that does the work (DESIGN.md,
// Shape; Caddy's command layer).
const maxRunEStatements = 15

// A command's RunE parses its flags and calls one function: at most
// maxRunEStatements statements, nested ones counted. Behaviour that grows
// a RunE belongs in the package it calls.
func TestEveryRunEParsesAndMakesOneCall(t *testing.T) {
	t.Parallel()
	counted := 0
	eachGoFile(t, ".", func(name string, fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			use, body := commandFields(lit)
			if body == nil {
				return true
			}
			counted++
			key := name + " " + strings.Fields(use + " ?")[0]
			require.LessOrEqual(t, statements(body), maxRunEStatements, "%s (%s): RunE has %d statements; parse the flags into an options struct "+
				"and call one function of the package that does the work", key, fset.Position(body.Pos()), statements(body))
			return true
		})
	})
	require.Greater(t, counted, 20, "the check finds the commands' RunE")
}

// maxFuncLines bounds a function of cmd and jobs (DESIGN.md, issue 46).
const maxFuncLines = 80

// No function of cmd or jobs (their non-test Go files) is over
// maxFuncLines lines: a longer one holds more than one step of what a
// command or a worker does.
func TestNoFunctionInCmdOrJobsIsOverEightyLines(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "../jobs"} {
		eachGoFile(t, dir, func(name string, fset *token.FileSet, f *ast.File) {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				require.LessOrEqual(t, lines, maxFuncLines, "%s: %s is %d lines", name, fn.Name.Name, lines)
			}
		})
	}
}

// eachGoFile parses each non-test Go file under dir (test support such as
// jobstest aside) and hands it to fn with its name from the module's root.
func eachGoFile(t *testing.T, dir string, fn func(name string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "jobstest" {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(filepath.Join("cmd", path))
		if strings.HasPrefix(path, "..") {
			name = filepath.ToSlash(strings.TrimPrefix(path, "../"))
		}
		fn(name, fset, f)
		return nil
	})
	require.NoError(t, err)
}

// commandFields returns the Use and the RunE body of a cobra.Command
// literal (a nil body for any other literal, or a RunE that is no func
// literal).
func commandFields(lit *ast.CompositeLit) (use string, body *ast.BlockStmt) {
	sel, ok := lit.Type.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Command" {
		return "", nil
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch key, _ := kv.Key.(*ast.Ident); {
		case key == nil:
		case key.Name == "Use":
			if b, ok := kv.Value.(*ast.BasicLit); ok {
				use, _ = strconv.Unquote(b.Value)
			}
		case key.Name == "RunE":
			if fl, ok := kv.Value.(*ast.FuncLit); ok {
				body = fl.Body
			}
		}
	}
	return use, body
}

// statements counts the statements in body, nested ones included (blocks
// themselves aside).
func statements(body *ast.BlockStmt) int {
	n := 0
	ast.Inspect(body, func(x ast.Node) bool {
		if _, ok := x.(ast.Stmt); ok {
			if _, block := x.(*ast.BlockStmt); !block {
				n++
			}
		}
		return true
	})
	return n
}
