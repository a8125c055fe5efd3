package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestLiveTranscript: the transcript shows the turn so far while it waits for an approval: the
// prompt and the command already run, readable (no JSON, no HTML escapes, no empty output block).
func TestLiveTranscript(t *testing.T) {
	held := make(chan struct{})
	hook := allowOnceWhen(held)
	f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(hook))
	ctx := testCtx(t)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("echo hi > out.txt", 0, "")
		ft.Exec("go test ./...", 1, "--- FAIL: TestSum\nFAIL\n")
		_, _ = ft.ExecWithApproval("make deploy", 0, "deployed\n")
		ft.AgentMessage("Deployed; **one** test fails.")
		ft.Complete(codex.TurnCompleted, nil)
	})
	asked := f.ask(ctx, map[string]any{"prompt": "test and deploy"})
	// The approval is asked, and the two commands before it are done (their rows are written
	// before their toolCompleted events go out).
	if err := f.ed.Await(ctx, lsptest.AllOf(turnEventOf("approvalWaiting"), turnEventsOf("toolCompleted", 2))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(f.state, "transcripts", asked.ThreadID+".md")
	mid := readText(t, path)
	for _, want := range []string{"### You · ", "> test and deploy", "**$** `echo hi > out.txt` — ✓", "**$** `go test ./...` — ✗ exit 1", "<details><summary>output · 2 lines</summary>", "--- FAIL: TestSum"} {
		if !strings.Contains(mid, want) {
			t.Errorf("the transcript mid-turn lacks %q:\n%s", want, mid)
		}
	}
	for _, bad := range []string{`\u003e`, "```text\n```", "Deployed"} {
		if strings.Contains(mid, bad) {
			t.Errorf("the transcript mid-turn has %q:\n%s", bad, mid)
		}
	}
	close(held)
	f.awaitEnd(ctx)
	end := readText(t, path)
	if !strings.HasPrefix(end, mid) {
		t.Fatalf("the end rewrote the transcript:\n%s", end)
	}
	for _, want := range []string{"**$** `make deploy` — ✓", "> ✅ allowed once by you: `make deploy`", "### Hermes\n\n> Deployed; **one** test fails.", "_completed · turn `" + asked.TurnID + "`"} {
		if !strings.Contains(end[len(mid):], want) {
			t.Errorf("the rest of the transcript lacks %q:\n%s", want, end[len(mid):])
		}
	}
}

// TestTranscriptContinuesItsThread: a `hermes:` line written in a thread's transcript and run from
// its code action continues that thread, even after the folder moved to a new one.
func TestTranscriptContinuesItsThread(t *testing.T) {
	f := start(t, lsptest.Helix2501, map[string]any{"yolo": true})
	ctx := testCtx(t)
	var prompts []string
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		prompts = append(prompts, ft.Prompt)
		ft.AgentMessage("answer")
		ft.Complete(codex.TurnCompleted, nil)
	})
	first := f.ask(ctx, map[string]any{"prompt": "first question"})
	f.awaitEndN(ctx, 1)
	command(t, f, hermesproto.CmdNewThread, map[string]any{}, nil)
	f.ask(ctx, map[string]any{"prompt": "another thread"})
	f.awaitEndN(ctx, 2)

	path := filepath.Join(f.state, "transcripts", first.ThreadID+".md")
	text := readText(t, path) + "\nhermes: and a follow-up\n"
	if err := f.ed.OpenFile(ctx, path, text); err != nil {
		t.Fatal(err)
	}
	line := uint32(strings.Count(text, "\n") - 1)
	var actions []protocol.CodeAction
	if err := f.ed.Call(ctx, "textDocument/codeAction", &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
		Range:        protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line, Character: 1}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	var run *protocol.CodeAction
	for i := range actions {
		if actions[i].Title == hermesproto.CodeActionTitleRunInstruct {
			run = &actions[i]
		}
	}
	if run == nil {
		t.Fatalf("no run instruction in the transcript: %+v", actions)
	}
	raw, _ := json.Marshal(run.Command.Arguments[0])
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	res := f.ask(ctx, args)
	f.awaitEndN(ctx, 3)
	if res.ThreadID != first.ThreadID {
		t.Errorf("the follow-up ran on %s, want the transcript's thread %s", res.ThreadID, first.ThreadID)
	}
	if len(prompts) != 3 || prompts[2] != "and a follow-up" {
		t.Errorf("prompts: %q (the follow-up must be the instruction alone)", prompts)
	}
	if h := hoverText(t, f.ed, path, line); !strings.Contains(h, "answer") {
		t.Errorf("hover on the transcript's line: %q", h)
	}
}
