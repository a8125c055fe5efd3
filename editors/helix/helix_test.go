//go:build helix

// The Helix test has its own step (make test-helix, in CI after make test): Helix exists only in
// Debian trixie and later, so the step fetches it, and the test is built only with the helix tag.

// Package helix_test checks editors/helix/languages.toml in a real Helix, driven through tmux: the
// Helix binary (or wrapper script) that HERMES_HX names; make test-helix runs it in Debian trixie's
// 25.01 and sid's 25.07 (editors/helix/fetch-hx.sh).
package helix_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m))
}

// TestHelixInstructionApprovalStop runs Helix with the README's languages.toml (plus the test's
// codex settings) on a markdown file: "Hermes: run instruction" from `space a` on a `hermes:` line;
// the command approval answered "Allow once" in the picker (25.07) or with the "Hermes: allow once"
// code action (25.01, which answers showMessageRequest with -32601); a patch of the open file,
// approved the same way, leaving Helix's buffer clean until `:reload-all` shows it, still clean, so
// that `:write` writes; the final message; `space k` on the instruction line showing the turn;
// "Hermes: undo last turn" putting the old text back in the buffer, and `:write` on disk;
// `:lsp-workspace-command hermes.threads` saying its answer, and hermes.resumeThread its error, in
// the statusline; then a second turn, the "Hermes: stop turn" code action offered while it runs,
// and `:lsp-workspace-command hermes.cancel` stopping it.
func TestHelixInstructionApprovalStop(t *testing.T) {
	env := codextest.NewReal(t)
	env.Model.Enqueue(
		fakemodel.Exec("echo from-helix > hx_made.txt"),
		fakemodel.Patch(fakemodel.UpdateFilePatch("notes.md", "Second line.", "Second line, patched by Hermes.")),
		fakemodel.Message("Done in Helix."),
		fakemodel.Hang(),
	)

	const original = "hermes: create hx_made.txt with a command, then patch this file\nSecond line.\n"
	if err := os.WriteFile(filepath.Join(env.Work, "notes.md"), []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	ses := startHelix(t, env, "notes.md", "")
	screen, keys, waitFor, pick, pickFrom, tm := ses.screen, ses.keys, ses.waitFor, ses.pick, ses.pickFrom, ses.tm
	// approve answers an approval "Allow once": in the picker (25.07), whose items are Deny (first),
	// Allow once, ...; or with the code action (25.01, which cannot show the picker).
	approve := func(what, details string) (picker bool) {
		waitFor(what, 30*time.Second, contains(what))
		s := waitFor("the approval's answers", 5*time.Second, func(s string) bool {
			return strings.Contains(s, "Allow once") || strings.Contains(s, "approval")
		})
		if picker = strings.Contains(s, "Allow once"); picker {
			if !strings.Contains(s, details) || !strings.Contains(s, "Stop turn") {
				t.Errorf("approval picker:\n%s", s)
			}
			item := func(name string) func(string) bool {
				return func(l string) bool { return strings.TrimSpace(strings.Trim(l, "│ ")) == name }
			}
			pickFrom(s, item("Deny"), item("Allow once"), "Allow once")
			return picker
		}
		keys("Space")
		keys("a")
		s = waitFor("the approval code actions", 10*time.Second, contains("Hermes: allow once: "))
		for _, want := range []string{"Hermes: allow for session: ", "Hermes: deny: ", "Hermes: stop turn"} {
			if !strings.Contains(s, want) {
				t.Errorf("code actions during the approval lack %q:\n%s", want, s)
			}
		}
		pick(s, "Hermes: allow once: ")
		return picker
	}

	start := time.Now()
	waitFor("Helix", 10*time.Second, contains("notes.md"))
	time.Sleep(time.Second) // the servers start
	// space a on the `hermes:` line.
	keys("Space")
	keys("a")
	s := waitFor("the code actions", 10*time.Second, contains("Hermes: run instruction"))
	pick(s, "Hermes: run instruction")

	// The command, then the patch of the open notes.md, each answered "Allow once".
	// The prompt (25.07) says "Hermes wants to run a command (approval a1)"; the fallback message
	// (25.01) "Hermes wants to run `...` (approval a1): choose Allow or Deny from the code actions".
	picker := approve("Hermes wants to run", "echo from-helix > hx_made.txt")
	approve("Hermes wants to apply a patch", "notes.md")
	waitFor("the final message", 30*time.Second, contains("Done in Helix."))
	// Helix would keep the file's new text, sent as an edit, as unsaved changes it then refuses to
	// write over the newer file: the server sends none, and says to reload. The buffer is as it was
	// and clean; :reload-all shows the patch, still clean, and :write writes.
	notes := filepath.Join(env.Work, "notes.md")
	patchedText := readFile(notes)
	if s := screen(); strings.Contains(s, "patched by Hermes") || strings.Contains(s, "notes.md [+]") {
		t.Errorf("the buffer changed before it was reloaded:\n%s", s)
	}
	keys("Escape")
	keys(":")
	keys("-l", "reload-all")
	keys("Enter")
	waitFor("the patched text in the buffer", 10*time.Second, contains("Second line, patched by Hermes."))
	keys(":")
	keys("-l", "write")
	keys("Enter")
	s = waitFor(":write to say it wrote", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "written") || strings.Contains(s, "external process")
	})
	if strings.Contains(s, "notes.md [+]") || strings.Contains(s, "external process") || readFile(notes) != patchedText {
		t.Errorf("after :reload-all and :write, notes.md = %q:\n%s", readFile(notes), s)
	}
	if got, err := os.ReadFile(filepath.Join(env.Work, "hx_made.txt")); err != nil || string(got) != "from-helix\n" {
		t.Errorf("hx_made.txt: %q, %v", got, err)
	}
	t.Logf("first turn (approvals through the %s) in %v", map[bool]string{true: "picker", false: "code actions"}[picker], time.Since(start).Round(time.Millisecond))

	// space k on the `hermes:` line shows the turn there: its state, the tools and the answer.
	keys("Escape")
	keys("g", "g")
	keys("Space")
	keys("k")
	s = waitFor("the hover on the instruction line", 10*time.Second, contains("Hermes · done"))
	if dir := os.Getenv("HERMES_SCREENSHOTS"); dir != "" {
		// The screen with its colours, for docs/images (make screenshots).
		if out, err := tm("capture-pane", "-e", "-p", "-t", "hx"); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "helix-hover.ansi"), []byte(out), 0o644)
		}
	}
	for _, want := range []string{"Done in Helix.", "echo from-helix", "Transcript:"} {
		if !strings.Contains(s, want) {
			t.Errorf("the hover lacks %q:\n%s", want, s)
		}
	}

	// Undo the turn from the code actions: the buffer shows the old line again, as an edit Helix
	// holds until it is written, with :write (the buffer was reloaded after the patch: no "file
	// modified by an external process").
	keys("Escape")
	keys("Space")
	keys("a")
	s = waitFor("the undo code action", 10*time.Second, contains("Hermes: undo last turn (1 files)"))
	pick(s, "Hermes: undo last turn (1 files)")
	waitFor("the restored text", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "Second line.") && !strings.Contains(s, "patched by Hermes")
	})
	keys(":")
	keys("-l", "write")
	keys("Enter")
	for end := time.Now().Add(5 * time.Second); readFile(notes) != original && time.Now().Before(end); time.Sleep(25 * time.Millisecond) {
	}
	if got := readFile(notes); got != original {
		t.Errorf("notes.md after the undo and :write = %q, want %q; screen:\n%s", got, original, screen())
	}

	// Commands run by hand say their answer, and their error, in the statusline (Helix shows neither).
	keys("Escape")
	keys(":")
	keys("-l", "lsp-workspace-command hermes.threads")
	keys("Enter")
	waitFor("hermes.threads' answer", 10*time.Second, contains(`Hermes: 1 thread(s): "create hx_made.txt with a command, then patch this file" (just now) current`))
	keys(":")
	keys("-l", "lsp-workspace-command hermes.resumeThread")
	keys("Enter")
	waitFor("hermes.resumeThread's error", 10*time.Second, contains("Hermes: hermes.resumeThread: hermes.resumeThread needs a threadId"))

	// A second turn: the model hangs; the stop code action is offered; the workspace command stops it.
	keys("Escape")
	keys("g", "g")
	keys("Space")
	keys("a")
	s = waitFor("the code actions", 10*time.Second, contains("Hermes: run instruction"))
	pick(s, "Hermes: run instruction")
	if err := env.Model.WaitRequests(t.Context(), 4); err != nil {
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

// readFile is the file's content, or the error's text.
func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b)
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
