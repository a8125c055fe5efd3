//go:build unix

package lsp_test

// A review finding's path is the model's: it must resolve (links followed) inside the folder and
// name a regular file before the file is read or the finding published.

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// hostileFolder adds to f's folder a link etc -> /etc, a link in -> /proc/self/fd/0 (the
// server's own stdin), a FIFO pipe and a directory sub, and returns calc.go's path.
func hostileFolder(t *testing.T, f *fixture) string {
	t.Helper()
	calc := f.file("calc.go", calcSrc)
	for name, target := range map[string]string{"etc": "/etc", "in": "/proc/self/fd/0"} {
		if err := os.Symlink(target, filepath.Join(f.folder, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(f.folder, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(f.folder, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return calc
}

// TestReviewFindingPathsContained: findings on etc/passwd through a link to /etc and on a link to
// the server's stdin are listed as outside the folder; those on a FIFO and a directory inside it
// as not on a regular file; none of them is opened or published, the review does not block on the
// FIFO, and the finding on a real file is published.
func TestReviewFindingPathsContained(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	calc := hostileFolder(t, f)
	at := func(name string) string { return filepath.Join(f.folder, name) }
	onReview(f, rendered("x",
		"[P1] Passwd|"+at("etc/passwd")+"|1|1|read it",
		"[P1] Stdin|"+at("in")+"|1|1|read it",
		"[P2] Fifo|"+at("pipe")+"|1|1|blocks",
		"[P2] Dir|"+at("sub")+"|1|1|a directory",
		"[P1] Real|"+calc+"|5|5|skips n",
	))
	command(t, f, hermesproto.CmdReview, map[string]any{}, nil)
	if err := f.ed.Await(ctx, lsptest.AllOf(diagnosticsFor(calc, 1), lsptest.MessageContaining("Hermes review of"))); err != nil {
		t.Fatal(err)
	}
	msgs := f.ed.Messages()
	msg := msgs[len(msgs)-1].Message
	for _, want := range []string{
		"1 finding (P1 1)",
		"2 finding(s) outside the folder: Passwd (" + at("etc/passwd") + ":1, etc/ is now a link outside the folder); Stdin (" + at("in") + ":1, in is now a link outside the folder)",
		"2 finding(s) not on a regular file (a FIFO, a device, a directory), not read: Fifo (" + at("pipe") + ":1); Dir (" + at("sub") + ":1)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	for _, name := range []string{"etc/passwd", "in", "pipe", "sub"} {
		if _, n := publishedFor(f.ed.State(), at(name)); n > 0 {
			t.Errorf("diagnostics published on %s", name)
		}
	}
}

// TestSavedFindingsContained: findings in the state directory (which a restarted server publishes
// again) pass the same checks: on a link outside, a link to stdin or a FIFO they are dropped; the
// others get their lines clamped and their text cleaned and cut.
func TestSavedFindingsContained(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	calc := hostileFolder(t, f)
	onReview(f, rendered("x", "[P1] Real|"+calc+"|5|5|skips n"))
	command(t, f, hermesproto.CmdReview, map[string]any{}, nil)
	// The message comes once the findings are saved.
	if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes review of")); err != nil {
		t.Fatal(err)
	}
	saved := savedFindingsFile(t, f.state)
	type finding struct {
		ReviewID  string `json:"reviewId"`
		FindingID string `json:"findingId"`
		Title     string `json:"title"`
		Priority  int    `json:"priority"`
		Path      string `json:"path"`
		Start     uint32 `json:"start"`
		End       uint32 `json:"end"`
		Body      string `json:"body"`
	}
	list := []finding{
		{ReviewID: "r", FindingID: "1", Title: "Passwd", Path: filepath.Join(f.folder, "etc/passwd")},
		{ReviewID: "r", FindingID: "2", Title: "Stdin", Path: filepath.Join(f.folder, "in")},
		{ReviewID: "r", FindingID: "3", Title: "Fifo", Path: filepath.Join(f.folder, "pipe")},
		{ReviewID: "r", FindingID: "4", Title: "Far\x1b]0;pwned\x07 " + strings.Repeat("t", 300), Path: calc,
			Start: 4294967295, End: 4294967295, Body: "b\x1b[31m\x00" + strings.Repeat("y", 10000)},
	}
	data, _ := json.Marshal(list)
	if err := os.WriteFile(saved, data, 0o600); err != nil {
		t.Fatal(err)
	}
	g := startIn(t, f.folder, f.state, lsp.Options{}, lsptest.VSCode, nil)
	if err := g.ed.Await(ctx, diagnosticsFor(calc, 1)); err != nil {
		t.Fatal(err)
	}
	diags, _ := publishedFor(g.ed.State(), calc)
	d := diags[0]
	title, body, _ := strings.Cut(d.Message, "\n\n")
	if d.Range.Start.Line != 8 || d.Range.End.Line != 8 {
		t.Errorf("the saved finding on line 4294967295: %+v, want the last line (8)", d.Range)
	}
	if !strings.HasPrefix(title, "Far ttt") || len([]rune(title)) != 200 || !strings.HasPrefix(body, "byyy") || len(body) > 8<<10 {
		t.Errorf("the saved finding's text: %.40q (%d characters), %.40q (%d bytes)", title, len([]rune(title)), body, len(body))
	}
	for _, name := range []string{"etc/passwd", "in", "pipe"} {
		if _, n := publishedFor(g.ed.State(), filepath.Join(f.folder, name)); n > 0 {
			t.Errorf("a saved finding on %s published", name)
		}
	}
}

// savedFindingsFile returns the file the folder's findings are saved in, under the state directory.
func savedFindingsFile(t *testing.T, state string) string {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(path)) == "reviews" {
			found = append(found, path)
		}
		return nil
	})
	if len(found) != 1 {
		t.Fatalf("saved findings: %v", found)
	}
	return found[0]
}
