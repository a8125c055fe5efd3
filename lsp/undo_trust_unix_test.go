//go:build unix

package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// outsideDir is a folder beside the workspace folder (not inside it), with file name holding text.
func outsideDir(t *testing.T, name, text string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// sentEditFor reports whether an applyEdit request since the first skip ones names file (by base
// name, in its raw form: resource operations included).
func sentEditFor(f *fixture, skip int, file string) bool {
	for _, e := range f.ed.State().Requests["workspace/applyEdit"][skip:] {
		if strings.Contains(string(e), "/"+file+`"`) {
			return true
		}
	}
	return false
}

// TestUndoNeverWritesOutsideTheFolder: undo resolves each file again when it restores it. A
// parent folder that became a link outside (a git pull can do that) and a file that became a link
// are skipped with their reason, on disk and through the editor alike, even with force; the files
// outside stay as they were, and nothing is sent to the editor for them.
func TestUndoNeverWritesOutsideTheFolder(t *testing.T) {
	for _, profile := range []lsptest.Profile{noApplyEdit(), lsptest.VSCode} {
		t.Run(profile.Name, func(t *testing.T) {
			f := start(t, profile, map[string]any{"yolo": true})
			ctx := testCtx(t)
			if err := os.Mkdir(filepath.Join(f.folder, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			inSub := f.file("sub/a.txt", "v1\n")
			top := f.file("calc.go", "v1\n")
			f.fake.OnTurn(patchTurn(t, map[string]string{inSub: "v2\n", top: "v2\n"}))
			f.ask(ctx, map[string]any{"prompt": "bump"})
			f.awaitEnd(ctx)

			// sub/ is now a link to a folder outside whose a.txt is what the turn left (so only
			// where it is can refuse it); calc.go is now a link to a file outside.
			outSub, outA := outsideDir(t, "a.txt", "v2\n")
			_, outCalc := outsideDir(t, "calc.go", "v2\n")
			for _, step := range []error{
				os.RemoveAll(filepath.Join(f.folder, "sub")),
				os.Symlink(outSub, filepath.Join(f.folder, "sub")),
				os.Remove(top),
				os.Symlink(outCalc, top),
			} {
				if step != nil {
					t.Fatal(step)
				}
			}
			before := len(f.ed.State().Requests["workspace/applyEdit"])
			res := undo(t, f, map[string]any{"force": true})
			reasons := map[string]string{}
			for _, s := range res.Skipped {
				reasons[s.Path] = s.Reason
			}
			if reasons["sub/a.txt"] != "sub/ is now a link outside the folder" {
				t.Errorf("sub/a.txt: skipped for %q, want %q (result %+v)", reasons["sub/a.txt"], "sub/ is now a link outside the folder", res)
			}
			if !strings.Contains(reasons["calc.go"], "calc.go is now a link") {
				t.Errorf("calc.go: skipped for %q, want that it is now a link (result %+v)", reasons["calc.go"], res)
			}
			if len(res.Restored) != 0 {
				t.Errorf("restored %v", res.Restored)
			}
			for _, p := range []string{outA, outCalc} {
				if got := readText(t, p); got != "v2\n" {
					t.Errorf("%s outside the folder was written: %q", p, got)
				}
			}
			if sentEditFor(f, before, "a.txt") || sentEditFor(f, before, "calc.go") {
				t.Errorf("an edit was sent for a file that leads outside: %s", f.ed.State().Requests["workspace/applyEdit"][before:])
			}
		})
	}
}

// TestAgentEditsSkipBuffersOutsideTheFolder: the whole-document edit that brings a clean buffer in
// line after a patch goes only to documents whose file resolves inside the folder: a buffer opened
// through ws/link/o.txt, link pointing outside, gets nothing.
func TestAgentEditsSkipBuffersOutsideTheFolder(t *testing.T) {
	f := start(t, lsptest.Eglot, nil)
	ctx := testCtx(t)
	outDir, outFile := outsideDir(t, "o.txt", "outside v1\n")
	if err := os.Symlink(outDir, filepath.Join(f.folder, "link")); err != nil {
		t.Fatal(err)
	}
	through := filepath.Join(f.folder, "link", "o.txt")
	inside := f.file("calc.go", "v1\n")
	for path, text := range map[string]string{through: "outside v1\n", inside: "v1\n"} {
		if err := f.ed.OpenFile(ctx, path, text); err != nil {
			t.Fatal(err)
		}
	}
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		for path, text := range map[string]string{outFile: "outside v2\n", inside: "v2\n"} { // the first as if through the link
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Error(err)
			}
		}
		ft.Complete(codex.TurnCompleted, nil)
	})
	f.ask(ctx, map[string]any{"prompt": "write both"})
	f.awaitEnd(ctx)
	if sentEditFor(f, 0, "o.txt") {
		t.Errorf("an edit went to the buffer opened through a link outside: %s", f.ed.State().Requests["workspace/applyEdit"])
	}
	if !sentEditFor(f, 0, "calc.go") {
		t.Errorf("no edit for the buffer inside (the check is too strict): %s", f.ed.State().Requests["workspace/applyEdit"])
	}
}

// TestRefusedReloadIsNotAnUnsavedEdit: an editor that answers the whole-document edit with
// {applied: false} keeps its buffer as it was, which is not an unsaved change of the user's: a
// later undo is not refused for it.
func TestRefusedReloadIsNotAnUnsavedEdit(t *testing.T) {
	f := start(t, lsptest.Eglot, map[string]any{"yolo": true})
	ctx := testCtx(t)
	var refused atomic.Int32
	f.ed.Handle("workspace/applyEdit", func(_ context.Context, params json.RawMessage) (any, error) {
		if strings.Contains(string(params), "as the agent left it") {
			refused.Add(1)
			return protocol.ApplyWorkspaceEditResponse{Applied: false, FailureReason: "the user said no"}, nil
		}
		return protocol.ApplyWorkspaceEditResponse{Applied: true}, nil // the undo's
	})
	path := f.file("calc.go", "v1\n")
	if err := f.ed.OpenFile(ctx, path, "v1\n"); err != nil {
		t.Fatal(err)
	}
	f.fake.OnTurn(patchTurn(t, map[string]string{path: "v2\n"}))
	f.ask(ctx, map[string]any{"prompt": "bump"})
	f.awaitEnd(ctx)
	if refused.Load() == 0 {
		t.Fatal("no reload was sent (and refused) after the turn")
	}
	res := undo(t, f, map[string]any{})
	for _, s := range res.Skipped {
		if strings.Contains(s.Reason, "unsaved changes") {
			t.Fatalf("undo refused for unsaved edits the user never made: %+v", res)
		}
	}
	if len(res.Restored) != 1 {
		t.Errorf("undo: %+v", res)
	}
}
