package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// twentyLines is a file of twenty numbered lines; twoHunks is it with line 3 replaced and line 15
// replaced by two lines: a patch of two hunks.
var (
	twentyLines = numberedLines(20)
	twoHunks    = strings.Replace(strings.Replace(twentyLines, "line 3\n", "LINE 3\n", 1), "line 15\n", "LINE 15\nLINE 15b\n", 1)
	firstBack   = strings.Replace(twoHunks, "LINE 3\n", "line 3\n", 1) // the first hunk reverted
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// appliesEdits is an editor that applies the server's workspace/applyEdit to its buffers, as
// VS Code does, and saves what it changed (VS Code saves a refactoring's edits: the server sends
// isRefactoring): the file on disk and didSave.
func appliesEdits(t *testing.T, ed *atomic.Pointer[lsptest.Editor]) lsptest.Option {
	return lsptest.WithHandler(protocol.MethodWorkspaceApplyEdit, func(ctx context.Context, params json.RawMessage) (any, error) {
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					TextDocument struct {
						URI protocol.DocumentURI `json:"uri"`
					} `json:"textDocument"`
					Edits []protocol.TextEdit `json:"edits"`
				} `json:"documentChanges"`
			} `json:"edit"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		for _, dc := range p.Edit.DocumentChanges {
			path := uri.URI(dc.TextDocument.URI).Filename()
			edits := slices.Clone(dc.Edits)
			slices.SortFunc(edits, func(a, b protocol.TextEdit) int { // last first: each holds in the text before it
				return int(b.Range.Start.Line) - int(a.Range.Start.Line)
			})
			var changes []protocol.TextDocumentContentChangeEvent
			for _, e := range edits {
				changes = append(changes, protocol.TextDocumentContentChangeEvent{Range: e.Range, Text: e.NewText})
			}
			if err := ed.Load().ChangeFile(ctx, path, changes...); err != nil {
				return nil, err
			}
			text, _, _ := ed.Load().BufferText(path)
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Error(err)
			}
			if err := ed.Load().SaveFile(ctx, path); err != nil {
				t.Error(err)
			}
		}
		return protocol.ApplyWorkspaceEditResponse{Applied: true}, nil
	})
}

// changesOf returns hermes.changes' answer for args.
func changesOf(t *testing.T, f *fixture, args any) []hermesproto.ChangeInfo {
	t.Helper()
	var res hermesproto.ChangesResult
	command(t, f, hermesproto.CmdChanges, args, &res)
	return res.Changes
}

// revertChange runs hermes.revertChange.
func revertChange(t *testing.T, f *fixture, args any) hermesproto.RevertChangeResult {
	t.Helper()
	var res hermesproto.RevertChangeResult
	command(t, f, hermesproto.CmdRevertChange, args, &res)
	return res
}

// actionTitled is the code action titled title on line of path.
func actionTitled(t *testing.T, f *fixture, path string, line uint32, title string) protocol.CodeAction {
	t.Helper()
	actions := codeActionsOn(t, f, path, line)
	for _, a := range actions {
		if a.Title == title {
			return a
		}
	}
	t.Fatalf("no code action %q on line %d: %+v", title, line, actions)
	return protocol.CodeAction{}
}

// TestChangesUnderReview: a patch of two hunks in an open file is two changes under review, listed
// by hermes.changes and published as Hint diagnostics (with inlay hints and hover) once the buffer
// shows the patch; reverting one through its code action puts back that hunk only, in the buffer
// and the file, and keeps the other; the next turn's input tells the model; the user's edit inside
// the other change keeps it from being reverted without force.
func TestChangesUnderReview(t *testing.T) {
	var ed atomic.Pointer[lsptest.Editor]
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true}, appliesEdits(t, &ed))
	ed.Store(f.ed)
	ctx := testCtx(t)
	calc := f.file("calc.txt", twentyLines)
	if err := f.ed.OpenFile(ctx, calc, twentyLines); err != nil {
		t.Fatal(err)
	}
	var inputs []string
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		inputs = append(inputs, ft.Prompt)
		if len(inputs) == 1 {
			patchTurn(t, map[string]string{calc: twoHunks})(ft)
			return
		}
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	asked := f.ask(ctx, map[string]any{"prompt": "shout two lines"})
	f.awaitEnd(ctx)
	// VS Code reloads the clean buffer whose file changed: the changes show then.
	if err := f.ed.SetFileText(ctx, calc, twoHunks); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 2)); err != nil {
		t.Fatalf("no diagnostics of the two changes: %v\n%s", err, f.ed.State())
	}
	diags, _ := publishedFor(f.ed.State(), calc)
	for i, want := range []struct {
		rng protocol.Range
		msg string
	}{
		{protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2, Character: 6}}, "Hermes changed this (+1 −1): keep or revert"},
		{protocol.Range{Start: protocol.Position{Line: 14}, End: protocol.Position{Line: 15, Character: 8}}, "Hermes changed this (+2 −1): keep or revert"},
	} {
		d := diags[i]
		if d.Source != "hermes" || d.Code != "change" || d.Severity != protocol.DiagnosticSeverityHint || d.Range != want.rng || d.Message != want.msg {
			t.Errorf("change %d's diagnostic: %+v", i, d)
		}
	}
	list := changesOf(t, f, map[string]any{"uri": string(uri.File(calc))})
	if len(list) != 2 || list[0].Range != diags[0].Range || list[1].Range != diags[1].Range || list[0].TurnID != asked.TurnID ||
		list[0].Added != 1 || list[0].Removed != 1 || list[1].Added != 2 || list[1].Removed != 1 || list[0].URI != string(uri.File(calc)) ||
		list[0].Old != "line 3\n" || list[1].Old != "line 15\n" {
		t.Fatalf("hermes.changes: %+v", list)
	}
	if all := changesOf(t, f, nil); len(all) != 2 {
		t.Errorf("hermes.changes of every folder: %+v", all)
	}
	for i, d := range diags {
		raw, _ := json.Marshal(d.Data)
		if want := fmt.Sprintf(`{"changeId":%q}`, list[i].ChangeID); string(raw) != want {
			t.Errorf("change %d's diagnostic data %s, want %s", i, raw, want)
		}
	}
	var hints []struct {
		Position protocol.Position `json:"position"`
		Label    string            `json:"label"`
	}
	if err := f.ed.Call(ctx, "textDocument/inlayHint", map[string]any{
		"textDocument": map[string]any{"uri": uri.File(calc)},
		"range":        protocol.Range{End: protocol.Position{Line: 20}},
	}, &hints); err != nil {
		t.Fatal(err)
	}
	if len(hints) != 2 || hints[0].Label != "✎ +1 −1" || hints[0].Position != (protocol.Position{Line: 2, Character: 6}) || hints[1].Label != "✎ +2 −1" {
		t.Errorf("inlay hints: %+v", hints)
	}
	var hover struct {
		Contents protocol.MarkupContent `json:"contents"`
	}
	if err := f.ed.Call(ctx, "textDocument/hover", &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(calc)}, Position: protocol.Position{Line: 15},
	}}, &hover); err != nil {
		t.Fatal(err)
	}
	if v := hover.Contents.Value; hover.Contents.Kind != protocol.Markdown || !strings.Contains(v, "```diff\n-line 15\n+LINE 15\n+LINE 15b\n```") {
		t.Errorf("hover on the second change: %+v", hover.Contents)
	}

	// Revert the first through its code action: that hunk only, in the buffer and on disk.
	revert := actionTitled(t, f, calc, 2, hermesproto.CodeActionTitleRevertChange)
	if revert.Kind != protocol.QuickFix || len(revert.Diagnostics) != 1 || revert.Diagnostics[0].Message != diags[0].Message {
		t.Errorf("the revert action: %+v", revert)
	}
	var res hermesproto.RevertChangeResult
	command(t, f, revert.Command.Command, argsOf(t, revert), &res)
	if len(res.Reverted) != 1 || res.Reverted[0] != list[0].ChangeID || len(res.Skipped) != 0 {
		t.Fatalf("revert: %+v", res)
	}
	if text, _, _ := f.ed.BufferText(calc); text != firstBack {
		t.Errorf("the buffer after the revert:\n%s", text)
	}
	if disk := readText(t, calc); disk != firstBack {
		t.Errorf("the file after the revert:\n%s", disk)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 1)); err != nil {
		t.Fatal(err)
	}
	left := changesOf(t, f, nil)
	if len(left) != 1 || left[0].ChangeID != list[1].ChangeID || left[0].Range.Start.Line != 14 {
		t.Fatalf("the change left: %+v", left)
	}

	// The next turn's input tells the model, once.
	f.ask(ctx, map[string]any{"prompt": "and now?"})
	f.awaitEndN(ctx, 2)
	f.ask(ctx, map[string]any{"prompt": "again?"})
	f.awaitEndN(ctx, 3)
	if len(inputs) != 3 || !strings.Contains(inputs[1], "`calc.txt` line 3: your change (+1 −1) is reverted") ||
		!strings.Contains(inputs[1], "line 3\n") || !strings.Contains(inputs[1], "LINE 3\n") || !strings.HasSuffix(inputs[1], "and now?") {
		t.Errorf("the next turn's input:\n%s", inputs[1])
	}
	if len(inputs) == 3 && inputs[2] != "again?" {
		t.Errorf("the note was told again:\n%s", inputs[2])
	}

	// The user edits a line of the other change: no revert without force.
	if err := f.ed.ChangeFile(ctx, calc, protocol.TextDocumentContentChangeEvent{
		Range: protocol.Range{Start: protocol.Position{Line: 15, Character: 4}, End: protocol.Position{Line: 15, Character: 4}}, Text: " mine",
	}); err != nil {
		t.Fatal(err)
	}
	edited, _, _ := f.ed.BufferText(calc)
	res = revertChange(t, f, map[string]any{"changeId": list[1].ChangeID})
	if len(res.Reverted) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "you edited these lines") {
		t.Fatalf("revert of an edited change: %+v", res)
	}
	if text, _, _ := f.ed.BufferText(calc); text != edited {
		t.Errorf("an edited change was reverted:\n%s", text)
	}
	res = revertChange(t, f, map[string]any{"changeId": list[1].ChangeID, "force": true})
	if len(res.Reverted) != 1 {
		t.Fatalf("forced revert: %+v", res)
	}
	if text, _, _ := f.ed.BufferText(calc); text != twentyLines {
		t.Errorf("the buffer after the forced revert:\n%s", text)
	}
	if len(changesOf(t, f, nil)) != 0 {
		t.Error("changes left after both were reverted")
	}
}

// TestChangesSurviveRestart: the changes of a file the editor does not have open are published at
// once, kept across a restart (published again, listed), reverted on disk (that hunk only, the
// other's lines following), and kept with the keep action; the turn's checkpoint has the revert.
func TestChangesSurviveRestart(t *testing.T) {
	f := start(t, lsptest.Helix2501, map[string]any{"yolo": true})
	ctx := testCtx(t)
	calc := f.file("calc.txt", twentyLines)
	f.fake.OnTurn(patchTurn(t, map[string]string{calc: twoHunks}))
	f.ask(ctx, map[string]any{"prompt": "shout two lines"})
	f.awaitEnd(ctx)
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 2)); err != nil {
		t.Fatal(err)
	}
	before := changesOf(t, f, nil)

	g := startIn(t, f.folder, f.state, lsp.Options{}, lsptest.Helix2501, nil)
	if err := g.ed.Await(ctx, diagnosticsFor(calc, 2)); err != nil {
		t.Fatalf("the changes were not published again after a restart: %v", err)
	}
	after := changesOf(t, g, nil)
	if len(after) != 2 || after[0].ChangeID != before[0].ChangeID || after[1].Range != before[1].Range {
		t.Fatalf("the changes after a restart: %+v, before %+v", after, before)
	}
	res := revertChange(t, g, map[string]any{"changeId": after[0].ChangeID})
	if len(res.Reverted) != 1 || readText(t, calc) != firstBack {
		t.Fatalf("revert on disk: %+v\n%s", res, readText(t, calc))
	}
	left := changesOf(t, g, nil)
	if len(left) != 1 || left[0].Range.Start.Line != 14 {
		t.Fatalf("the change left: %+v", left)
	}
	keep := actionTitled(t, g, calc, 14, hermesproto.CodeActionTitleKeepChange)
	var kept hermesproto.KeepChangeResult
	command(t, g, keep.Command.Command, argsOf(t, keep), &kept)
	if kept.Kept != 1 || len(changesOf(t, g, nil)) != 0 || readText(t, calc) != firstBack {
		t.Errorf("keep: %+v", kept)
	}
	if err := g.ed.Await(ctx, diagnosticsFor(calc, 0)); err != nil {
		t.Fatal(err)
	}
	// The revert is in the turn's checkpoint: undoing the turn needs no force (Helix takes the
	// undo's edit; this fake editor only records it).
	if res := undo(t, g, map[string]any{}); len(res.Restored) != 1 || len(res.Skipped) != 0 {
		t.Errorf("undo after a revert: %+v", res)
	}
}

// TestChangesOff: with edits.review false a patch makes no change under review.
func TestChangesOff(t *testing.T) {
	f := start(t, lsptest.Helix2501, map[string]any{"yolo": true, "edits": map[string]any{"review": false}})
	ctx := testCtx(t)
	calc := f.file("calc.txt", twentyLines)
	f.fake.OnTurn(patchTurn(t, map[string]string{calc: twoHunks}))
	f.ask(ctx, map[string]any{"prompt": "shout two lines"})
	f.awaitEnd(ctx) // what the turn's patch published went out before the answer
	if diags, n := publishedFor(f.ed.State(), calc); n > 0 && len(diags) > 0 {
		t.Errorf("diagnostics with edits.review off: %+v", diags)
	}
	if list := changesOf(t, f, nil); len(list) != 0 {
		t.Errorf("hermes.changes with edits.review off: %+v", list)
	}
	if actions := codeActionsOn(t, f, calc, 2); slices.ContainsFunc(actions, func(a protocol.CodeAction) bool {
		return strings.HasPrefix(a.Title, hermesproto.CodeActionTitleKeepAll) || a.Title == hermesproto.CodeActionTitleRevertFile
	}) {
		t.Errorf("code actions with edits.review off: %+v", actions)
	}
	// Nothing was recorded meanwhile: turned on, it shows none either.
	if err := f.ed.ChangeConfiguration(ctx, map[string]any{"hermes": map[string]any{"edits": map[string]any{"review": true}}}); err != nil {
		t.Fatal(err)
	}
	waitSettings(t, f, 1)
	if list := changesOf(t, f, nil); len(list) != 0 {
		t.Errorf("changes recorded while edits.review was off: %+v", list)
	}
}

// TestUndoTurnClearsChanges: undoing a turn takes its changes away with it.
func TestUndoTurnClearsChanges(t *testing.T) {
	f := start(t, noApplyEdit(), map[string]any{"yolo": true})
	ctx := testCtx(t)
	calc := f.file("calc.txt", twentyLines)
	f.fake.OnTurn(patchTurn(t, map[string]string{calc: twoHunks}))
	asked := f.ask(ctx, map[string]any{"prompt": "shout two lines"})
	f.awaitEnd(ctx)
	if len(changesOf(t, f, nil)) != 2 {
		t.Fatal("no changes under review")
	}
	res := undo(t, f, map[string]any{"turnId": asked.TurnID})
	if len(res.Restored) != 1 || readText(t, calc) != twentyLines {
		t.Fatalf("undo: %+v", res)
	}
	if list := changesOf(t, f, nil); len(list) != 0 {
		t.Errorf("changes left after the undo: %+v", list)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 0)); err != nil {
		t.Fatal(err)
	}
}

// TestChangesOfOneTurnComputedAgain: a turn that patches a file again has its changes of the file
// computed again from the file before its first patch: a hunk unchanged keeps its change (and id),
// one the user kept meanwhile stays kept, a new one is added; nothing is reverted while the turn
// runs.
func TestChangesOfOneTurnComputedAgain(t *testing.T) {
	f := start(t, lsptest.Helix2501, map[string]any{"yolo": true})
	ctx := testCtx(t)
	calc := f.file("calc.txt", twentyLines)
	second := make(chan struct{})
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		patch := func(text string) {
			var c codex.FileChange
			c.Path, c.Kind.Type, c.Diff = calc, "update", "@@\n"
			_, _ = ft.ApplyPatch([]codex.FileChange{c}, func() {
				if err := os.WriteFile(calc, []byte(text), 0o644); err != nil {
					t.Error(err)
				}
			})
		}
		patch(twoHunks)
		select {
		case <-second:
		case <-ft.Done():
			return
		}
		patch(strings.Replace(twoHunks, "line 19\n", "LINE 19\n", 1))
		ft.Complete(codex.TurnCompleted, nil)
	})
	f.ask(ctx, map[string]any{"prompt": "shout"})
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 2)); err != nil {
		t.Fatal(err)
	}
	first := changesOf(t, f, nil)
	res := revertChange(t, f, map[string]any{"changeId": first[1].ChangeID})
	if len(res.Reverted) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "a turn is running") {
		t.Errorf("a revert while the turn runs: %+v", res)
	}
	var kept hermesproto.KeepChangeResult
	command(t, f, hermesproto.CmdKeepChange, map[string]any{"changeId": first[0].ChangeID}, &kept)
	if kept.Kept != 1 {
		t.Fatalf("keep: %+v", kept)
	}
	close(second)
	f.awaitEnd(ctx)
	now := changesOf(t, f, nil)
	if len(now) != 2 || now[0].ChangeID != first[1].ChangeID || now[1].Range.Start.Line != 19 || now[1].ChangeID == first[0].ChangeID {
		t.Errorf("the changes after the second patch: %+v (after the first: %+v)", now, first)
	}
}

// TestChangesWaitForTheBuffer: in a buffer with unsaved edits (the server keeps them over the
// agent's patch) the changes are listed but not shown nor reverted until the buffer shows the
// patch (the user reloads it); saving one's own text over the patch ends them.
func TestChangesWaitForTheBuffer(t *testing.T) {
	f := start(t, lsptest.Neovim07, map[string]any{"yolo": true})
	ctx := testCtx(t)
	reloaded, saved := f.file("a.txt", twentyLines), f.file("b.txt", twentyLines)
	mine := "mine\n" + twentyLines
	for _, path := range []string{reloaded, saved} {
		if err := f.ed.OpenFile(ctx, path, twentyLines); err != nil {
			t.Fatal(err)
		}
		if err := f.ed.ChangeFile(ctx, path, protocol.TextDocumentContentChangeEvent{Text: "mine\n"}); err != nil {
			t.Fatal(err)
		}
	}
	f.fake.OnTurn(patchTurn(t, map[string]string{reloaded: twoHunks, saved: twoHunks}))
	f.ask(ctx, map[string]any{"prompt": "shout"})
	f.awaitEnd(ctx)
	if diags, _ := publishedFor(f.ed.State(), reloaded); len(diags) != 0 {
		t.Errorf("changes shown in a buffer that does not show the patch: %+v", diags)
	}
	list := changesOf(t, f, map[string]any{"uri": string(uri.File(reloaded))})
	if len(list) != 2 || list[0].Range.Start.Line != 2 {
		t.Fatalf("hermes.changes: %+v", list)
	}
	res := revertChange(t, f, map[string]any{"changeId": list[0].ChangeID})
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "does not show") {
		t.Errorf("a revert of a change the buffer does not show: %+v", res)
	}

	if err := f.ed.SetFileText(ctx, reloaded, twoHunks); err != nil { // the user takes the agent's text
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(reloaded, 2)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, []byte(mine), 0o644); err != nil { // the user saves their own text
		t.Fatal(err)
	}
	if err := f.ed.SaveFile(ctx, saved); err != nil {
		t.Fatal(err)
	}
	if left := changesOf(t, f, nil); len(left) != 2 || left[0].URI != string(uri.File(reloaded)) {
		t.Errorf("the changes of a file saved over the patch are left: %+v", left)
	}
}

// TestBlankLineChangeOfAClosedFile: a patch that only adds blank lines to a file the editor does not
// have open is a change under review that is still there, and shown, once the file is opened.
func TestBlankLineChangeOfAClosedFile(t *testing.T) {
	f := start(t, lsptest.Neovim07, map[string]any{"yolo": true})
	ctx := testCtx(t)
	spaced := strings.Replace(twentyLines, "line 10\n", "line 10\n\n\n", 1)
	path := f.file("a.txt", twentyLines)
	f.fake.OnTurn(patchTurn(t, map[string]string{path: spaced}))
	f.ask(ctx, map[string]any{"prompt": "space it"})
	f.awaitEnd(ctx)
	if list := changesOf(t, f, nil); len(list) != 1 || list[0].Added != 2 || list[0].Range.Start.Line != 10 {
		t.Fatalf("hermes.changes before the file is opened: %+v", list)
	}
	if err := f.ed.OpenFile(ctx, path, spaced); err != nil {
		t.Fatal(err)
	}
	// A line typed at the top moves the change down; a change whose marks died would be gone.
	if err := f.ed.ChangeFile(ctx, path, protocol.TextDocumentContentChangeEvent{Text: "top\n"}); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, changeDiagnosticAt(path, 11)); err != nil {
		t.Fatal(err)
	}
	if list := changesOf(t, f, nil); len(list) != 1 || list[0].Range.Start.Line != 11 {
		t.Errorf("hermes.changes once the file is opened and edited: %+v", list)
	}
}

// changeDiagnosticAt holds once path's diagnostics are one change starting at line.
func changeDiagnosticAt(path string, line uint32) lsptest.Condition {
	return func(s *lsptest.State) bool {
		diags, _ := publishedFor(s, path)
		return len(diags) == 1 && diags[0].Range.Start.Line == line
	}
}

// TestChangeDiagnosticsFollowTheChange: a second turn's patch of the line a first turn patched is a
// new change on the same range with the same message: its diagnostic still goes out (its data names
// the new change, which its code actions act on); and a document the editor closes and opens again
// (Neovim 0.7 reloads a buffer so, and drops its diagnostics) gets its diagnostics again.
func TestChangeDiagnosticsFollowTheChange(t *testing.T) {
	f := start(t, lsptest.Neovim07, map[string]any{"yolo": true})
	ctx := testCtx(t)
	path := f.file("a.txt", twentyLines)
	if err := f.ed.OpenFile(ctx, path, twentyLines); err != nil {
		t.Fatal(err)
	}
	text, id := twentyLines, ""
	for _, next := range []string{"run 1\n", "run 2\n"} {
		prev := text
		text = strings.Replace(twentyLines, "line 1\n", next, 1)
		f.fake.OnTurn(patchTurn(t, map[string]string{path: text}))
		f.ask(ctx, map[string]any{"prompt": "go"})
		f.awaitEnd(ctx)
		if err := f.ed.SetFileText(ctx, path, text); err != nil { // the editor reloads the file
			t.Fatal(err)
		}
		last := id
		if err := f.ed.Await(ctx, func(s *lsptest.State) bool {
			id = changeDiagnosticID(s, path)
			return id != "" && id != last
		}); err != nil {
			t.Fatalf("the diagnostic of the change after %q: %v", next, err)
		}
		if list := changesOf(t, f, nil); len(list) != 1 || list[0].ChangeID != id || list[0].Old != strings.SplitAfter(prev, "\n")[0] {
			t.Fatalf("hermes.changes after %q: %+v, the diagnostic's change %s", next, list, id)
		}
	}
	_, before := publishedFor(f.ed.State(), path)
	if err := f.ed.CloseFile(ctx, path); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.OpenFile(ctx, path, text); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, func(s *lsptest.State) bool {
		diags, n := publishedFor(s, path)
		return n > before && len(diags) == 1
	}); err != nil {
		t.Fatalf("the diagnostics of a reopened document: %v", err)
	}
}

// changeDiagnosticID is the change of path's one diagnostic, "" unless it has one.
func changeDiagnosticID(s *lsptest.State, path string) string {
	diags, _ := publishedFor(s, path)
	if len(diags) != 1 {
		return ""
	}
	b, _ := json.Marshal(diags[0].Data)
	var ref hermesproto.ChangeRef
	_ = json.Unmarshal(b, &ref)
	return ref.ChangeID
}
