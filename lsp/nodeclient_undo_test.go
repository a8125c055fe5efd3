package lsp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// TestNodeClientUndoTurn: with Microsoft's LSP client libraries, the built binary and the real
// codex, a turn patches the open file and creates another; the client's buffer follows the patch
// (workspace/applyEdit, since this client does not reload files itself); hermes.undoTurn restores
// both through the client's workspace/applyEdit (a text edit and a DeleteFile, marked
// isRefactoring, which the client saves as VS Code does); and the next turn's model request no
// longer carries the undone turn, while the turn before it stays.
func TestNodeClientUndoTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs node and the real codex; skipped with -short")
	}
	t.Parallel()
	env := codextest.NewReal(t)
	const original = "package calc\n\nfunc Sum(n int) int { return n }\n"
	env.Model.Enqueue(
		fakemodel.Message("Noted the first turn."),
		fakemodel.Patch(fakemodel.UpdateFilePatch("calc.go", "func Sum(n int) int { return n }", "func Sum(n int) int { return n * (n + 1) / 2 }")),
		fakemodel.Patch(fakemodel.AddFilePatch("calc_test.go", "package calc\n")),
		fakemodel.Message("Patched calc.go and added a test file."),
		fakemodel.Message("Third turn."),
	)
	tmp := t.TempDir()
	file := filepath.Join(env.Work, "calc.go")
	if err := os.WriteFile(file, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := runNodeClient(t, env, tmp, file,
		"--client-name", "hermes-lsp node client",
		"--prompt", "FIRST-TURN-MARKER remember this",
		"--prompt", "UNDONE-TURN-MARKER fix Sum and add a test file",
		"--prompt", "third turn",
		"--undo-after", "2",
	)
	if len(sum.AskResults) != 3 {
		t.Fatalf("turns run: %d, want 3", len(sum.AskResults))
	}

	u := sum.UndoResult
	if u == nil || u.TurnID != sum.AskResults[1].TurnID {
		t.Fatalf("hermes.undoTurn: %+v, want turn %s", u, sum.AskResults[1].TurnID)
	}
	slices.Sort(u.Restored)
	if !slices.Equal(u.Restored, []string{"calc.go", "calc_test.go"}) || len(u.Skipped) != 0 {
		t.Errorf("undo restored %v, skipped %+v", u.Restored, u.Skipped)
	}

	// The patch reached the open buffer as an edit; the undo came as one edit with a text edit of
	// calc.go and a delete of calc_test.go, marked isRefactoring.
	var synced bool
	var undoChanges []string
	for _, e := range sum.ApplyEdits {
		synced = synced || e.Label == "Hermes: calc.go as the agent left it"
		if e.Label == "Hermes: undo the turn" {
			undoChanges = append(undoChanges, e.Changes...)
			if e.Metadata == nil || !e.Metadata.IsRefactoring {
				t.Errorf("undo edit without isRefactoring: %+v", e)
			}
		}
	}
	slices.Sort(undoChanges)
	if !synced || !slices.Equal(undoChanges, []string{"delete", "edit"}) {
		t.Errorf("applyEdits: %+v", sum.ApplyEdits)
	}

	if got, err := os.ReadFile(file); err != nil || string(got) != original {
		t.Errorf("calc.go after the undo = %q (%v), want the original", got, err)
	}
	if _, err := os.Stat(filepath.Join(env.Work, "calc_test.go")); !os.IsNotExist(err) {
		t.Errorf("calc_test.go after the undo: %v, want it gone", err)
	}

	// codex forgot the undone turn: the third turn's request carries the first turn, not the second.
	reqs := env.Model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if strings.Contains(last, "UNDONE-TURN-MARKER") {
		t.Error("the model request after the undo still carries the undone turn")
	}
	if !strings.Contains(last, "FIRST-TURN-MARKER") || !strings.Contains(last, "third turn") {
		t.Error("the model request after the undo lost the turns around the undone one")
	}
	var undoMsg string
	for _, m := range sum.ShowMessages {
		if strings.HasPrefix(m.Message, "Hermes undid ") {
			undoMsg = m.Message
		}
	}
	// The turn is named by its words, not its id.
	if !strings.HasPrefix(undoMsg, `Hermes undid "UNDONE-TURN-MARKER fix Sum and add a test file" in `) ||
		!strings.Contains(undoMsg, "2 file(s) restored") || strings.Contains(undoMsg, "not yet on disk") || !strings.Contains(undoMsg, "are not undone") {
		t.Errorf("undo message: %q", undoMsg)
	}
}
