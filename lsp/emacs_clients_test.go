package lsp_test

// Tests of the Emacs clients' profiles (lsp-mode 8 and eglot 1.9, as hermes-lsp.el sets them up)
// against what they can take: undo's edit, and the buffers after a turn.

import (
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestUndoWithoutEditMetadata: eglot 1.9 fails a workspace/applyEdit with a metadata member
// ("Internal error"): an editor that does not declare workspaceEdit.metadataSupport gets the undo's
// edit without it, and takes it.
func TestUndoWithoutEditMetadata(t *testing.T) {
	for _, profile := range []lsptest.Profile{lsptest.Eglot19, lsptest.LspMode8} {
		t.Run(profile.Name, func(t *testing.T) {
			f := start(t, profile, map[string]any{"yolo": true})
			ctx := testCtx(t)
			path := f.file("calc.go", "old\n")
			f.fake.OnTurn(patchTurn(t, map[string]string{path: "new\n"}))
			f.ask(ctx, map[string]any{"prompt": "change"})
			f.awaitEnd(ctx)
			before := len(f.ed.State().Requests["workspace/applyEdit"])
			res := undo(t, f, map[string]any{})
			if len(res.Restored) != 1 || len(res.Skipped) != 0 {
				t.Fatalf("undo: %+v", res)
			}
			edits := f.ed.State().Requests["workspace/applyEdit"][before:]
			if len(edits) != 1 || !strings.Contains(string(edits[0]), `"newText":"old\n"`) || strings.Contains(string(edits[0]), `"metadata"`) {
				t.Fatalf("undo edits: %s", edits)
			}
			msgs := f.ed.State().ShowMessages
			if last := msgs[len(msgs)-1].Message; strings.Contains(last, "refused") || !strings.Contains(last, "Hermes undid turn") {
				t.Errorf("undo message: %q", last)
			}
		})
	}
}

// TestUndoRefusedEditRestoresOnDisk: when the editor refuses the undo's edit, the file is restored
// on disk instead and the message says so.
func TestUndoRefusedEditRestoresOnDisk(t *testing.T) {
	p := lsptest.Eglot19.Clone()
	p.Name = "Eglot19Refusing"
	p.ApplyEdit = lsptest.AnswerInternalError
	f := start(t, p, map[string]any{"yolo": true})
	ctx := testCtx(t)
	path := f.file("calc.go", "old\n")
	f.fake.OnTurn(patchTurn(t, map[string]string{path: "new\n"}))
	f.ask(ctx, map[string]any{"prompt": "change"})
	f.awaitEnd(ctx)
	res := undo(t, f, map[string]any{})
	if len(res.Restored) != 1 || len(res.Skipped) != 0 {
		t.Fatalf("undo: %+v", res)
	}
	if got := readText(t, path); got != "old\n" {
		t.Fatalf("after a refused edit the file holds %q, want it restored on disk", got)
	}
	msgs := f.ed.State().ShowMessages
	if last := msgs[len(msgs)-1].Message; !strings.Contains(last, "the editor refused the edit: calc.go restored on disk instead") {
		t.Errorf("undo message: %q", last)
	}
}
