// Package emacs_test runs editors/emacs/hermes-lsp.el in a real Emacs (batch): byte-compiled
// without warnings, then lsp-mode with hermes-lsp as an add-on beside a buffer's main server, and
// eglot with hermes-lsp as a text-mode server, each running a command through it, and answering
// codex's questions (questions_test.go). It needs emacs and Debian's elpa-lsp-mode and elpa-eglot,
// which make test installs.
package emacs_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/stdiobridge"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(bridgeEnv); addr != "" {
		os.Exit(stdiobridge.Bridge(addr)) // started by Emacs as its language server (TestQuestions)
	}
	os.Exit(testbin.Main(m))
}

// elpa is where Debian's elpa-* packages put Emacs packages.
const elpa = "/usr/share/emacs/site-lisp/elpa"

func needEmacs(t *testing.T) string {
	t.Helper()
	emacs, err := exec.LookPath("emacs")
	if err != nil {
		t.Fatalf("the Emacs client's test needs emacs (make test installs it; by hand: apt-get install emacs-nox elpa-lsp-mode elpa-eglot): %v", err)
	}
	for _, pkg := range []string{"lsp-mode-*", "eglot-*"} {
		if m, _ := filepath.Glob(filepath.Join(elpa, pkg)); len(m) == 0 {
			t.Fatalf("the Emacs client's test needs %s in %s (apt-get install elpa-lsp-mode elpa-eglot)", pkg, elpa)
		}
	}
	return emacs
}

func emacsRun(t *testing.T, emacs string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(emacs, append([]string{"--batch", "-Q"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(90 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestByteCompile: hermes-lsp.el (and the files it loads) compiles without a warning against
// lsp-mode and eglot.
func TestByteCompile(t *testing.T) {
	emacs := needEmacs(t)
	dir := t.TempDir()
	files, err := filepath.Glob("hermes-lsp*.el")
	if err != nil || len(files) < 2 {
		t.Fatalf("the package's files: %v %v", files, err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := emacsRun(t, emacs, nil, "--eval", `(progn
  (setq package-directory-list (list "`+elpa+`"))
  (package-initialize)
  (require 'lsp-mode)
  (require 'eglot)
  (setq byte-compile-error-on-warn t)
  (add-to-list 'load-path "`+dir+`")
  (unless (byte-compile-file "`+filepath.Join(dir, "hermes-lsp.el")+`") (kill-emacs 1)))`)
	if err != nil {
		t.Fatalf("byte-compile: %v\n%s", err, out)
	}
}

// TestClients runs hermes-lsp under lsp-mode (an add-on beside the buffer's main server) and under
// eglot, each through the whole loop (test/clients.el): hermes.status; a turn whose patch approval
// is asked in the minibuffer (the diff in a diff-mode buffer), dismissed with C-g and still pending,
// then answered with hermes-lsp-approve; the buffer reloaded from disk by auto-revert, unmodified;
// progress in the mode line (eglot); hermes-lsp-undo, saved on disk; a reply in the transcript that
// runs on its thread, in the project folder; then a patch of two hunks, the second reverted through
// the code action "Hermes: revert this change" (in the buffer, which waits to be saved).
func TestClients(t *testing.T) {
	emacs := needEmacs(t)
	env := codextest.NewReal(t)
	server := testbin.HermesLSP(t)
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", env.Work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	file := filepath.Join(env.Work, "notes.txt")
	const original = "hermes: say hello\nSecond.\nThird.\nFourth.\n"
	if err := os.WriteFile(file, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	settings, err := json.Marshal(env.HermesSettings(filepath.Join(t.TempDir(), "state")))
	if err != nil {
		t.Fatal(err)
	}
	for _, client := range []string{"lsp-mode", "eglot"} {
		t.Run(client, func(t *testing.T) {
			if err := os.WriteFile(file, []byte(original), 0o644); err != nil {
				t.Fatal(err)
			}
			env.Model.Enqueue(
				fakemodel.Patch(fakemodel.UpdateFilePatch("notes.txt", "hermes: say hello", "hello from the agent")),
				fakemodel.Message("Patched."),
				fakemodel.Message("Replied from the transcript."),
				fakemodel.Patch("*** Begin Patch\n*** Update File: notes.txt\n@@\n-Second.\n+Second, patched.\n@@\n-Fourth.\n+Fourth, patched.\n*** End Patch\n"),
				fakemodel.Message("Patched two lines."),
			)
			tmp := t.TempDir()
			summaryPath := filepath.Join(tmp, "summary.json")
			out, err := emacsRun(t, emacs, []string{
				"HOME=" + tmp, "HERMES_EMACS_CLIENT=" + client, "HERMES_EMACS_ELPA=" + elpa, "HERMES_EMACS_PLUGIN=" + plugin,
				"HERMES_EMACS_SERVER=" + server, "HERMES_EMACS_SETTINGS=" + string(settings), "HERMES_EMACS_FILE=" + file,
				"HERMES_EMACS_TMP=" + tmp, "HERMES_EMACS_SUMMARY=" + summaryPath,
			}, "-l", filepath.Join(plugin, "test", "clients.el"))
			raw, rerr := os.ReadFile(summaryPath)
			if err != nil || rerr != nil {
				t.Fatalf("emacs: %v (summary: %v)\n%s\n%s", err, rerr, raw, out)
			}
			var s struct {
				Servers        []string   `json:"servers"`
				AddOn          bool       `json:"addOn"`
				StatusFolders  int        `json:"statusFolders"`
				StatusFolder   string     `json:"statusFolder"`
				StatusAgent    string     `json:"statusAgent"`
				ThreadID       string     `json:"threadId"`
				Asked          [][]string `json:"asked"` // [prompt, approval buffer text, its mode]
				Reloaded       any        `json:"reloaded"`
				AutoRevert     bool       `json:"autoRevert"`
				Progress       any        `json:"progress"`
				UndoRestored   []string   `json:"undoRestored"`
				Undone         bool       `json:"undone"`
				UndoRefused    bool       `json:"undoRefused"`
				FallbackSaid   bool       `json:"fallbackSaid"`
				ReplyFolder    string     `json:"replyFolder"`
				ReplyThread    string     `json:"replyThread"`
				TranscriptMode bool       `json:"transcriptMode"`
				// The two-hunk patch, its second hunk reverted through the code action.
				ChangesAfterRevert int    `json:"changesAfterRevert"`
				RevertedText       string `json:"revertedText"`
				RevertedModified   bool   `json:"revertedModified"`
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("summary %s: %v", raw, err)
			}
			if s.StatusFolders != 1 || !strings.HasSuffix(s.StatusFolder, filepath.Base(env.Work)) || !strings.HasPrefix(s.StatusAgent, "codex") {
				t.Errorf("hermes.status through %s: %s", client, raw)
			}
			// The approval: asked in the minibuffer (Deny the default), dismissed, then answered with
			// hermes-lsp-approve, the patch's diff in a diff-mode buffer.
			if len(s.Asked) != 2 || !strings.Contains(s.Asked[0][0], "Hermes wants to apply a patch") || !strings.Contains(s.Asked[0][0], "[Deny]") ||
				s.Asked[0][2] != "diff-mode" || !strings.Contains(s.Asked[1][1], "+hello from the agent") || s.Asked[1][2] != "diff-mode" {
				t.Errorf("the approval's questions: %q", s.Asked)
			}
			if text, _ := s.Reloaded.(string); !strings.Contains(text, "hello from the agent") || !s.AutoRevert {
				t.Errorf("the buffer after the patch: %v (auto-revert %v), want the disk's text, unmodified", s.Reloaded, s.AutoRevert)
			}
			if p, _ := s.Progress.(string); client == "eglot" && !strings.Contains(p, "Hermes") {
				t.Errorf("no Hermes progress in eglot's mode line: %v", s.Progress)
			}
			if !s.FallbackSaid {
				t.Errorf("no word after the dismissed prompt of how to answer (M-x hermes-lsp-approve)")
			}
			// Through the editor (eglot 1.9 refused an edit with metadata), then saved.
			if len(s.UndoRestored) != 1 || s.UndoRestored[0] != "notes.txt" || !s.Undone || s.UndoRefused {
				t.Errorf("undo: restored %q, on disk as before: %v, the editor refused the edit: %v", s.UndoRestored, s.Undone, s.UndoRefused)
			}
			if s.ReplyFolder != env.Work || s.ReplyThread == "" || s.ReplyThread != s.ThreadID || !s.TranscriptMode {
				t.Errorf("the reply in the transcript ran in %q on %q, want %q on %q (transcript mode %v)", s.ReplyFolder, s.ReplyThread, env.Work, s.ThreadID, s.TranscriptMode)
			}
			// The code action put the fourth line back in the buffer (an edit: the buffer waits to be
			// saved), the second stays changed and under review.
			if want := strings.Replace(original, "Second.", "Second, patched.", 1); s.RevertedText != want || !s.RevertedModified || s.ChangesAfterRevert != 1 {
				t.Errorf("after \"Hermes: revert this change\": %q (modified %v), %d change(s) left; want %q, modified, 1 left",
					s.RevertedText, s.RevertedModified, s.ChangesAfterRevert, want)
			}
			if client == "lsp-mode" {
				joined := strings.Join(s.Servers, ",")
				if !s.AddOn || !strings.Contains(joined, "main-server") || !strings.Contains(joined, "hermes-lsp") {
					t.Errorf("lsp-mode: want hermes-lsp as an add-on beside main-server: %s", raw)
				}
			}
		})
	}
}
