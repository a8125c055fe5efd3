package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
	"go.lsp.dev/protocol"
)

// agentWrites is a turn that writes text to path on disk, as codex applying a patch does, and ends.
func agentWrites(t *testing.T, path, text string) func(ft *codextest.FakeTurn) {
	return func(ft *codextest.FakeTurn) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Error(err)
		}
		ft.AgentMessage("patched")
		ft.Complete(codex.TurnCompleted, nil)
	}
}

// TestAgentEditsReachCleanBuffers: after a turn changed an open file on disk, an editor that does
// not reload by itself (eglot) gets the new text as one whole-document edit; VS Code, which reloads
// a clean editor itself, gets none; nor does Helix, which would keep the edit as unsaved changes it
// then refuses to save over the newer file: it is told once to reload.
func TestAgentEditsReachCleanBuffers(t *testing.T) {
	for _, tc := range []struct {
		profile lsptest.Profile
		edits   int
	}{
		{lsptest.Helix2501, 0},
		{lsptest.Eglot, 1},
		{lsptest.VSCode, 0},
	} {
		t.Run(tc.profile.Name, func(t *testing.T) {
			f := start(t, tc.profile, nil)
			ctx := testCtx(t)
			path := f.file("calc.go", "package calc\n\nfunc Add(a, b int) int { return a - b }\n")
			if err := f.ed.OpenFile(ctx, path, "package calc\n\nfunc Add(a, b int) int { return a - b }\n"); err != nil {
				t.Fatal(err)
			}
			fixed := "package calc\n\nfunc Add(a, b int) int { return a + b }\n"
			f.fake.OnTurn(agentWrites(t, path, fixed))
			f.ask(ctx, map[string]any{"prompt": "fix Add"})
			f.awaitEnd(ctx)
			edits := f.ed.ApplyEdits()
			if len(edits) != tc.edits {
				t.Fatalf("applyEdit requests: %+v, want %d", edits, tc.edits)
			}
			var told []string
			for _, m := range f.ed.Messages() {
				if strings.HasPrefix(m.Message, "Hermes changed calc.go on disk") {
					told = append(told, m.Message)
				}
			}
			if want := tc.profile.Name == lsptest.Helix2501.Name; (len(told) == 1) != want || len(told) > 1 ||
				want && !strings.Contains(told[0], ":reload-all shows it") {
				t.Errorf("told to reload: %q", told)
			}
			for _, e := range edits {
				var got []string
				for u, tes := range e.Edit.Changes {
					p, _ := workspace.PathFromURI(string(u))
					for _, te := range tes {
						got = append(got, filepath.Base(p)+": "+te.NewText)
						if te.Range.Start.Line != 0 || te.Range.End.Line != 3 || te.Range.End.Character != 0 {
							t.Errorf("range %+v, want the whole document (0:0 to 3:0)", te.Range)
						}
					}
				}
				if len(got) != 1 || got[0] != "calc.go: "+fixed {
					t.Errorf("edit %q, want calc.go's new text", got)
				}
			}
		})
	}
}

// TestDirtyBufferKeepsUserEdits: a buffer with unsaved edits is never replaced; the user is told
// that the agent changed the file under it.
func TestDirtyBufferKeepsUserEdits(t *testing.T) {
	f := start(t, lsptest.Helix2501, nil)
	ctx := testCtx(t)
	path := f.file("calc.go", "package calc\n")
	if err := f.ed.OpenFile(ctx, path, "package calc\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.SetFileText(ctx, path, "package calc // mine, unsaved\n"); err != nil {
		t.Fatal(err)
	}
	f.fake.OnTurn(agentWrites(t, path, "package calc // the agent's\n"))
	f.ask(ctx, map[string]any{"prompt": "edit calc"})
	f.awaitEnd(ctx)
	if edits := f.ed.ApplyEdits(); len(edits) != 0 {
		t.Fatalf("a dirty buffer got an edit: %+v", edits)
	}
	var warned bool
	for _, m := range f.ed.Messages() {
		warned = warned || strings.Contains(m.Message, "Hermes changed calc.go on disk, but it has unsaved changes in your editor")
	}
	if !warned {
		t.Errorf("no warning about the unsaved buffer: %+v", f.ed.Messages())
	}
}

// TestSavedBufferIsClean: after didSave the buffer counts as clean again, so the agent's change
// reaches it.
func TestSavedBufferIsClean(t *testing.T) {
	f := start(t, lsptest.Eglot, nil)
	ctx := testCtx(t)
	path := f.file("a.txt", "one\n")
	if err := f.ed.OpenFile(ctx, path, "one\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.SetFileText(ctx, path, "two\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.SaveFile(ctx, path); err != nil {
		t.Fatal(err)
	}
	f.fake.OnTurn(agentWrites(t, path, "three\n"))
	f.ask(ctx, map[string]any{"prompt": "edit a"})
	f.awaitEnd(ctx)
	if edits := f.ed.ApplyEdits(); len(edits) != 1 {
		t.Fatalf("applyEdit requests after a save: %+v, want 1", edits)
	}
}

// TestPatchApprovalWarnsOfUnsavedChanges: a patch that touches a file with unsaved edits says so
// in its approval prompt, in words the user cannot miss.
func TestPatchApprovalWarnsOfUnsavedChanges(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"turnEvents": true})
	ctx := testCtx(t)
	path := f.file("calc.go", "package calc\n")
	if err := f.ed.OpenFile(ctx, path, "package calc\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.SetFileText(ctx, path, "package calc // unsaved\n"); err != nil {
		t.Fatal(err)
	}
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		var change codex.FileChange
		change.Path, change.Kind.Type, change.Diff = path, "update", "@@ -1 +1 @@\n-package calc\n+package calc2\n"
		_, _ = ft.RequestPatchApproval([]codex.FileChange{change}, "rename", "")
		ft.Complete(codex.TurnCompleted, nil)
	})
	// The prompt is answered once the progress says the turn waits for it, as a person would.
	waiting := func(st *lsptest.State) bool {
		for _, evs := range st.Progress {
			for _, p := range evs {
				if strings.Contains(p.Message, "waiting for approval") {
					return true
				}
			}
		}
		return false
	}
	f.ed.OnShowMessageRequest(func(ctx context.Context, _ protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		if err := f.ed.Await(ctx, waiting); err != nil {
			return nil, err
		}
		return &protocol.MessageActionItem{Title: hermesproto.ApprovalActionDeny}, nil
	})
	f.ask(ctx, map[string]any{"prompt": "rename the package"})
	f.awaitEnd(ctx)
	reqs := f.ed.ShowMessageRequests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].Message, "calc.go has unsaved changes in your editor: applying this patch will conflict with them") {
		t.Fatalf("approval prompt: %+v", reqs)
	}
	// The turn event that announces the approval carries the warning too (plugins build their
	// prompts from it).
	var warned bool
	for _, raw := range f.ed.State().Notifications["hermes/turnEvent"] {
		var ev hermesproto.TurnEventParams
		if err := json.Unmarshal(raw, &ev); err == nil && ev.Event.Kind == hermesproto.EventKindApprovalWaiting && ev.Event.Approval != nil {
			warned = strings.Contains(ev.Event.Approval.Warning, "calc.go has unsaved changes in your editor")
		}
	}
	if !warned {
		t.Errorf("no approvalWaiting turn event with the warning")
	}
	// So does the progress line that says the turn waits for the approval (the first report of the
	// turn, sent at once).
	tokens := f.ed.CreatedTokens()
	if len(tokens) != 1 {
		t.Fatalf("progress tokens: %v", tokens)
	}
	var reported bool
	for _, p := range f.ed.Progress(tokens[0]) {
		reported = reported || strings.Contains(p.Message, "waiting for approval") && strings.Contains(p.Message, "⚠ calc.go has unsaved changes in your editor")
	}
	if !reported {
		t.Errorf("no progress report with the warning: %+v", f.ed.Progress(tokens[0]))
	}
}

// TestAskNamesUnsavedFiles: the prompt codex gets names the folder's files with unsaved editor
// changes, since what it reads on disk is older.
func TestAskNamesUnsavedFiles(t *testing.T) {
	f := start(t, lsptest.Eglot, nil)
	ctx := testCtx(t)
	for _, name := range []string{"a.go", "b.go"} {
		path := f.file(name, "package x\n")
		if err := f.ed.OpenFile(ctx, path, "package x\n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.ed.SetFileText(ctx, filepath.Join(f.folder, "b.go"), "package x // edited\n"); err != nil {
		t.Fatal(err)
	}
	f.ask(ctx, map[string]any{"prompt": "look around"})
	f.awaitEnd(ctx)
	var prompt string
	for _, r := range f.fake.Requests() {
		if r.Method == codex.MethodTurnStart {
			prompt = string(r.Params)
		}
	}
	if !strings.Contains(prompt, "Unsaved in the editor") || !strings.Contains(prompt, "b.go") || strings.Contains(prompt, "a.go") {
		t.Errorf("turn/start params %s: want b.go named as unsaved, and a.go not", prompt)
	}
}

// TestBufferOpenedWithUnsavedEditsKeepsThem: a buffer whose text differs from its file when the
// editor opens it (edits made before, never saved) counts as dirty from the start: the agent's
// change of the file never replaces it, and the user is told.
func TestBufferOpenedWithUnsavedEditsKeepsThem(t *testing.T) {
	f := start(t, lsptest.Helix2501, nil)
	ctx := testCtx(t)
	path := f.file("calc.go", "package calc\n")
	if err := f.ed.OpenFile(ctx, path, "package calc // mine, typed before the server started\n"); err != nil {
		t.Fatal(err)
	}
	f.fake.OnTurn(agentWrites(t, path, "package calc // the agent's\n"))
	f.ask(ctx, map[string]any{"prompt": "edit calc"})
	f.awaitEnd(ctx)
	if edits := f.ed.ApplyEdits(); len(edits) != 0 {
		t.Fatalf("a buffer opened with unsaved edits got an edit: %+v", edits)
	}
	var warned bool
	for _, m := range f.ed.Messages() {
		warned = warned || strings.Contains(m.Message, "Hermes changed calc.go on disk, but it has unsaved changes in your editor")
	}
	if !warned {
		t.Errorf("no warning about the unsaved buffer: %+v", f.ed.Messages())
	}
}
