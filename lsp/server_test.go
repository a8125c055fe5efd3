package lsp_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// fixture is a server on the fake codex, and a fake editor connected to it.
type fixture struct {
	t       *testing.T
	ed      *lsptest.Editor
	fake    *codextest.Fake
	folder  string
	state   string
	served  chan error
	srv     *lsp.Server
	profile lsptest.Profile
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// start serves a server on a pipe and connects an editor of profile, initialized with one folder and
// settings (merged over stateDir and turnEvents).
func start(t *testing.T, profile lsptest.Profile, settings map[string]any, opts ...lsptest.Option) *fixture {
	t.Helper()
	return startWith(t, lsp.Options{}, profile, settings, opts...)
}

// startWith is start with server options (the command line's and environment's settings).
func startWith(t *testing.T, opts lsp.Options, profile lsptest.Profile, settings map[string]any, eopts ...lsptest.Option) *fixture {
	t.Helper()
	return startIn(t, t.TempDir(), t.TempDir(), opts, profile, settings, eopts...)
}

// startIn is startWith on a given folder and state directory (a server started again).
func startIn(t *testing.T, folder, state string, opts lsp.Options, profile lsptest.Profile, settings map[string]any, eopts ...lsptest.Option) *fixture {
	t.Helper()
	f := &fixture{t: t, fake: codextest.NewFake(t), folder: folder, state: state, served: make(chan error, 1), profile: profile}
	opts.StartCodex, opts.ClientTimeout = f.fake.Start, 5*time.Second
	f.srv = lsp.NewServer(opts)
	serverEnd, clientEnd := net.Pipe()
	go func() { f.served <- f.srv.Serve(context.Background(), serverEnd) }()
	ctx := testCtx(t)
	ed, err := lsptest.Connect(ctx, clientEnd, profile, eopts...)
	if err != nil {
		t.Fatal(err)
	}
	f.ed = ed
	t.Cleanup(func() {
		_ = ed.Close()
		select {
		case <-f.served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop after the editor went away")
		}
	})
	init := map[string]any{"stateDir": f.state, "turnEvents": true}
	for k, v := range settings {
		init[k] = v
	}
	if _, err := ed.Initialize(ctx, []string{f.folder}, init); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) file(name, text string) string {
	f.t.Helper()
	path := filepath.Join(f.folder, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return path
}

func (f *fixture) ask(ctx context.Context, args map[string]any) hermesproto.AskResult {
	f.t.Helper()
	raw, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, args)
	if err != nil {
		f.t.Fatalf("hermes.ask: %v", err)
	}
	var res hermesproto.AskResult
	if err := json.Unmarshal(raw, &res); err != nil {
		f.t.Fatal(err)
	}
	return res
}

// awaitEnd waits for the turn's final message.
func (f *fixture) awaitEnd(ctx context.Context) {
	f.t.Helper()
	if err := f.ed.Await(ctx, lsptest.Announced(1)); err != nil {
		f.t.Fatalf("the turn did not end: %v\n%s", err, f.ed.State())
	}
}

// progressOf returns the progress of the first token the server created, or nil.
func progressOf(ed *lsptest.Editor) []lsptest.ProgressEvent {
	tokens := ed.CreatedTokens()
	if len(tokens) == 0 {
		return nil
	}
	return ed.Progress(tokens[0])
}

func TestAskProgressAndAnswer(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("go test ./...", 0, "ok\n")
		ft.AgentMessage("All tests pass.")
		u := codex.TokenUsage{InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 34, TotalTokens: 1234}
		ft.Usage(u, u, 258400)
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	path := f.file("main.go", "package main\n\nfunc main() {}\n")
	if err := f.ed.OpenFile(ctx, path, "package main\n\nfunc main() { /* unsaved */ }\n"); err != nil {
		t.Fatal(err)
	}
	res := f.ask(ctx, map[string]any{"prompt": "run the tests please", "uri": workspace.URIFromPath(path),
		"range": protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2, Character: 10}}})
	if res.ThreadID == "" || res.TurnID == "" || res.Folder != f.folder || res.Steered {
		t.Fatalf("ask result: %+v", res)
	}
	f.awaitEnd(ctx)

	// The prompt carried the file and the unsaved buffer's line.
	threads := f.fake.Threads()
	var prompt string
	for _, th := range threads {
		_ = th
	}
	req, err := f.fake.WaitRequest(ctx, codex.MethodTurnStart, 1)
	if err != nil {
		t.Fatal(err)
	}
	var tp codex.TurnStartParams
	_ = json.Unmarshal(req.Params, &tp)
	prompt = tp.Input[0].Text
	for _, want := range []string{"run the tests please", "File: main.go", "/* unsaved */"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}

	events := progressOf(f.ed)
	if len(events) < 3 {
		t.Fatalf("progress: %+v", events)
	}
	begin, end := events[0], events[len(events)-1]
	if begin.Kind != "begin" || begin.Title != "Hermes" || !begin.Cancellable || !strings.Contains(begin.Message, "run the tests please") {
		t.Errorf("begin: %+v", begin)
	}
	if end.Kind != "end" || !strings.HasPrefix(end.Message, "completed · 1 tool call(s)") {
		t.Errorf("end: %+v", end)
	}
	var sawTool bool
	for _, ev := range events[1 : len(events)-1] {
		if ev.Kind != "report" {
			t.Errorf("middle event %+v", ev)
		}
		sawTool = sawTool || strings.Contains(ev.Message, "exec_command")
	}
	if !sawTool {
		t.Errorf("no report named the tool: %+v", events)
	}
	msgs := f.ed.Messages()
	last := msgs[len(msgs)-1]
	if !strings.Contains(last.Message, "All tests pass.") {
		t.Errorf("final message: %+v", last)
	}
	if err := f.ed.Await(ctx, lsptest.ShowDocumentCount(1)); err != nil {
		t.Fatal(err)
	}
	if docs := f.ed.ShowDocuments(); len(docs) != 1 || !strings.HasSuffix(string(docs[0].URI), ".md") || docs[0].TakeFocus {
		t.Errorf("transcript not opened without focus: %+v", docs)
	}
	kinds := map[string]int{}
	for _, raw := range f.ed.Notifications(hermesproto.MethodTurnEvent) {
		var p hermesproto.TurnEventParams
		_ = json.Unmarshal(raw, &p)
		kinds[string(p.Event.Kind)]++
		if p.Folder != f.folder || p.TurnID == "" {
			t.Errorf("turn event: %s", raw)
		}
	}
	if kinds["toolStarted"] != 1 || kinds["toolCompleted"] != 1 || kinds["turnCompleted"] != 1 || kinds["answerDelta"] == 0 {
		t.Errorf("turn event kinds: %v", kinds)
	}
}

func TestCancelByProgressAndCommand(t *testing.T) {
	for _, how := range []string{"progress", "command"} {
		t.Run(how, func(t *testing.T) {
			f := start(t, lsptest.VSCode, nil)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				ft.AgentMessage("working…")
				ft.CompleteOnInterrupt()
			})
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "loop forever"})
			if err := f.ed.Await(ctx, func(s *lsptest.State) bool {
				return len(s.CreatedTokens) == 1 && len(s.Progress[s.CreatedTokens[0]]) > 0
			}); err != nil {
				t.Fatal(err)
			}
			tok := f.ed.CreatedTokens()[0]
			if how == "progress" {
				if err := f.ed.CancelProgress(ctx, tok); err != nil {
					t.Fatal(err)
				}
			} else if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdCancel, map[string]any{}); err != nil {
				t.Fatal(err)
			}
			if err := f.ed.Await(ctx, lsptest.ProgressEnded(tok)); err != nil {
				t.Fatal(err)
			}
			events := f.ed.Progress(tok)
			if end := events[len(events)-1]; !strings.HasPrefix(end.Message, "interrupted") {
				t.Errorf("end: %+v", end)
			}
		})
	}
}

func TestSteering(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		select {
		case in := <-ft.Steered():
			ft.AgentMessage("steered by: " + in)
		case <-ft.Done():
			return
		}
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	first := f.ask(ctx, map[string]any{"prompt": "start"})
	second := f.ask(ctx, map[string]any{"prompt": "also do this"})
	if !second.Steered || second.TurnID != first.TurnID {
		t.Fatalf("second ask: %+v (first %+v)", second, first)
	}
	f.awaitEnd(ctx)
	if !strings.Contains(f.ed.Messages()[len(f.ed.Messages())-1].Message, "steered by: also do this") {
		t.Errorf("messages: %+v", f.ed.Messages())
	}
	if n := len(f.ed.CreatedTokens()); n != 1 {
		t.Errorf("a steered prompt made a progress of its own: %d tokens", n)
	}
}

func TestRunInstructionCodeAction(t *testing.T) {
	f := start(t, lsptest.Helix2501, nil)
	ctx := testCtx(t)
	text := "package main\n\n// hermes: add a String method to T\ntype T struct{}\n"
	path := f.file("t.go", text)
	if err := f.ed.OpenFile(ctx, path, text); err != nil {
		t.Fatal(err)
	}
	// Helix's cursor is a one-character selection: the hermes: line wins.
	cursor := protocol.Range{Start: protocol.Position{Line: 2, Character: 3}, End: protocol.Position{Line: 2, Character: 4}}
	actions, err := f.ed.CodeActions(ctx, path, cursor, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := findAction(actions, hermesproto.CodeActionTitleRunInstruct)
	if run == nil {
		t.Fatalf("no run-instruction action: %+v", actions)
	}
	if findAction(actions, hermesproto.CodeActionTitleAskSelection) != nil {
		t.Error("a cursor was offered as a selection to ask about")
	}
	if _, err := f.ed.ExecuteCommand(ctx, run.Command.Command, run.Command.Arguments...); err != nil {
		t.Fatal(err)
	}
	req, err := f.fake.WaitRequest(ctx, codex.MethodTurnStart, 1)
	if err != nil {
		t.Fatal(err)
	}
	var tp codex.TurnStartParams
	_ = json.Unmarshal(req.Params, &tp)
	if !strings.HasPrefix(tp.Input[0].Text, "add a String method to T") {
		t.Fatalf("prompt %q", tp.Input[0].Text)
	}
	f.awaitEnd(ctx)

	// On a line without an instruction, a selection is no instruction: it is asked about; a cursor offers nothing.
	sel := protocol.Range{Start: protocol.Position{Line: 3, Character: 0}, End: protocol.Position{Line: 3, Character: 6}}
	actions, _ = f.ed.CodeActions(ctx, path, sel, nil)
	if a := findAction(actions, hermesproto.CodeActionTitleRunInstruct); a != nil {
		t.Errorf("a selection offered as an instruction: %+v", a)
	}
	if a := findAction(actions, hermesproto.CodeActionTitleAskSelection); a == nil {
		t.Errorf("no %q for a selection: %+v", hermesproto.CodeActionTitleAskSelection, actions)
	}
	actions, _ = f.ed.CodeActions(ctx, path, protocol.Range{Start: protocol.Position{Line: 3, Character: 1}, End: protocol.Position{Line: 3, Character: 2}}, nil)
	if findAction(actions, hermesproto.CodeActionTitleRunInstruct) != nil {
		t.Error("a bare cursor became a prompt")
	}
	// A diagnostic gets a quick fix that carries it.
	diag := protocol.Diagnostic{Range: sel, Message: "T is unused", Source: "vet"}
	actions, _ = f.ed.CodeActions(ctx, path, sel, []protocol.Diagnostic{diag})
	fix := findAction(actions, hermesproto.CodeActionTitleFixDiagnostic)
	if fix == nil || fix.Kind != protocol.QuickFix || len(fix.Diagnostics) != 1 {
		t.Fatalf("fix action: %+v", fix)
	}
}

func findAction(actions []protocol.CodeAction, title string) *protocol.CodeAction {
	for i := range actions {
		if actions[i].Title == title {
			return &actions[i]
		}
	}
	return nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestProgressIsCoalesced(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	const tools = 300
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		for i := range tools {
			ft.Exec("step "+strings.Repeat("x", i%7), 0, "")
		}
		ft.AgentMessage("done")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	began := time.Now()
	f.ask(ctx, map[string]any{"prompt": "many steps"})
	f.awaitEnd(ctx)
	took := time.Since(began)
	events := progressOf(f.ed)
	reports := len(events) - 2
	limit := int(took/(100*time.Millisecond)) + 3
	if reports > limit {
		t.Errorf("%d reports in %v: more than about ten a second (limit %d)", reports, took, limit)
	}
	// The newest state is never lost: the last report names the last tool.
	last := events[len(events)-2]
	if last.Kind != "report" || !strings.Contains(last.Message, "answering") && !strings.Contains(last.Message, "exec_command") {
		t.Errorf("last report: %+v", last)
	}
	if end := events[len(events)-1]; !strings.Contains(end.Message, "300 tool call(s)") {
		t.Errorf("end: %+v", end)
	}
}

func TestNeovim07WithoutShowDocument(t *testing.T) {
	f := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "hello"})
	f.awaitEnd(ctx)
	if n := len(f.ed.ShowDocuments()); n != 0 {
		t.Errorf("showDocument sent to Neovim 0.7: %d", n)
	}
	msgs := f.ed.Messages()
	last := msgs[len(msgs)-1].Message
	if !strings.Contains(last, "ok") || !strings.Contains(last, ".md") {
		t.Errorf("final message lacks the answer or the transcript path: %q", last)
	}
	if len(f.ed.CreatedTokens()) != 1 {
		t.Errorf("Neovim 0.7 shows progress: tokens %v", f.ed.CreatedTokens())
	}
}

func TestRemovedFolderInterruptsItsTurn(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("busy")
		ft.CompleteOnInterrupt()
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "work"})
	if _, err := f.fake.WaitRequest(ctx, codex.MethodTurnStart, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.RemoveFolder(ctx, f.folder); err != nil {
		t.Fatal(err)
	}
	if _, err := f.fake.WaitRequest(ctx, codex.MethodTurnInterrupt, 1); err != nil {
		t.Fatalf("removing the folder did not interrupt its turn: %v", err)
	}
	f.awaitEnd(ctx)
	_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "again"})
	if err == nil || !strings.Contains(err.Error(), "no workspace folder") {
		t.Errorf("ask with no folder left: %v", err)
	}
}
