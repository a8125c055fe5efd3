package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// noApplyEdit is an editor that cannot take edits: undo writes the files itself.
func noApplyEdit() lsptest.Profile {
	p := lsptest.Eglot.Clone()
	p.Name = "NoApplyEdit"
	ws := *p.Capabilities.Workspace
	ws.ApplyEdit = false
	p.Capabilities.Workspace = &ws
	return p
}

// patchTurn is a turn that patches files as codex does: each change announced (item/started), approved,
// written on disk, completed. writes maps a path to its new content ("" deletes it).
func patchTurn(t *testing.T, writes map[string]string) func(ft *codextest.FakeTurn) {
	return func(ft *codextest.FakeTurn) {
		var changes []codex.FileChange
		for path, text := range writes {
			var c codex.FileChange
			c.Path, c.Kind.Type, c.Diff = path, "update", text
			if _, err := os.Stat(path); os.IsNotExist(err) {
				c.Kind.Type = "add"
			} else if text == "" {
				c.Kind.Type = "delete"
			}
			changes = append(changes, c)
		}
		d, _ := ft.ApplyPatch(changes, func() {
			for path, text := range writes {
				var err error
				if text == "" {
					err = os.Remove(path)
				} else {
					err = os.WriteFile(path, []byte(text), 0o644)
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
		if d != codex.DecisionAccept {
			t.Errorf("patch decision %q", d)
		}
		ft.Complete(codex.TurnCompleted, nil)
	}
}

func undo(t *testing.T, f *fixture, args map[string]any) hermesproto.UndoTurnResult {
	t.Helper()
	raw, err := f.ed.ExecuteCommand(testCtx(t), hermesproto.CmdUndoTurn, args)
	if err != nil {
		t.Fatalf("hermes.undoTurn: %v", err)
	}
	var res hermesproto.UndoTurnResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUndoTurnRestoresFiles: undoing a turn puts a modified file back, removes a created one and
// recreates a deleted one; codex's thread forgets the turn; a file changed since is refused unless
// force; the turn is listed in hermes.status until undone.
func TestUndoTurnRestoresFiles(t *testing.T) {
	f := start(t, noApplyEdit(), map[string]any{"yolo": true})
	ctx := testCtx(t)
	modified := f.file("calc.go", "package calc // before\n")
	deleted := f.file("old.go", "package calc // old\n")
	created := filepath.Join(f.folder, "new.go")
	f.fake.OnTurn(patchTurn(t, map[string]string{modified: "package calc // after\n", deleted: "", created: "package calc // new\n"}))
	asked := f.ask(ctx, map[string]any{"prompt": "rework calc"})
	f.awaitEnd(ctx)
	if readText(t, modified) != "package calc // after\n" || readText(t, created) != "package calc // new\n" || readText(t, deleted) != "<absent>" {
		t.Fatalf("the patch did not land: %q %q %q", readText(t, modified), readText(t, created), readText(t, deleted))
	}

	raw, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdStatus, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st hermesproto.Status
	_ = json.Unmarshal(raw, &st)
	if len(st.Folders) != 1 || len(st.Folders[0].UndoableTurns) != 1 || st.Folders[0].UndoableTurns[0].TurnID != asked.TurnID || len(st.Folders[0].UndoableTurns[0].Files) != 3 {
		t.Fatalf("status undoableTurns: %+v", st.Folders)
	}

	res := undo(t, f, map[string]any{})
	if res.TurnID != asked.TurnID || len(res.Restored) != 3 || len(res.Skipped) != 0 {
		t.Fatalf("undo: %+v", res)
	}
	if readText(t, modified) != "package calc // before\n" || readText(t, created) != "<absent>" || readText(t, deleted) != "package calc // old\n" {
		t.Errorf("after undo: %q %q %q", readText(t, modified), readText(t, created), readText(t, deleted))
	}
	th := f.fake.Threads()[asked.ThreadID]
	if len(th.Reverted) != 1 || th.Reverted[0] != asked.TurnID {
		t.Errorf("codex's thread still has the turn: reverted %v, turns %v", th.Reverted, th.Turns)
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdUndoTurn, map[string]any{}); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Errorf("a second undo: %v", err)
	}
}

// TestUndoTurnRefusesChangedFiles: a file changed after the turn is left alone unless force.
func TestUndoTurnRefusesChangedFiles(t *testing.T) {
	f := start(t, noApplyEdit(), map[string]any{"yolo": true})
	ctx := testCtx(t)
	path := f.file("calc.go", "v1\n")
	f.fake.OnTurn(patchTurn(t, map[string]string{path: "v2\n"}))
	f.ask(ctx, map[string]any{"prompt": "bump"})
	f.awaitEnd(ctx)
	if err := os.WriteFile(path, []byte("v3 (mine)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := undo(t, f, map[string]any{})
	if len(res.Restored) != 0 || len(res.Skipped) != 1 || res.Skipped[0].Path != "calc.go" || !strings.Contains(res.Skipped[0].Reason, "changed since the turn") {
		t.Fatalf("undo of a changed file: %+v", res)
	}
	if readText(t, path) != "v3 (mine)\n" {
		t.Fatalf("the user's change was overwritten: %q", readText(t, path))
	}
	res = undo(t, f, map[string]any{"force": true})
	if len(res.Restored) != 1 || readText(t, path) != "v1\n" {
		t.Fatalf("forced undo: %+v, file %q", res, readText(t, path))
	}
}

// TestUndoTurnThroughTheEditor: an editor that takes edits gets the revert as one (so it lands in
// its undo history): the old text, a delete for a created file.
func TestUndoTurnThroughTheEditor(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	path := f.file("calc.go", "old\n")
	created := filepath.Join(f.folder, "new.go")
	f.fake.OnTurn(patchTurn(t, map[string]string{path: "new\n", created: "fresh\n"}))
	f.ask(ctx, map[string]any{"prompt": "change"})
	f.awaitEnd(ctx)
	before := len(f.ed.State().Requests["workspace/applyEdit"])
	res := undo(t, f, map[string]any{})
	if len(res.Restored) != 2 {
		t.Fatalf("undo: %+v", res)
	}
	// Raw: go.lsp.dev's types drop resource operations (a delete) from documentChanges.
	edits := f.ed.State().Requests["workspace/applyEdit"][before:]
	var sawText, sawDelete bool
	for _, e := range edits {
		sawText = sawText || strings.Contains(string(e), `"newText":"old\n"`)
		sawDelete = sawDelete || (strings.Contains(string(e), `"kind":"delete"`) && strings.Contains(string(e), "new.go"))
		// VS Code saves what a refactoring changed (files.refactoring.autoSave) only when told.
		if !strings.Contains(string(e), `"metadata":{"isRefactoring":true}`) {
			t.Errorf("undo edit without isRefactoring metadata: %s", e)
		}
	}
	if !sawText || !sawDelete {
		t.Errorf("undo edits %+v: want the old text and a delete", edits)
	}
	// This editor records the edits without applying them: the disk still has the turn's text, and
	// the user is told to save.
	msgs := f.ed.State().ShowMessages
	if last := msgs[len(msgs)-1].Message; !strings.Contains(last, "calc.go, new.go restored in your editor but not yet on disk: save to keep the restore") &&
		!strings.Contains(last, "new.go, calc.go restored in your editor but not yet on disk") {
		t.Errorf("undo message: %q", last)
	}
}

// TestUndoTurnRefusesUnsavedBuffers: a file with unsaved edits in the editor is left alone (the
// restore would replace them); force sends the edit, over the editor's text rather than the disk's.
func TestUndoTurnRefusesUnsavedBuffers(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	path := f.file("calc.go", "v1\n")
	f.fake.OnTurn(patchTurn(t, map[string]string{path: "v2\n"}))
	f.ask(ctx, map[string]any{"prompt": "bump"})
	f.awaitEnd(ctx)
	if err := f.ed.OpenFile(ctx, path, "v2\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.SetFileText(ctx, path, "v2\nmine, unsaved\n"); err != nil {
		t.Fatal(err)
	}
	before := len(f.ed.State().Requests["workspace/applyEdit"])
	res := undo(t, f, map[string]any{})
	if len(res.Restored) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "unsaved changes in your editor") {
		t.Fatalf("undo of a file with unsaved edits: %+v", res)
	}
	if n := len(f.ed.State().Requests["workspace/applyEdit"]); n != before {
		t.Fatalf("%d edits sent for a refused undo", n-before)
	}
	res = undo(t, f, map[string]any{"force": true})
	if len(res.Restored) != 1 {
		t.Fatalf("forced undo: %+v", res)
	}
	edits := f.ed.State().Requests["workspace/applyEdit"][before:]
	if len(edits) != 1 || !strings.Contains(string(edits[0]), `"newText":"v1\n"`) || !strings.Contains(string(edits[0]), `"end":{"line":2,"character":0}`) {
		t.Errorf("forced undo edits, want v1 over the editor's two lines: %s", edits)
	}
}
