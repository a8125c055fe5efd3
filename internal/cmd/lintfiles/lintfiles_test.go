package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCheckDirReportsExactlyTheViolations checks testdata/src/sample: every reference to a file
// function that no mark covers is reported, and marks without a reason or covering nothing; the
// rest (marked calls, harmless names of os, test files) is not.
func TestCheckDirReportsExactlyTheViolations(t *testing.T) {
	dir := filepath.Join("testdata", "src", "sample")
	// Each finding wanted: a text unique to its line, and what the report says.
	want := []struct{ line, msg string }{
		{"os.Open(name) // plain open", "os.Open outside package workspace"},
		{"os.Stat(name)", "os.Stat outside package workspace"},
		{"ioutil.WriteFile(name", "ioutil.WriteFile outside package workspace"},
		{"filepath.WalkDir(name", "filepath.WalkDir outside package workspace"},
		{"open := os.OpenFile", "os.OpenFile outside package workspace"},
		{"//hermes:ownfile a mark with a blank line before the call", "covers no file call"},
		{"os.RemoveAll(name)", "os.RemoveAll outside package workspace"},
		{"os.Create(name)", "os.Create outside package workspace"},
		{"//hermes:ownfile\n", "needs a reason"},
		{"//hermes:ownfile a mark that covers nothing", "covers no file call"},
		{"stdos.ReadFile(name)", "os.ReadFile outside package workspace"},
		{"syscall.Unlink(name)", "syscall.Unlink outside package workspace"},
		{`import . "os"`, "dot import of os"},
	}
	got, err := checkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, w := range want {
		file, line := locate(t, dir, w.line)
		lines[file+":"+strconv.Itoa(line)] = true
		found := false
		for _, g := range got {
			found = found || filepath.Base(g.Pos.Filename) == file && g.Pos.Line == line && strings.Contains(g.Msg, w.msg)
		}
		if !found {
			t.Errorf("not reported: %s:%d (%q): %s", file, line, w.line, w.msg)
		}
	}
	for _, g := range got {
		if !lines[filepath.Base(g.Pos.Filename)+":"+strconv.Itoa(g.Pos.Line)] {
			t.Errorf("reported, not wanted: %s", g)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d findings, want %d:\n%s", len(got), len(want), joinFindings(got))
	}
}

// locate finds the one line of the files in dir that contains text (a trailing "\n" matches the
// line's end) and returns its file's name and its number.
func locate(t *testing.T, dir, text string) (string, int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var file string
	var line int
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l+"\n", text) {
				if file != "" {
					t.Fatalf("%q is on more than one line", text)
				}
				file, line = e.Name(), i+1
			}
		}
	}
	if file == "" {
		t.Fatalf("%q is on no line of %s", text, dir)
	}
	return file, line
}

func joinFindings(fs []finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

// TestServerDirs: the packages checked are this module's that hermes-lsp is built from, without
// the boundary itself; test helpers and tools are not among them.
func TestServerDirs(t *testing.T) {
	dirs, err := serverDirs([]string{"github.com/hermes-lsp/hermes-lsp/cmd/hermes-lsp"})
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, d := range dirs {
		has[filepath.ToSlash(d)] = true
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for rel, in := range map[string]bool{
		"cmd/hermes-lsp": true, "lsp": true, "agenthost": true, "codex": true, "hermesproto": true,
		"workspace": false, "lsp/lsptest": false, "internal/demo": false, "codex/codextest": false,
	} {
		if has[filepath.ToSlash(filepath.Join(root, rel))] != in {
			t.Errorf("%s checked: %v, want %v (checked: %v)", rel, !in, in, dirs)
		}
	}
}
