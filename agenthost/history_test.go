package agenthost_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// hostile is text a model, a tool or a repository may write to act on the editor or a terminal:
// an OSC 8 link, a screen clear, a bidirectional override, a lone carriage return, a NUL.
const hostile = "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x1b[2Jcleared \u202eevil\u202c\rback\x00"

// TestThreadHistory: hermes.threadHistory's host side. A folder with no thread has an empty
// history and codex is not started for it; a thread's turns come from codex's items (thread/turns/list),
// oldest first: the prompt, the tool calls (named as the turn events name them, with their output,
// exit code and a patch's diff), the answer, a failed turn's error, a compaction. Codex's text
// reaches the history without control characters or escape sequences, and bounded. Another
// folder's thread and an id that is none are refused.
func TestThreadHistory(t *testing.T) {
	fh := newFakeHost(t, nil)
	s := fh.session(t)

	h, err := s.ThreadHistory(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if h.ThreadID != "" || len(h.Turns) != 0 || h.Folder != fh.folder || h.Turns == nil {
		t.Fatalf("history of a folder with no thread: %+v", h)
	}
	if n := len(fh.fake.Starts()); n != 0 {
		t.Errorf("codex started %d time(s) for an empty history", n)
	}

	long := strings.Repeat("x", 20*1024)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		switch {
		case strings.HasPrefix(ft.Prompt, "build it"):
			ft.Exec("make build", 2, "calc.go:3: undefined: x\n"+hostile+long)
			ft.Item(map[string]any{"type": codex.ItemFileChange, "status": codex.ItemCompleted, "changes": []codex.FileChange{
				{Path: fh.folder + "/calc.go", Kind: codex.PatchChangeKind{Type: "update"}, Diff: "@@ -1 +1 @@\n-a\n+b\n"},
				{Path: fh.folder + "/new.go", Kind: codex.PatchChangeKind{Type: "add"}, Diff: "package calc\n"},
			}})
			ft.Reasoning("thinking it over")
			ft.AgentMessage("Built. " + hostile)
			ft.Complete(codex.TurnCompleted, nil)
		default:
			ft.AgentMessage(strings.Repeat("y", 70*1024))
			ft.Complete(codex.TurnFailed, &codex.TurnError{Message: "quota exceeded " + hostile})
		}
	})
	first, _ := run(t, s, "build it "+hostile)
	compaction, err := s.Compact(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	finish(t, compaction)
	run(t, s, "and test it")

	h, err = s.ThreadHistory(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if h.ThreadID != first.ThreadID || h.Folder != fh.folder || h.Truncated || len(h.Turns) != 3 {
		t.Fatalf("history: thread %q folder %q truncated %v, %d turns", h.ThreadID, h.Folder, h.Truncated, len(h.Turns))
	}
	built := h.Turns[0]
	if built.TurnID != first.TurnID || built.Status != codex.TurnCompleted || built.Error != "" {
		t.Errorf("first turn: %s %s %q", built.TurnID, built.Status, built.Error)
	}
	kinds := []hermesproto.HistoryItemKind{}
	for _, it := range built.Items {
		kinds = append(kinds, it.Kind)
	}
	want := []hermesproto.HistoryItemKind{hermesproto.HistoryItemKindUser, hermesproto.HistoryItemKindTool, hermesproto.HistoryItemKindTool, hermesproto.HistoryItemKindAnswer}
	if strings.Join(strs(kinds), ",") != strings.Join(strs(want), ",") {
		t.Fatalf("first turn's items: %v, want %v (reasoning is not shown)", kinds, want)
	}
	user, exec, patch, answer := built.Items[0], built.Items[1], built.Items[2], built.Items[3]
	if user.Text != "build it click cleared evilback" {
		t.Errorf("prompt %q", user.Text)
	}
	if exec.Name != "exec_command" || exec.Preview != "make build" || exec.Status != codex.ItemFailed || !exec.IsError ||
		exec.ExitCode == nil || *exec.ExitCode != 2 || !strings.HasPrefix(exec.Output, "calc.go:3: undefined: x\nclick cleared evilback") {
		t.Errorf("command: %+v", exec)
	}
	if len(exec.Output) > 16*1024 || !strings.HasSuffix(exec.Output, "…") {
		t.Errorf("a 20 KiB output is %d bytes, not cut to 16 KiB", len(exec.Output))
	}
	if patch.Name != "apply_patch" || patch.Status != codex.ItemCompleted || patch.IsError ||
		!strings.Contains(patch.Diff, "--- "+fh.folder+"/calc.go\n+++ "+fh.folder+"/calc.go (update)\n@@ -1 +1 @@\n-a\n+b\n") ||
		!strings.Contains(patch.Diff, "+package calc\n") {
		t.Errorf("patch: %+v", patch)
	}
	if answer.Text != "Built. click cleared evilback" {
		t.Errorf("answer %q", answer.Text)
	}
	if c := h.Turns[1]; len(c.Items) != 1 || c.Items[0].Kind != hermesproto.HistoryItemKindCompaction {
		t.Errorf("compaction turn: %d items", len(c.Items))
	}
	failed := h.Turns[2]
	if failed.Status != codex.TurnFailed || failed.Error != "quota exceeded click cleared evilback" {
		t.Errorf("failed turn: status %q error %q", failed.Status, failed.Error)
	}
	if a := failed.Items[len(failed.Items)-1]; a.Kind != hermesproto.HistoryItemKindAnswer || len(a.Text) > 64*1024 || !utf8.ValidString(a.Text) {
		t.Errorf("a 70 KiB answer is %d bytes, not cut to 64 KiB", len(a.Text))
	}
	for _, turn := range h.Turns {
		for _, it := range turn.Items {
			for _, text := range []string{it.Text, it.Output, it.Diff, it.Preview, it.Name} {
				if strings.ContainsAny(text, "\x1b\x00\r\u202e\u202c\a") {
					t.Errorf("item %s keeps a control character: %q", it.ItemID, text)
				}
			}
		}
	}

	// Another thread of the folder, by id; one of another folder, or no id at all, is refused.
	if err := s.NewThread(); err != nil {
		t.Fatal(err)
	}
	other, _ := run(t, s, "and test it")
	if h, err := s.ThreadHistory(t.Context(), first.ThreadID); err != nil || h.ThreadID != first.ThreadID || len(h.Turns) != 3 {
		t.Errorf("history of the folder's older thread: %v, %s with %d turns", err, h.ThreadID, len(h.Turns))
	}
	if h, err := s.ThreadHistory(t.Context(), ""); err != nil || h.ThreadID != other.ThreadID || len(h.Turns) != 1 {
		t.Errorf("history of the folder's new thread: %v, %s with %d turns", err, h.ThreadID, len(h.Turns))
	}
	elsewhere, err := fh.Session(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := elsewhere.ThreadHistory(t.Context(), first.ThreadID); err == nil || !strings.Contains(err.Error(), "is not one of") {
		t.Errorf("another folder's thread: %v", err)
	}
	if _, err := s.ThreadHistory(t.Context(), "../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "not a thread id") {
		t.Errorf("a path as thread id: %v", err)
	}
}

func strs[T ~string](v []T) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = string(s)
	}
	return out
}
