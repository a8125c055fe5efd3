package demo

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// These tests run the whole demo against the real pinned codex, with the server in process: the
// offline scripted model, the LSP client, the approvals and the example's fix. cmd/hermes-lsp has
// the end-to-end test of the binary (`hermes-demo`, the server a child process).

// needCodex skips under -short and fails without the pinned codex.
func needCodex(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real codex binary; skipped with -short")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codex.PinnedBinary(wd); err != nil {
		t.Fatalf("the demo tests need the pinned codex: %v", err)
	}
}

// output is a stdout that tests can read while the demo writes, and wait on.
type output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newOutput() *output { return &output{changed: make(chan struct{})} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	close(o.changed)
	o.changed = make(chan struct{})
	return o.buf.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor blocks until the output holds s.
func (o *output) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		o.mu.Lock()
		ok, changed := strings.Contains(o.buf.String(), s), o.changed
		o.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the output never showed %q:\n%s", s, o.String())
		}
	}
}

// run runs the demo with args (and --offline --keep), without OpenAI credentials, and returns its
// exit code, output and the workspace it ran in.
func run(t *testing.T, ctx context.Context, stdin io.Reader, interactive bool, args ...string) (int, string, string) {
	t.Helper()
	codexHome := t.TempDir() // no auth.json: no credentials
	getenv := func(k string) string {
		switch k {
		case "OPENAI_API_KEY", "PROMPT":
			return ""
		case "CODEX_HOME":
			return codexHome
		}
		return os.Getenv(k)
	}
	out := newOutput()
	var stderr bytes.Buffer
	start := time.Now()
	code := Run(ctx, append([]string{"--offline", "--keep"}, args...), Config{
		Stdin: stdin, Stdout: out, Stderr: &stderr, Version: "test", Getenv: getenv, Interactive: interactive,
	})
	text := out.String()
	t.Logf("demo exit %d in %v", code, time.Since(start).Round(time.Millisecond))
	m := regexp.MustCompile(`kept (\S+) `).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the output names no kept folder:\n%s\nstderr: %s", text, stderr.String())
	}
	root := m[1]
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(root, "hermes-lsp.log")); err == nil {
				t.Logf("server log:\n%s", b)
			}
		}
		_ = os.RemoveAll(root)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("output:\n%s\nstderr:\n%s", text, stderr.String())
		}
	})
	ws := regexp.MustCompile(`workspace: (\S+)`).FindStringSubmatch(text)
	if ws == nil {
		t.Fatal("the output names no workspace")
	}
	return code, text, ws[1]
}

// wantFile checks what calc.go of the workspace holds: fixed or not.
func wantFile(t *testing.T, workspace string, fixed bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(workspace, "calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Contains(string(b), fixLine) && !strings.Contains(string(b), bugLine); got != fixed {
		t.Errorf("calc.go fixed = %v, want %v:\n%s", got, fixed, b)
	}
}

// wantAll checks that the output holds every one of want.
func wantAll(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the output lacks %q", w)
		}
	}
}

func TestDemoNoTerminalApprovesOnce(t *testing.T) {
	t.Parallel()
	needCodex(t)
	code, text, ws := run(t, t.Context(), strings.NewReader(""), false)
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	if !strings.HasPrefix(ws, os.TempDir()) || !strings.HasSuffix(ws, "/calc") {
		t.Errorf("workspace %s, want a temporary copy of %s", ws, ExampleRel)
	}
	wantFile(t, ws, true)
	wantAll(t, text,
		"[offline scripted model on 127.0.0.1:", "no OpenAI account used]",
		"lsp initialize → hermes-lsp test",
		"? Hermes wants to run a command", testCommand,
		"? Hermes wants to apply a patch", "-"+bugLine, "+"+fixLine,
		`→ Allow once (stdin is not a terminal)`,
		"FAIL: TestSum", "ok  \texample.com/calc",
		"» answer", "Fixed an off-by-one in `Sum`",
		"diff --git a/calc.go b/calc.go",
		"usage: 8,160 tokens", "4 tool call(s)",
		"turn completed",
	)
	if n := strings.Count(text, "→ Allow once"); n != 4 {
		t.Errorf("%d approvals answered Allow once, want 4 (cat, go test, the patch, go test)", n)
	}
	// The scripted model's usage of its last request is what the summary reports.
	if u := stepUsage(4); u.TotalTokens != 8160 {
		t.Errorf("stepUsage(4) = %+v", u)
	}
}

func TestDemoInteractive(t *testing.T) {
	t.Parallel()
	needCodex(t)
	t.Run("session", func(t *testing.T) {
		t.Parallel()
		// cat: y; go test: a typo, then s (for the session: the second go test is not asked); the
		// patch: y.
		code, text, ws := run(t, t.Context(), strings.NewReader("y\nmaybe\ns\ny\n"), true)
		if code != 0 {
			t.Fatalf("exit %d, want 0", code)
		}
		wantFile(t, ws, true)
		wantAll(t, text, "please type y, s, n or q", "→ Allow for session", "3 approval prompt(s) answered", "turn completed")
		if n := strings.Count(text, "allow? [y] once"); n != 4 {
			t.Errorf("%d questions asked, want 4 (one asked again)", n)
		}
	})
	t.Run("deny", func(t *testing.T) {
		t.Parallel()
		// cat: y; go test: n. The model stops there; the turn still completes.
		code, text, ws := run(t, t.Context(), strings.NewReader("y\nn\n"), true)
		if code != 0 {
			t.Fatalf("exit %d, want 0", code)
		}
		wantFile(t, ws, false)
		wantAll(t, text, "→ Deny", "You declined running the tests", "diff: no changes", "turn completed")
	})
	t.Run("deny the patch", func(t *testing.T) {
		t.Parallel()
		// cat: y; go test: y; the patch: n.
		code, text, ws := run(t, t.Context(), strings.NewReader("y\ny\nn\n"), true)
		if code != 0 {
			t.Fatalf("exit %d, want 0", code)
		}
		wantFile(t, ws, false)
		wantAll(t, text, "→ Deny", "The patch was not applied", "calc.go is unchanged", "turn completed")
	})
}

func TestDemoInterrupt(t *testing.T) {
	t.Parallel()
	needCodex(t)
	// Nobody answers the first prompt; the context ends (a Ctrl-C) while it waits.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stdin, w := io.Pipe()
	defer w.Close()
	codexHome := t.TempDir()
	out := newOutput()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"--offline"}, Config{
			Stdin: stdin, Stdout: out, Stderr: io.Discard, Version: "test", Interactive: true,
			Getenv: func(k string) string {
				if k == "CODEX_HOME" {
					return codexHome
				}
				return os.Getenv(k)
			},
		})
	}()
	out.waitFor(t, "allow? [y] once")
	cancel()
	var code int
	select {
	case code = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the demo did not end after the interrupt:\n%s", out.String())
	}
	text := out.String()
	if code != ExitInterrupted {
		t.Errorf("exit %d, want %d:\n%s", code, ExitInterrupted, text)
	}
	wantAll(t, text, "stopping the turn (hermes.cancel)", "→ Stop turn (interrupted)", "turn interrupted")
	// A failed run keeps its folder for a look: remove it.
	if m := regexp.MustCompile(`kept (\S+) `).FindStringSubmatch(text); m != nil {
		_ = os.RemoveAll(m[1])
	}
}

func TestScriptStopsOutsideTheExample(t *testing.T) {
	t.Parallel()
	req := fakemodel.Request{Input: []fakemodel.Item{
		{Type: "message", Role: "user", Text: "fix it"},
		{Type: "function_call", Name: "exec_command", CallID: "call_1"},
		{Type: "function_call_output", CallID: "call_1", Output: "cat: calc.go: No such file or directory"},
	}}
	if r := scriptReply(req); r.Kind() != fakemodel.KindMessage || !strings.Contains(r.Text(), "only knows the example") {
		t.Errorf("reply %v %q, want a message saying it only knows the example", r.Kind(), r.Text())
	}
}

func TestRelativeDiff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"--- a/tmp/x/calc/calc.go\n+++ b/tmp/x/calc/calc.go\n", "--- a/calc.go\n+++ b/calc.go\n"},
		{"diff --git a/x/calc/calc.go b/x/calc/calc.go\n", "diff --git a/calc.go b/calc.go\n"},
		{"--- /tmp/x/calc/calc.go\n", "--- calc.go\n"},
		{"--- a/calc/sub.go\n", "--- a/calc/sub.go\n"}, // a folder of the workspace, kept
	} {
		if got := relativeDiff(c.in, "/tmp/x/calc"); got != c.want {
			t.Errorf("relativeDiff(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	if got := credentials(getenv); got != "" {
		t.Errorf("no credentials: got %q", got)
	}
	env["OPENAI_API_KEY"] = "sk-test"
	if got := credentials(getenv); got != credAPIKey {
		t.Errorf("OPENAI_API_KEY: got %q", got)
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".codex", "auth.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := credentials(getenv); got != credLogin {
		t.Errorf("~/.codex/auth.json: got %q", got)
	}
	env["CODEX_HOME"] = t.TempDir()
	if got := credentials(getenv); got != credAPIKey {
		t.Errorf("CODEX_HOME without auth.json: got %q", got)
	}
}
