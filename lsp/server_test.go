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

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/hermesproto"
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
	f := &fixture{t: t, fake: codextest.NewFake(t), folder: t.TempDir(), state: t.TempDir(), served: make(chan error, 1), profile: profile}
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

func (f *fixture) ask(ctx context.Context, args map[string]any) lsp.AskResult {
	f.t.Helper()
	raw, err := f.ed.ExecuteCommand(ctx, lsp.CmdAsk, args)
	if err != nil {
		f.t.Fatalf("hermes.ask: %v", err)
	}
	var res lsp.AskResult
	if err := json.Unmarshal(raw, &res); err != nil {
		f.t.Fatal(err)
	}
	return res
}

// awaitEnd waits for the turn's final message.
func (f *fixture) awaitEnd(ctx context.Context) {
	f.t.Helper()
	if err := f.ed.Await(ctx, lsptest.MessageContaining("Transcript:")); err != nil {
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
	for _, raw := range f.ed.Notifications(lsp.MethodTurnEvent) {
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

func TestExecApprovalAnswers(t *testing.T) {
	tests := []struct {
		action string
		want   string
	}{
		{lsp.ActionAllowOnce, codex.DecisionAccept},
		{lsp.ActionAllowSession, codex.DecisionAcceptForSession},
		{lsp.ActionDeny, codex.DecisionDecline},
		{"", codex.DecisionDecline}, // dismissed
		{lsp.ActionStop, codex.DecisionCancel},
	}
	for _, tt := range tests {
		name := tt.action
		if name == "" {
			name = "dismissed"
		}
		t.Run(name, func(t *testing.T) {
			hook := lsptest.Dismiss
			if tt.action != "" {
				hook = lsptest.ChooseAction(tt.action)
			}
			f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(hook))
			decided := make(chan string, 1)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				d, err := ft.RequestExecApproval("rm -rf build")
				if err != nil {
					decided <- "error: " + err.Error()
					return
				}
				decided <- d
				if d == codex.DecisionCancel {
					ft.Complete(codex.TurnInterrupted, nil)
					return
				}
				ft.AgentMessage("ok")
				ft.Complete(codex.TurnCompleted, nil)
			})
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "clean"})
			if got := <-decided; got != tt.want {
				t.Fatalf("codex got %q, want %q", got, tt.want)
			}
			f.awaitEnd(ctx)
			reqs := f.ed.ShowMessageRequests()
			if len(reqs) != 1 || !strings.Contains(reqs[0].Message, "rm -rf build") || !strings.Contains(reqs[0].Message, f.folder) {
				t.Fatalf("prompt: %+v", reqs)
			}
			var titles []string
			for _, a := range reqs[0].Actions {
				titles = append(titles, a.Title)
			}
			if strings.Join(titles, ",") != "Deny,Allow once,Allow for session,Stop turn" {
				t.Errorf("actions %v", titles)
			}
		})
	}
}

func TestPatchApprovalShowDiff(t *testing.T) {
	answers := []string{lsp.ActionShowDiff, lsp.ActionAllowOnce}
	var f *fixture
	diffText := make(chan string, 1) // the shown diff, read while the person decides
	hook := func(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		title := answers[0]
		answers = answers[1:]
		if title == lsp.ActionAllowOnce {
			if docs := f.ed.ShowDocuments(); len(docs) > 0 {
				path, _ := workspace.PathFromURI(string(docs[0].URI))
				b, err := os.ReadFile(path)
				if err != nil {
					b = []byte(err.Error())
				}
				diffText <- string(b)
			}
		}
		return lsptest.ChooseAction(title)(ctx, p)
	}
	f = start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(hook))
	decided := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		var change codex.FileChange
		change.Path = filepath.Join(ft.Cwd, "hello.txt")
		change.Kind.Type = "add"
		change.Diff = "hello\n"
		d, _ := ft.RequestPatchApproval([]codex.FileChange{change}, "make a greeting", "")
		decided <- d
		ft.AgentMessage("patched")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "add hello"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("decision %q", got)
	}
	f.awaitEnd(ctx)
	reqs := f.ed.ShowMessageRequests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].Message, "add hello.txt") || !strings.Contains(reqs[0].Message, "make a greeting") {
		t.Fatalf("prompts: %+v", reqs)
	}
	docs := f.ed.ShowDocuments()
	if len(docs) < 1 || !strings.HasSuffix(string(docs[0].URI), ".diff") {
		t.Fatalf("diff not shown: %+v", docs)
	}
	if diff := <-diffText; !strings.Contains(diff, "+hello") {
		t.Fatalf("diff file %q", diff)
	}
	path, _ := workspace.PathFromURI(string(docs[0].URI))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the diff file outlived the decision: %v", err)
	}
}

// Helix 25.01 answers showMessageRequest with -32601: approvals fall back to a message, code
// actions and hermes.approve.
func TestApprovalFallbackCodeActionsAndApprove(t *testing.T) {
	f := start(t, lsptest.Helix2501, nil)
	decided := make(chan string, 2)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		for _, cmd := range []string{"make build", "make install"} {
			d, err := ft.RequestExecApproval(cmd)
			if err != nil {
				decided <- err.Error()
				return
			}
			decided <- d
		}
		ft.AgentMessage("built")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	path := f.file("Makefile", "all:\n")
	if err := f.ed.OpenFile(ctx, path, "all:\n"); err != nil {
		t.Fatal(err)
	}
	f.ask(ctx, map[string]any{"prompt": "build it", "uri": workspace.URIFromPath(path)})

	// First approval: through the code action.
	if err := f.ed.Await(ctx, lsptest.MessageContaining("hermes.approve")); err != nil {
		t.Fatalf("no fallback message: %v\n%s", err, f.ed.State())
	}
	actions, err := f.ed.CodeActions(ctx, path, protocol.Range{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var allow *protocol.CodeAction
	titles := []string{}
	for i, a := range actions {
		titles = append(titles, a.Title)
		if a.Title == lsp.TitleAllowOnce+"make build" {
			allow = &actions[i]
		}
	}
	if allow == nil {
		t.Fatalf("no allow-once code action: %v", titles)
	}
	if !contains(titles, lsp.TitleStopTurn) || !contains(titles, lsp.TitleDeny+"make build") {
		t.Errorf("code actions: %v", titles)
	}
	// Deny is the first action: an editor that pre-selects it never grants by accident.
	if titles[0] != lsp.TitleDeny+"make build" {
		t.Errorf("first code action %q, want the deny", titles[0])
	}
	if _, err := f.ed.ExecuteCommand(ctx, allow.Command.Command, allow.Command.Arguments...); err != nil {
		t.Fatal(err)
	}
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("first decision %q", got)
	}

	// Second approval: hermes.approve with the id from hermes.status.
	var id string
	if err := f.ed.Await(ctx, lsptest.MessageContaining("make install")); err != nil {
		t.Fatal(err)
	}
	raw, err := f.ed.ExecuteCommand(ctx, lsp.CmdStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Folders []lsp.FolderStatus `json:"folders"`
	}
	_ = json.Unmarshal(raw, &st)
	if len(st.Folders) != 1 || len(st.Folders[0].PendingApprovals) != 1 || st.Folders[0].Turn == nil || st.Folders[0].Turn.State != "running" {
		t.Fatalf("status: %s", raw)
	}
	id = st.Folders[0].PendingApprovals[0].ApprovalID
	if _, err := f.ed.ExecuteCommand(ctx, lsp.CmdApprove, map[string]any{"approvalId": id, "decision": "deny"}); err != nil {
		t.Fatal(err)
	}
	if got := <-decided; got != codex.DecisionDecline {
		t.Fatalf("second decision %q", got)
	}
	f.awaitEnd(ctx)
	// Helix 25.01 does not advertise window.showMessage: the server never tries the prompt.
	if n := len(f.ed.ShowMessageRequests()); n != 0 {
		t.Errorf("the server asked with showMessageRequest a client that does not advertise it: %d", n)
	}
	// A bad decision and an unknown approval are clear errors.
	_, err = f.ed.ExecuteCommand(ctx, lsp.CmdApprove, map[string]any{"approvalId": id, "decision": "maybe"})
	if code, _ := lsptest.ErrorCode(err); code != jsonrpc2.InvalidParams {
		t.Errorf("bad decision: %v", err)
	}
	_, err = f.ed.ExecuteCommand(ctx, lsp.CmdApprove, map[string]any{"approvalId": id, "decision": "once"})
	if err == nil || !strings.Contains(err.Error(), id) {
		t.Errorf("answering a settled approval: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
			} else if _, err := f.ed.ExecuteCommand(ctx, lsp.CmdCancel, map[string]any{}); err != nil {
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

func TestMultiRootRouting(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	outer := t.TempDir()
	inner := filepath.Join(outer, "sub")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{outer, inner} {
		if err := f.ed.AddFolder(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	innerFile := filepath.Join(inner, "x.go")
	if err := os.WriteFile(innerFile, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := f.ask(ctx, map[string]any{"prompt": "hi", "uri": workspace.URIFromPath(innerFile)})
	if res.Folder != inner {
		t.Fatalf("routed to %s, want the deepest folder %s", res.Folder, inner)
	}
	f.awaitEnd(ctx)
	for _, th := range f.fake.Threads() {
		if th.Cwd != inner {
			t.Errorf("thread cwd %s", th.Cwd)
		}
	}
	bad := []struct {
		uri  string
		want string
	}{
		{workspace.URIFromPath(filepath.Join(t.TempDir(), "elsewhere.go")), "outside every workspace folder"},
		{"untitled:Untitled-1", "not a file"},
		{workspace.URIFromPath(inner) + "/../../../etc/passwd", "outside"},
	}
	for _, b := range bad {
		_, err := f.ed.ExecuteCommand(ctx, lsp.CmdAsk, map[string]any{"prompt": "hi", "uri": b.uri})
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ask in %s: %v, want an error containing %q", b.uri, err, b.want)
		}
	}
	// A symlink inside a folder that points out of it is refused too.
	link := filepath.Join(inner, "escape")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ed.ExecuteCommand(ctx, lsp.CmdAsk, map[string]any{"prompt": "hi", "uri": workspace.URIFromPath(filepath.Join(link, "a.go"))}); err == nil {
		t.Error("a symlink out of the folder was accepted")
	}
	// Removing a folder drops it from routing.
	if err := f.ed.RemoveFolder(ctx, inner); err != nil {
		t.Fatal(err)
	}
	res = f.ask(ctx, map[string]any{"prompt": "hi", "uri": workspace.URIFromPath(innerFile)})
	if res.Folder != outer {
		t.Errorf("after removing %s, routed to %s", inner, res.Folder)
	}
	f.awaitEndN(ctx, 2)
}

// awaitEndN waits for n final messages.
func (f *fixture) awaitEndN(ctx context.Context, n int) {
	f.t.Helper()
	err := f.ed.Await(ctx, func(s *lsptest.State) bool {
		count := 0
		for _, m := range s.ShowMessages {
			if strings.Contains(m.Message, "Transcript:") {
				count++
			}
		}
		return count >= n
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func TestConfigurationChanges(t *testing.T) {
	f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(answers(lsp.ActionAllow, lsp.ActionDeny)))
	decided := make(chan string, 4)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		d, _ := ft.RequestExecApproval("touch x")
		decided <- d
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)

	// approvals.mode false (YAML's off) pushed by didChangeConfiguration: the user allows it once,
	// then no prompt, accepted.
	if err := f.ed.ChangeConfiguration(ctx, map[string]any{"hermes": map[string]any{"approvals": map[string]any{"mode": false}, "noSuchKey": 1}}); err != nil {
		t.Fatal(err)
	}
	waitSettings(t, f, 1)
	f.ask(ctx, map[string]any{"prompt": "go"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("with approvals off: %q", got)
	}
	f.awaitEnd(ctx)
	if n := len(approvalPrompts(f.ed)); n != 0 {
		t.Fatalf("approvals off still asked: %d", n)
	}

	// A wrong type is an error in the editor and changes nothing.
	if err := f.ed.ChangeConfiguration(ctx, map[string]any{"hermes": map[string]any{"approvals": map[string]any{"mode": "manual"}, "yolo": "yes please"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, lsptest.MessageContaining("hermes.yolo")); err != nil {
		t.Fatalf("no error shown for a wrong type: %v", err)
	}
	f.ask(ctx, map[string]any{"prompt": "again"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("a rejected change applied: %q", got)
	}
	f.awaitEndN(ctx, 2)

	// Back to manual through a pull (null push, then workspace/configuration).
	f.ed.SetConfiguration("hermes", map[string]any{"approvals": map[string]any{"mode": "manual"}})
	if err := f.ed.ChangeConfiguration(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, lsptest.RequestCount(protocol.MethodWorkspaceConfiguration, 2)); err != nil {
		t.Fatalf("no pull: %v", err)
	}
	waitSettings(t, f, 2)
	f.ask(ctx, map[string]any{"prompt": "third"})
	if got := <-decided; got != codex.DecisionDecline {
		t.Fatalf("manual again: %q", got)
	}
	f.awaitEndN(ctx, 3)
}

// waitSettings waits until the server has applied n configuration changes (it says so in a log
// message each time).
func waitSettings(t *testing.T, f *fixture, n int) {
	t.Helper()
	err := f.ed.Await(testCtx(t), func(s *lsptest.State) bool {
		count := 0
		for _, m := range s.LogMessages {
			if strings.Contains(m.Message, "settings applied") {
				count++
			}
		}
		return count >= n
	})
	if err != nil {
		t.Fatalf("settings not applied: %v", err)
	}
}

func TestHelixNullConfigurationKeepsSettings(t *testing.T) {
	f := start(t, lsptest.Helix2501, map[string]any{"approvals": map[string]any{"mode": "off"}})
	decided := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		d, _ := ft.RequestExecApproval("ls")
		decided <- d
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	if err := f.ed.ChangeConfiguration(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, lsptest.RequestCount(protocol.MethodWorkspaceConfiguration, 2)); err != nil {
		t.Fatal(err)
	}
	f.ask(ctx, map[string]any{"prompt": "list"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("Helix's null configuration dropped approvals.mode off: %q", got)
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
	run := findAction(actions, lsp.TitleRunInstruct)
	if run == nil {
		t.Fatalf("no run-instruction action: %+v", actions)
	}
	if findAction(actions, lsp.TitleAskSelection) != nil {
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

	// On a line without an instruction, the selected text is the prompt; a cursor offers nothing.
	sel := protocol.Range{Start: protocol.Position{Line: 3, Character: 0}, End: protocol.Position{Line: 3, Character: 6}}
	actions, _ = f.ed.CodeActions(ctx, path, sel, nil)
	if a := findAction(actions, lsp.TitleRunInstruct); a == nil || !strings.Contains(string(mustJSON(a.Command.Arguments)), `"prompt":"type T"`) {
		t.Errorf("selection as prompt: %+v", a)
	}
	actions, _ = f.ed.CodeActions(ctx, path, protocol.Range{Start: protocol.Position{Line: 3, Character: 1}, End: protocol.Position{Line: 3, Character: 2}}, nil)
	if findAction(actions, lsp.TitleRunInstruct) != nil {
		t.Error("a bare cursor became a prompt")
	}
	// A diagnostic gets a quick fix that carries it.
	diag := protocol.Diagnostic{Range: sel, Message: "T is unused", Source: "vet"}
	actions, _ = f.ed.CodeActions(ctx, path, sel, []protocol.Diagnostic{diag})
	fix := findAction(actions, lsp.TitleFixDiagnostic)
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

func TestAskErrors(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	_, err := f.ed.ExecuteCommand(ctx, lsp.CmdAsk)
	if err == nil || !strings.Contains(err.Error(), "hermes:") {
		t.Errorf("ask without a prompt: %v", err)
	}
	_, err = f.ed.ExecuteCommand(ctx, lsp.CmdAsk, map[string]any{"prompt": 42})
	if code, _ := lsptest.ErrorCode(err); code != jsonrpc2.InvalidParams {
		t.Errorf("a prompt of the wrong type: %v", err)
	}
	_, err = f.ed.ExecuteCommand(ctx, "hermes.nope")
	if err == nil {
		t.Error("an unknown command succeeded")
	}
	// The server is still up.
	if _, err := f.ed.ExecuteCommand(ctx, lsp.CmdStatus); err != nil {
		t.Fatal(err)
	}
}

func TestBeforeInitialize(t *testing.T) {
	srv := lsp.NewServer(lsp.Options{})
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	ctx := testCtx(t)
	ed, err := lsptest.Connect(ctx, clientEnd, lsptest.VSCode)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ed.ExecuteCommand(ctx, lsp.CmdStatus)
	if code, _ := lsptest.ErrorCode(err); code != jsonrpc2.ServerNotInitialized {
		t.Errorf("before initialize: %v", err)
	}
	_ = ed.Close()
	<-served
	if srv.ExitCode() != 1 {
		t.Errorf("exit code without shutdown: %d", srv.ExitCode())
	}
}

func TestEglotWithoutWindowCapabilities(t *testing.T) {
	f := start(t, lsptest.Eglot, nil)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("ls", 0, "a\n")
		ft.AgentMessage("listed")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "list files"})
	f.awaitEnd(ctx)
	if n := len(f.ed.CreatedTokens()); n != 0 {
		t.Errorf("progress sent to a client without it: %d", n)
	}
	msgs := f.ed.Messages()
	if len(msgs) < 2 || !strings.Contains(msgs[0].Message, "list files") || !strings.Contains(msgs[len(msgs)-1].Message, "listed") {
		t.Errorf("start and end messages: %+v", msgs)
	}
	var logged bool
	for _, l := range f.ed.LogMessages() {
		logged = logged || strings.Contains(l.Message, "exec_command: ls")
	}
	if !logged {
		t.Errorf("no log line for the tool: %+v", f.ed.LogMessages())
	}
	if n := len(f.ed.ShowDocuments()); n != 0 {
		t.Errorf("showDocument sent to a client without it: %d", n)
	}
}

func TestShutdownDuringTurn(t *testing.T) {
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
	if err := f.ed.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.fake.WaitRequest(ctx, codex.MethodTurnInterrupt, 1); err != nil {
		t.Fatalf("shutdown did not interrupt the turn: %v", err)
	}
	if err := f.ed.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-f.served:
		f.served <- err
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the server did not exit")
	}
	if f.srv.ExitCode() != 0 {
		t.Errorf("exit code %d after shutdown and exit", f.srv.ExitCode())
	}
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
	_, err := f.ed.ExecuteCommand(ctx, lsp.CmdAsk, map[string]any{"prompt": "again"})
	if err == nil || !strings.Contains(err.Error(), "no workspace folder") {
		t.Errorf("ask with no folder left: %v", err)
	}
}
