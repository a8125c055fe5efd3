package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// TestDemoBinary runs hermes-demo as `make demo` does: the built binaries side by side, stdin not a
// terminal, no OpenAI credentials. The demo runs hermes-lsp beside it as its language server
// (`hermes-lsp --stdio`), on the real pinned codex and the offline scripted model.
func TestDemoBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real codex binary; skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codex.PinnedBinary(root); err != nil {
		t.Fatalf("the demo needs the pinned codex: %v", err)
	}
	bin := testbin.HermesLSP(t)
	demoBin := testbin.Command(t, "hermes-demo")

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, demoBin)
	cmd.Dir = root
	// No credentials (an empty CODEX_HOME, no key) and no prompt: the offline model.
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "PROMPT=", "CODEX_HOME="+t.TempDir())
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	out := stdout.String()
	t.Logf("hermes-demo: %v in %v", err, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("hermes-demo: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	for _, want := range []string{
		"[offline scripted model on 127.0.0.1:",
		"no OpenAI account used]",
		bin + " --stdio (pid ",
		`→ Allow once (stdin is not a terminal)`,
		"? Hermes wants to apply a patch",
		"+\tfor i := 1; i <= n; i++ {",
		"» answer",
		"usage: ",
		"turn completed · 4 approval prompt(s) answered",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	// A run that completed removes its temporary folder.
	if m := regexp.MustCompile(`workspace: (\S+)`).FindStringSubmatch(out); m == nil {
		t.Errorf("the output names no workspace")
	} else if _, err := os.Stat(filepath.Dir(m[1])); !os.IsNotExist(err) {
		t.Errorf("the temporary folder %s is still there (%v)", filepath.Dir(m[1]), err)
		_ = os.RemoveAll(filepath.Dir(m[1]))
	}
}
