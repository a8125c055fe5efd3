// Command realtests prints a `go test -run` pattern that selects the real-codex tests: the top-level
// tests that run the real codex binary. make test-compat runs them, and only them, on each supported
// codex release other than the pin.
//
// A function runs codex when it refers to codextest.NewReal or codex.PinnedBinary, or to a function
// or method of its folder that does (a test's helper, the demo's setup). Each folder under the
// named ones is read as one set of names (its package and its external test package together): a
// name it shares with a function that runs codex counts as that function, so the pattern may
// select a test too many, never one too few.
//
// Usage:
//
//	go run ./internal/cmd/realtests FOLDER...
package main

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
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: realtests FOLDER...")
		os.Exit(2)
	}
	tests, err := realTests(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "realtests:", err)
		os.Exit(1)
	}
	if len(tests) == 0 {
		fmt.Fprintln(os.Stderr, "realtests: no test runs codex")
		os.Exit(1)
	}
	fmt.Printf("^(%s)$\n", strings.Join(tests, "|"))
}

// realTests returns the names of the top-level tests under roots that run codex, sorted, each once.
func realTests(roots []string) ([]string, error) {
	var tests []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				return nil
			}
			found, err := folderTests(path)
			tests = append(tests, found...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(tests)
	return slices.Compact(tests), nil
}

// folderTests returns the tests of one folder that run codex.
func folderTests(dir string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return strings.HasSuffix(fi.Name(), ".go") }, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	// Every function and method of the folder, by name, with the names it refers to.
	refers := map[string][]string{}
	var tests []string
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				name := fn.Name.Name
				if fn.Recv == nil && strings.HasPrefix(name, "Test") && name != "TestMain" {
					tests = append(tests, name)
				}
				refers[name] = append(refers[name], namesIn(fn.Body)...)
			}
		}
	}
	// Which functions run codex: those that refer to one that does, until no more are found.
	runs := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for name, names := range refers {
			if runs[name] {
				continue
			}
			for _, n := range names {
				if n == "codextest.NewReal" || n == "codex.PinnedBinary" || runs[n] {
					runs[name], changed = true, true
					break
				}
			}
		}
	}
	var out []string
	for _, t := range tests {
		if runs[t] {
			out = append(out, t)
		}
	}
	return out, nil
}

// namesIn lists the identifiers a body refers to: plain names (f, and m of x.m) and package-qualified
// ones (codextest.NewReal).
func namesIn(body *ast.BlockStmt) []string {
	var names []string
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if pkg, ok := n.X.(*ast.Ident); ok {
				names = append(names, pkg.Name+"."+n.Sel.Name)
			}
			names = append(names, n.Sel.Name)
		case *ast.Ident:
			names = append(names, n.Name)
		}
		return true
	})
	return names
}
