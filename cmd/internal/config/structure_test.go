package config

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryPackageHasADocGoSayingWhatItOwnsAndMustNotDo walks the module's
// source tree: every directory with Go code has a doc.go whose package
// comment ("Package NAME ..." or, for a command, "Command NAME ...") says
// what the package owns and what it must not do, and no other file of the
// package carries a package comment of its own (godoc would join them).
func TestEveryPackageHasADocGoSayingWhatItOwnsAndMustNotDo(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..")
	pkgs := map[string][]string{} // directory -> its non-test Go files
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
			name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], path)
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, len(pkgs), 20, "the walk found the module's packages")
	for dir, files := range pkgs {
		rel, err := filepath.Rel(root, dir)
		require.NoError(t, err)
		doc := filepath.Join(dir, "doc.go")
		_, err = os.Stat(doc)
		require.NoError(t, err, "package %s has no doc.go saying what it owns and what it must not do", rel)
		for _, file := range files {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly|parser.ParseComments)
			require.NoError(t, err)
			if file != doc {
				require.True(t, f.Doc == nil, "%s has a package comment: package %s keeps its comment in doc.go alone", file, rel)
				continue
			}
			require.NotNil(t, f.Doc, "%s has no package comment", doc)
			text := f.Doc.Text()
			want := "Package " + f.Name.Name + " "
			if f.Name.Name == "main" {
				want = "Command " + filepath.Base(dir) + " "
			}
			require.True(t, strings.HasPrefix(text, want), "%s: the package comment starts %q, not %q", doc, firstLine(text), want)
			require.Contains(t, strings.Join(strings.Fields(text), " "), "must not", "%s: the package comment does not say what the package must not do", doc)
		}
	}
}

// maxFuncLines is the most lines a function of product code may span, from
// its func keyword to its closing brace (the project's brief: no function
// over ~80 lines).
const maxFuncLines = 80

// TestNoProductFunctionIsLongerThan80Lines walks the module's source tree,
// the fake service in fixtures/ included: no function or method of a
// non-test Go file (outside testdata) spans more than maxFuncLines lines.
// A longer one is split where its steps are, into named functions.
func TestNoProductFunctionIsLongerThan80Lines(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..")
	var long []string
	funcs := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
			name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs++
			from, to := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
			if n := to - from + 1; n > maxFuncLines {
				long = append(long, fmt.Sprintf("%s:%d: %s is %d lines", filepath.ToSlash(rel), from, funcName(fd), n))
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, funcs, 1000, "the walk found the module's functions")
	slices.Sort(long)
	require.Zero(t, len(long), "functions longer than %d lines; split each where its steps are:\n%s", maxFuncLines, strings.Join(long, "\n"))
}

// funcName is a function's name, a method's with its receiver's type.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	star := ""
	if s, ok := typ.(*ast.StarExpr); ok {
		typ, star = s.X, "*"
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return "(" + star + id.Name + ")." + fd.Name.Name
	}
	return fd.Name.Name
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
