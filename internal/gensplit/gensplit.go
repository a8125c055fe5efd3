// Package gensplit writes generated Go code (the protocol types go-jsonschema generates for packages
// codex and acp) as files of a bounded length, split between top-level declarations.
package gensplit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// MaxLines bounds each file written: generated code is read too, when a type is looked up.
const MaxLines = 450

// boilerplate is the comment go-jsonschema gives a field the schema does not describe: it says
// nothing the field's tag does not.
var boilerplate = regexp.MustCompile(`(?m)^\s*// \w+ corresponds to the JSON schema field(?: "[^"]*"\.)?\n(?:\s*// "[^"]*"\.\n)?`)

// Write writes code, one Go file of package pkg, as out and, when it is long, out's name with _2,
// _3, ... (files of at most MaxLines lines, split between top-level declarations, each starting
// with header and importing what it uses of imports); numbered files left from an earlier run are
// removed. It returns the files written.
func Write(out, pkg, header string, imports []string, code []byte) ([]string, error) {
	code = boilerplate.ReplaceAll(code, nil)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", code, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parse the generated code: %w", err)
	}
	var chunks []string
	var cur strings.Builder
	lines := 0
	for _, d := range f.Decls {
		start := d.Pos()
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		case *ast.FuncDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		}
		text := string(code[fset.Position(start).Offset:fset.Position(d.End()).Offset]) + "\n\n"
		n := strings.Count(text, "\n")
		if lines > 0 && lines+n > MaxLines {
			chunks = append(chunks, cur.String())
			cur.Reset()
			lines = 0
		}
		cur.WriteString(text)
		lines += n
	}
	if cur.Len() > 0 {
		chunks = append(chunks, cur.String())
	}

	base := strings.TrimSuffix(out, ".go")
	stale, _ := filepath.Glob(base + "_[0-9]*.go")
	var written []string
	for i, chunk := range chunks {
		name := out
		if i > 0 {
			name = fmt.Sprintf("%s_%d.go", base, i+1)
		}
		var src bytes.Buffer
		src.WriteString(header + "package " + pkg + "\n\n")
		for _, imp := range imports {
			if strings.Contains(chunk, path.Base(imp)+".") {
				src.WriteString("import " + strconv.Quote(imp) + "\n\n")
			}
		}
		src.WriteString(chunk)
		formatted, err := format.Source(src.Bytes())
		if err != nil {
			return nil, fmt.Errorf("format %s: %w", name, err)
		}
		if err := os.WriteFile(name, formatted, 0o644); err != nil {
			return nil, err
		}
		written = append(written, name)
	}
	for _, s := range stale {
		if !slices.Contains(written, s) {
			if err := os.Remove(s); err != nil {
				return nil, err
			}
		}
	}
	return written, nil
}
