package lsp_test

// Tests of an ACP agent's threads, undo, changes under review and review through the editor face.

import (
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestACPResumeAfterRestart: a server started again on the folder goes on with the folder's
// thread: the agent's session, loaded (session/load) rather than started anew.
func TestACPResumeAfterRestart(t *testing.T) {
	agent := acptest.NewAgent(t, acptest.Config{LoadSession: true})
	f := startWith(t, acpOptions(agent), lsptest.VSCode, acpSettings(nil))
	ctx := testCtx(t)
	first := f.ask(ctx, map[string]any{"prompt": "remember 42"})
	f.awaitEnd(ctx)

	g := startIn(t, f.folder, f.state, acpOptions(agent), lsptest.VSCode, acpSettings(nil))
	second := g.ask(ctx, map[string]any{"prompt": "what was it?"})
	g.awaitEnd(ctx)
	sessions := agent.Sessions()
	if second.ThreadID != first.ThreadID || len(sessions) != 1 || sessions[first.ThreadID].Loads != 1 {
		t.Errorf("after the restart the turn ran on %s (first %s); sessions %+v", second.ThreadID, first.ThreadID, sessions)
	}
}

// TestACPThreads: hermes.threads lists the agent's sessions in the folder (session/list), titled by
// theirs; hermes.resumeThread makes one the folder's thread, loaded for the next turn.
func TestACPThreads(t *testing.T) {
	f, agent := startACP(t, acptest.Config{List: true, LoadSession: true}, lsptest.VSCode, nil)
	ctx := testCtx(t)
	earlier := agent.AddSession(f.folder, "Earlier work")
	agent.AddSession(t.TempDir(), "Another folder's")
	asked := f.ask(ctx, map[string]any{"prompt": "hello"})
	f.awaitEndN(ctx, 1)
	var threads []hermesproto.ThreadInfo
	command(t, f, hermesproto.CmdThreads, map[string]any{}, &threads)
	if len(threads) != 2 || threads[0].ThreadID != asked.ThreadID || !threads[0].Current || threads[1].ThreadID != earlier ||
		threads[1].Title != "Earlier work" || threads[1].Current {
		t.Fatalf("threads: %+v", threads)
	}
	command(t, f, hermesproto.CmdResumeThread, map[string]any{"threadId": earlier}, nil)
	again := f.ask(ctx, map[string]any{"prompt": "go on"})
	f.awaitEndN(ctx, 2)
	if again.ThreadID != earlier || agent.Sessions()[earlier].Loads != 1 {
		t.Errorf("the turn after resume ran on %s, want %s (loaded %d times)", again.ThreadID, earlier, agent.Sessions()[earlier].Loads)
	}
}

// TestACPUndoTurn: a file the agent wrote (fs/write_text_file) is restored by hermes.undoTurn from
// the host's checkpoint, and the message says the agent still remembers the turn.
func TestACPUndoTurn(t *testing.T) {
	f, agent := startACP(t, acptest.Config{}, noApplyEdit(), nil)
	ctx := testCtx(t)
	calc := f.file("calc.go", "package calc // before\n")
	agent.OnPrompt(func(t *acptest.Turn) string {
		if err := t.WriteTextFile(calc, "package calc // after\n"); err != nil {
			t.Message("the write failed: " + err.Error())
		}
		return acp.StopReasonEndTurn
	})
	asked := f.ask(ctx, map[string]any{"prompt": "rework calc"})
	f.awaitEnd(ctx)
	if got := readText(t, calc); got != "package calc // after\n" {
		t.Fatalf("the agent's write did not land: %q", got)
	}
	res := undo(t, f, map[string]any{})
	if res.TurnID != asked.TurnID || len(res.Restored) != 1 || readText(t, calc) != "package calc // before\n" {
		t.Fatalf("undo: %+v, the file %q", res, readText(t, calc))
	}
	msgs := f.ed.Messages()
	if last := msgs[len(msgs)-1].Message; !strings.Contains(last, "The agent still remembers the turn (it cannot forget one): tell it in your next prompt that you undid it") {
		t.Errorf("the undo's message: %s", last)
	}
}

// TestACPChangesUnderReview: the agent's edit (a tool call with its diff, approved, written through
// fs/write_text_file) is the changes under review, hunk by hunk.
func TestACPChangesUnderReview(t *testing.T) {
	f, agent := startACP(t, acptest.Config{}, lsptest.Helix2501, map[string]any{"yolo": true})
	ctx := testCtx(t)
	calc := f.file("calc.txt", twentyLines)
	outcome := make(chan string, 1)
	agent.OnPrompt(func(t *acptest.Turn) string {
		edit := acp.ToolCallUpdate{ToolCallID: "e1", Kind: acp.ToolKindEdit, Title: "Edit calc.txt",
			Content: []acp.ToolCallContent{{Kind: acp.ToolCallContentKindDiff, Diff: &acp.Diff{Path: calc, OldText: twentyLines, NewText: twoHunks}}}}
		t.ToolCall(acp.ToolCall{ToolCallID: edit.ToolCallID, Kind: edit.Kind, Title: edit.Title, Content: edit.Content, Status: acp.ToolCallStatusPending})
		o, err := t.RequestPermission(edit, acp.PermissionOption{OptionID: "ok", Kind: acp.PermissionOptionKindAllowOnce}, acp.PermissionOption{OptionID: "no", Kind: acp.PermissionOptionKindRejectOnce})
		if err != nil || o.SelectedPermissionOutcome == nil || o.SelectedPermissionOutcome.OptionID != "ok" {
			outcome <- "not allowed"
			t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "e1", Status: acp.ToolCallStatusFailed})
			return acp.StopReasonEndTurn
		}
		outcome <- "allowed"
		if err := t.WriteTextFile(calc, twoHunks); err != nil {
			outcome <- err.Error()
		}
		t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "e1", Status: acp.ToolCallStatusCompleted})
		return acp.StopReasonEndTurn
	})
	asked := f.ask(ctx, map[string]any{"prompt": "shout two lines"})
	if got := <-outcome; got != "allowed" {
		t.Fatalf("the edit was %s", got)
	}
	f.awaitEnd(ctx)
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 2)); err != nil {
		t.Fatalf("no diagnostics of the two changes: %v\n%s", err, f.ed.State())
	}
	list := changesOf(t, f, map[string]any{"uri": string(uri.File(calc))})
	if len(list) != 2 || list[0].TurnID != asked.TurnID || list[0].Added != 1 || list[0].Removed != 1 || list[1].Added != 2 ||
		list[0].Old != "line 3\n" || list[1].Old != "line 15\n" {
		t.Fatalf("hermes.changes: %+v", list)
	}
	res := revertChange(t, f, map[string]any{"changeId": list[0].ChangeID})
	if len(res.Reverted) != 1 || readText(t, calc) != firstBack {
		t.Errorf("revert: %+v\n%s", res, readText(t, calc))
	}
}

// TestACPReviewByPrompt: hermes.review runs as a prompt on a session of its own that asks for the
// findings in codex's format; the agent's answer so written becomes the review's diagnostics.
func TestACPReviewByPrompt(t *testing.T) {
	f, agent := startACP(t, acptest.Config{}, lsptest.VSCode, nil)
	ctx := testCtx(t)
	calc := f.file("calc.go", calcSrc)
	prompts := make(chan string, 2)
	agent.OnPrompt(func(t *acptest.Turn) string {
		prompts <- t.Text()
		if strings.Contains(t.Text(), "Full review comments:\n\n- [P1] <a short title> — <the absolute path of the file>:") {
			t.Message(rendered("Sum has an off-by-one error.", "[P1] Loop stops one short of n|"+calc+"|5|5|The loop condition `i < n` skips n."))
		} else {
			t.Message("ok")
		}
		return acp.StopReasonEndTurn
	})
	asked := f.ask(ctx, map[string]any{"prompt": "hello"})
	f.awaitEndN(ctx, 1)
	<-prompts
	var res hermesproto.ReviewResult
	command(t, f, hermesproto.CmdReview, map[string]any{"target": map[string]any{"type": "commit", "sha": "abc123"}}, &res)
	if res.ThreadID == "" || res.ThreadID == asked.ThreadID {
		t.Fatalf("hermes.review: %+v (conversation thread %s)", res, asked.ThreadID)
	}
	if prompt := <-prompts; !strings.Contains(prompt, "the commit `abc123` (`git show abc123`)") {
		t.Errorf("the review's prompt:\n%s", prompt)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 1)); err != nil {
		t.Fatalf("no finding: %v\n%s", err, f.ed.State())
	}
	diags, _ := publishedFor(f.ed.State(), calc)
	if d := diags[0]; d.Code != "P1" || d.Range.Start.Line != 4 || !strings.HasPrefix(d.Message, "Loop stops one short of n") {
		t.Errorf("the finding: %+v", d)
	}
}
