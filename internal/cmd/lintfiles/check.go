package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// directive marks a reference as one to a file of hermes-lsp's own.
const directive = "//hermes:ownfile"

// fileFuncs are, by import path, the functions that act on a file by its name.
var fileFuncs = map[string]map[string]bool{
	"os": set("Open", "OpenFile", "Create", "CreateTemp", "ReadFile", "WriteFile", "ReadDir",
		"Remove", "RemoveAll", "Rename", "Symlink", "Link", "Readlink", "Mkdir", "MkdirAll",
		"MkdirTemp", "Truncate", "Chmod", "Chown", "Lchown", "Chtimes", "Stat", "Lstat",
		"OpenRoot", "OpenInRoot", "DirFS", "CopyFS"),
	"io/ioutil":     set("ReadFile", "WriteFile", "ReadDir", "TempFile", "TempDir"),
	"path/filepath": set("Walk", "WalkDir", "Glob", "EvalSymlinks"),
	"syscall": set("Open", "Openat", "Creat", "Unlink", "Unlinkat", "Rename", "Renameat", "Mkdir",
		"Mkdirat", "Rmdir", "Symlink", "Link", "Truncate", "Chmod", "Stat", "Lstat"),
	"golang.org/x/sys/unix": set("Open", "Openat", "Openat2", "Creat", "Unlink", "Unlinkat", "Rename",
		"Renameat", "Renameat2", "Mkdir", "Mkdirat", "Rmdir", "Symlink", "Symlinkat", "Link", "Linkat",
		"Truncate", "Chmod", "Fchmodat", "Stat", "Lstat", "Fstatat"),
	"golang.org/x/sys/windows": set("CreateFile", "DeleteFile", "MoveFile", "MoveFileEx",
		"CreateDirectory", "RemoveDirectory", "CreateSymbolicLink", "CreateHardLink",
		"GetFileAttributes", "GetFileAttributesEx", "SetFileAttributes"),
}

// set is the set of names.
func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// A finding is one reference the check refuses.
type finding struct {
	Pos token.Position
	Msg string
}

func (f finding) String() string { return fmt.Sprintf("%s: %s", f.Pos, f.Msg) }

// checkDir checks the non-test Go files of dir, whatever their build constraints.
func checkDir(dir string) ([]finding, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []finding
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		out = append(out, checkFile(fset, f, src)...)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
	})
	return out, nil
}

// A mark is one //hermes:ownfile comment and what it covers: the lines from..to of its file.
type mark struct {
	pos      token.Position
	reason   string
	from, to int
	used     bool
}

// checkFile reports the references of f (whose source is src) to fileFuncs that no mark covers,
// marks without a reason, and marks that cover nothing.
func checkFile(fset *token.FileSet, f *ast.File, src []byte) []finding {
	var out []finding
	report := func(pos token.Pos, format string, args ...any) {
		out = append(out, finding{Pos: fset.Position(pos), Msg: fmt.Sprintf(format, args...)})
	}

	// The names this file gives the packages watched. A local variable that shadows one of them
	// is taken for the package (no type checking): a false report, never a missed call.
	watched := map[string]string{}
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		if fileFuncs[path] == nil {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			report(imp.Pos(), "dot import of %s: its file functions could not be told apart", path)
			continue
		}
		watched[name] = path
	}

	// The marks: in a function's doc comment, the function; elsewhere, their line, or the next one
	// when the comment is alone on its line.
	var marks []*mark
	inDoc := map[*ast.Comment]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Doc == nil {
			continue
		}
		for _, c := range fd.Doc.List {
			if isMark(c) {
				inDoc[c] = true
				marks = append(marks, &mark{pos: fset.Position(c.Pos()), reason: reason(c),
					from: fset.Position(fd.Pos()).Line, to: fset.Position(fd.End()).Line})
			}
		}
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if !isMark(c) || inDoc[c] {
				continue
			}
			p := fset.Position(c.Pos())
			line := p.Line
			if aloneOnLine(src, p.Offset) {
				line++
			}
			marks = append(marks, &mark{pos: p, reason: reason(c), from: line, to: line})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		path, ok := watched[id.Name]
		if !ok || !fileFuncs[path][sel.Sel.Name] {
			return true
		}
		line := fset.Position(sel.Pos()).Line
		covered := false
		for _, m := range marks {
			if m.from <= line && line <= m.to {
				m.used, covered = true, true
			}
		}
		if !covered {
			report(sel.Pos(), "%s.%s outside package workspace: the user's files go through workspace; "+
				"mark a file of hermes-lsp's own %s <why>", path[strings.LastIndex(path, "/")+1:], sel.Sel.Name, directive)
		}
		return true
	})

	for _, m := range marks {
		switch {
		case m.reason == "":
			out = append(out, finding{Pos: m.pos, Msg: directive + " needs a reason: " + directive + " <why>"})
		case !m.used:
			out = append(out, finding{Pos: m.pos, Msg: directive + " covers no file call: remove it"})
		}
	}
	return out
}

// isMark reports whether c is a //hermes:ownfile comment.
func isMark(c *ast.Comment) bool {
	rest, ok := strings.CutPrefix(c.Text, directive)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

// reason is what a mark says after the directive.
func reason(c *ast.Comment) string {
	return strings.TrimSpace(strings.TrimPrefix(c.Text, directive))
}

// aloneOnLine reports whether only blanks precede offset on its line of src.
func aloneOnLine(src []byte, offset int) bool {
	for i := offset - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i] != ' ' && src[i] != '\t' {
			return false
		}
	}
	return true
}
