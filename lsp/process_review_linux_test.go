package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestProcessReviewFindingsOnStdinAndFIFO: the built binary, on the real codex, reviews a folder
// whose model names in its findings a link to the server's own stdin (/proc/self/fd/0: its LSP
// input) and a FIFO, besides a real file. The review ends, with those two listed as outside the
// folder and not on a regular file, neither published; the real file's finding is; and the server
// keeps answering requests (reading the link as a file would take the editor's requests from its
// input, and opening the FIFO would block).
func TestProcessReviewFindingsOnStdinAndFIFO(t *testing.T) {
	env := codextest.NewReal(t)
	file := filepath.Join(env.Work, "calc.go")
	git := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir = env.Work
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.WriteFile(file, []byte("package calc\n\nfunc Sum(n int) int {\n\treturn n\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "base")
	if err := os.WriteFile(file, []byte(calcSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin, fifo := filepath.Join(env.Work, "in"), filepath.Join(env.Work, "pipe")
	if err := os.Symlink("/proc/self/fd/0", stdin); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	env.Model.Enqueue(fakemodel.Review("Three findings.",
		fakemodel.ReviewFinding{Title: "[P1] Stdin", Body: "read it", Priority: 1, Path: stdin, Start: 1, End: 3},
		fakemodel.ReviewFinding{Title: "[P1] Fifo", Body: "read it", Priority: 1, Path: fifo, Start: 1, End: 1},
		fakemodel.ReviewFinding{Title: "[P1] Loop stops one short of n", Body: "skips n", Priority: 1, Path: file, Start: 5, End: 5},
	))
	p := startServerProc(t, env, nil)
	ctx := testCtx(t)
	if _, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdReview, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if err := p.ed.Await(ctx, lsptest.AllOf(lsptest.MessageContaining("Hermes review of"), diagnosticsFor(file, 1))); err != nil {
		t.Fatalf("the review did not end with its finding: %v", err)
	}
	for range 3 {
		if _, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdStatus); err != nil {
			t.Fatalf("hermes.status after the review: %v", err)
		}
	}
	var msg string
	for _, m := range p.ed.Messages() {
		if strings.Contains(m.Message, "Hermes review of") {
			msg = m.Message
		}
	}
	for _, want := range []string{
		"1 finding (P1 1)",
		"1 finding(s) outside the folder: Stdin (" + stdin + ":1, in is now a link outside the folder)",
		"1 finding(s) not on a regular file (a FIFO, a device, a directory), not read: Fifo (" + fifo + ":1)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the review's message lacks %q:\n%s", want, msg)
		}
	}
	for _, path := range []string{stdin, fifo} {
		if _, n := publishedFor(p.ed.State(), path); n > 0 {
			t.Errorf("diagnostics published on %s", path)
		}
	}
}
