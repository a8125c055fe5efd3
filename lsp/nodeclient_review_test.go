package lsp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// TestNodeClientReview: with Microsoft's LSP client libraries, the built binary and the real codex,
// a folder with an uncommitted change is reviewed (hermes.review): the finding arrives as an Error
// diagnostic with source "hermes" on that file, and "Hermes: fix this finding" starts a turn whose
// request quotes the finding.
func TestNodeClientReview(t *testing.T) {
	t.Parallel()
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
	if err := os.WriteFile(file, []byte("package calc\n\nfunc Sum(n int) int {\n\ttotal := 0\n\tfor i := 1; i < n; i++ {\n\t\ttotal += i\n\t}\n\treturn total\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Model.Enqueue(
		fakemodel.Message("Hello."),
		fakemodel.Review("Sum has an off-by-one error.", fakemodel.ReviewFinding{
			Title: "[P1] Loop stops one short of n", Body: "The loop condition `i < n` skips n.", Priority: 1,
			Path: file, Start: 5, End: 5,
		}),
		fakemodel.Message("Fixed the loop."),
	)
	step := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	sum := runNodeClient(t, env, t.TempDir(), file,
		"--prompt", "hello",
		"--step", step(map[string]any{"review": map[string]any{}}),
		"--step", step(map[string]any{"codeAction": map[string]any{"line": 4, "run": "Hermes: fix this finding"}}),
	)
	if len(sum.Steps) != 2 {
		t.Fatalf("steps: %+v", sum.Steps)
	}
	review := sum.Steps[0]
	t.Logf("hermes.review → diagnostics: %d ms", review.Ms)
	if len(review.Diagnostics) != 1 {
		t.Fatalf("review diagnostics: %+v", review.Diagnostics)
	}
	d := review.Diagnostics[0]
	if d.Source != "hermes" || d.Severity != protocol.DiagnosticSeverityError || d.Code != "P1" || d.Range.Start.Line != 4 ||
		d.Message != "Loop stops one short of n\n\nThe loop condition `i < n` skips n." {
		t.Errorf("the finding's diagnostic: %+v", d)
	}
	reqs := env.Model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "Fix this review finding in calc.go (lines 5-5): Loop stops one short of n") {
		t.Errorf("the fix turn's request does not quote the finding:\n%.1500s", last)
	}
}
