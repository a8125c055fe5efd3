//go:build helix

// The Helix test is an opt-in tier: Helix exists only in Debian trixie and later, so it is built
// only with the helix tag (make test-helix), never skipped silently inside make test.

// Package helix_test checks editors/helix/languages.toml in a real Helix, driven through tmux. It is
// an optional tier: it runs only when HERMES_HX names a Helix binary (or a wrapper script), since
// Helix is not in Debian bookworm; editors/helix/README.md says how to get 25.01 and 25.07.
package helix_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m))
}

// TestHelixInstructionApprovalStop runs Helix with the README's languages.toml (plus the test's
// codex settings) on a markdown file: "Hermes: run instruction" from `space a` on a `hermes:` line;
// the command approval answered "Allow once" in the picker (25.07) or with the "Hermes: allow once"
// code action (25.01, which answers showMessageRequest with -32601); the final message; then a
// second turn, the "Hermes: stop turn" code action offered while it runs, and
// `:lsp-workspace-command hermes.cancel` stopping it.
func TestHelixInstructionApprovalStop(t *testing.T) {
	hx := os.Getenv("HERMES_HX")
	if hx == "" {
		t.Fatal("set HERMES_HX to a Helix binary (make test-helix HX=/path/to/hx; see editors/helix/README.md)")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatalf("the Helix test drives Helix through tmux: %v", err)
	}
	env := codextest.NewReal(t)
	env.Model.Enqueue(
		fakemodel.Exec("echo from-helix > hx_made.txt"),
		fakemodel.Message("Done in Helix."),
		fakemodel.Hang(),
	)

	tmp := t.TempDir()
	// languages.toml runs "hermes-lsp" from PATH.
	bindir := filepath.Dir(testbin.HermesLSP(t))
	if err := os.Mkdir(filepath.Join(env.Work, ".git"), 0o755); err != nil { // Helix's workspace root
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.Work, "notes.md"), []byte("hermes: create hx_made.txt with a command\nSecond line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// The README's languages.toml, with the test's codex and state folder.
	home := filepath.Join(tmp, "home")
	cfgDir := filepath.Join(home, ".config", "helix")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	snippet, err := os.ReadFile("languages.toml")
	if err != nil {
		t.Fatal(err)
	}
	// No codex args: the fake model's provider is in env.CodexHome/config.toml (codextest.NewReal).
	logFile := filepath.Join(tmp, "hermes-lsp.log")
	lt := replaceOnce(t, string(snippet), `args = ["--stdio"]`,
		fmt.Sprintf(`args = ["--stdio", "--log-file", %q, "--log-level", "debug"]`, logFile))
	lt = replaceOnce(t, lt, "[language-server.hermes-lsp.config.hermes.codex]\n",
		fmt.Sprintf("[language-server.hermes-lsp.config.hermes.codex]\npath = %q\nhome = %q\nenv = { HOME = %q, OPENAI_API_KEY = \"\", CODEX_API_KEY = \"\" }\n",
			env.Binary, env.CodexHome, env.Home))
	lt = replaceOnce(t, lt, "[language-server.hermes-lsp.config.hermes]\n",
		fmt.Sprintf("[language-server.hermes-lsp.config.hermes]\nstateDir = %q\n", filepath.Join(tmp, "state")))
	if err := os.WriteFile(filepath.Join(cfgDir, "languages.toml"), []byte(lt), 0o644); err != nil {
		t.Fatal(err)
	}

	// A tmux server of our own (its own socket), ended at the end.
	socket := filepath.Join(tmp, "tmux.sock")
	tm := func(args ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-S", socket}, args...)...).CombinedOutput()
		return string(out), err
	}
	envs := []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"PATH=" + bindir + ":" + os.Getenv("PATH"), "TERM=xterm-256color", "OPENAI_API_KEY=", "CODEX_API_KEY=",
	}
	shell := "cd " + shellQuote(env.Work) + " && exec env " + strings.Join(quoteAll(envs), " ") + " " + shellQuote(hx) + " notes.md"
	if out, err := tm("new-session", "-d", "-s", "hx", "-x", "160", "-y", "45", shell); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	t.Cleanup(func() {
		_, _ = tm("kill-server")
		proctest.EndCodex(t, env.CodexHome)
	})

	screen := func() string {
		out, _ := tm("capture-pane", "-p", "-t", "hx")
		return out
	}
	keys := func(k ...string) {
		if out, err := tm(append([]string{"send-keys", "-t", "hx"}, k...)...); err != nil {
			t.Fatalf("tmux send-keys %q: %v %s", k, err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	waitFor := func(what string, d time.Duration, cond func(string) bool) string {
		t.Helper()
		for end := time.Now().Add(d); ; time.Sleep(100 * time.Millisecond) {
			s := screen()
			if cond(s) {
				return s
			}
			if time.Now().After(end) {
				b, _ := os.ReadFile(logFile)
				t.Fatalf("timed out waiting for %s; screen:\n%s\nserver log:\n%s", what, s, b)
			}
		}
	}
	contains := func(sub string) func(string) bool {
		return func(s string) bool { return strings.Contains(s, sub) }
	}
	// pick moves a menu's selection from its first "Hermes: " line to the line holding title.
	pick := func(s, title string) {
		first, target := -1, -1
		for i, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "Hermes: ") && first < 0 {
				first = i
			}
			if strings.Contains(l, title) && target < 0 {
				target = i
			}
		}
		if first < 0 || target < first {
			t.Fatalf("no %q in the menu:\n%s", title, s)
		}
		for range target - first {
			keys("Down")
		}
		keys("Enter")
	}

	start := time.Now()
	waitFor("Helix", 10*time.Second, contains("notes.md"))
	time.Sleep(time.Second) // the servers start
	// space a on the `hermes:` line.
	keys("Space")
	keys("a")
	s := waitFor("the code actions", 10*time.Second, contains("Hermes: run instruction"))
	pick(s, "Hermes: run instruction")

	// The picker (25.07), or the fallback message (25.01; it may be cut at the screen's width).
	waitFor("the approval", 30*time.Second, contains("Hermes wants to run a command (approval"))
	time.Sleep(300 * time.Millisecond)
	s = screen()
	picker := strings.Contains(s, "Allow once")
	if picker {
		if !strings.Contains(s, "echo from-helix > hx_made.txt") || !strings.Contains(s, "Stop turn") {
			t.Errorf("approval picker:\n%s", s)
		}
		keys("Enter") // the first item: Allow once
	} else {
		// Helix 25.01: no showMessageRequest; the approval is a code action.
		keys("Space")
		keys("a")
		s = waitFor("the approval code actions", 10*time.Second, contains("Hermes: allow once: "))
		for _, want := range []string{"Hermes: allow for session: ", "Hermes: deny: ", "Hermes: stop turn"} {
			if !strings.Contains(s, want) {
				t.Errorf("code actions during the approval lack %q:\n%s", want, s)
			}
		}
		pick(s, "Hermes: allow once: ")
	}
	s = waitFor("the final message", 30*time.Second, contains("Done in Helix."))
	if got, err := os.ReadFile(filepath.Join(env.Work, "hx_made.txt")); err != nil || string(got) != "from-helix\n" {
		t.Errorf("hx_made.txt: %q, %v", got, err)
	}
	t.Logf("first turn (approval through the %s) in %v", map[bool]string{true: "picker", false: "code actions"}[picker], time.Since(start).Round(time.Millisecond))

	// A second turn: the model hangs; the stop code action is offered; the workspace command stops it.
	keys("Escape")
	keys("g", "g")
	keys("Space")
	keys("a")
	s = waitFor("the code actions", 10*time.Second, contains("Hermes: run instruction"))
	pick(s, "Hermes: run instruction")
	if err := env.Model.WaitRequests(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	keys("Space")
	keys("a")
	s = waitFor("the stop code action", 10*time.Second, contains("Hermes: stop turn"))
	keys("Escape")
	keys(":")
	keys("-l", "lsp-workspace-command hermes.cancel")
	keys("Enter")
	waitFor("the turn to stop", 20*time.Second, contains("interrupted by the user"))

	keys(":")
	keys("-l", "quit!")
	keys("Enter")
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("languages.toml has no %q", old)
	}
	return strings.Replace(s, old, new, 1)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}
