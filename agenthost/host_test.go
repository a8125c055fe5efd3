package agenthost_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

func TestStartIsLazyAndReused(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.CodexArgs = []string{"-c", `model_provider="x"`}
		c.CodexHome = "/home/u/.codex-hermes"
		c.CodexEnv = map[string]string{"RUST_LOG": "warn"}
		c.Model = "gpt-5.5"
		c.ApprovalPolicy = codex.ApprovalOnRequest
		c.Sandbox = codex.SandboxReadOnly
	})
	s := fh.session(t)
	if n := len(fh.fake.Starts()); n != 0 {
		t.Fatalf("codex started %d times before any turn", n)
	}
	for _, prompt := range []string{"one", "two"} {
		if res, _ := run(t, s, prompt); !res.Completed {
			t.Fatalf("turn %q: %+v", prompt, res)
		}
	}
	starts := fh.fake.Starts()
	if len(starts) != 1 {
		t.Fatalf("codex started %d times for two turns, want 1", len(starts))
	}
	p := starts[0].Process
	if p.Binary != "/opt/codex/bin/codex" || !slices.Equal(p.Args, []string{"-c", `model_provider="x"`}) ||
		p.Home != "/home/u/.codex-hermes" || !slices.Contains(p.Env, "RUST_LOG=warn") {
		t.Errorf("process options not passed through: %+v", p)
	}
	threads := fh.fake.Threads()
	if len(threads) != 1 {
		t.Fatalf("threads: %v", threads)
	}
	for _, th := range threads {
		params := th.Start
		if th.Cwd != fh.folder || params.Model != "gpt-5.5" || params.ApprovalPolicy != codex.ApprovalOnRequest || params.Sandbox != codex.SandboxReadOnly {
			t.Errorf("thread/start: cwd %s params %+v", th.Cwd, params)
		}
	}
}

func TestPrewarm(t *testing.T) {
	fh := newFakeHost(t, nil)
	if err := fh.Prewarm(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fh.Running() || len(fh.fake.Starts()) != 1 {
		t.Fatal("prewarm did not start codex")
	}
	run(t, fh.session(t), "hi")
	if len(fh.fake.Starts()) != 1 {
		t.Fatal("the first turn after prewarm started codex again")
	}
}

// TestWarm: a warmed session has its thread loaded: its first turn is a turn/start alone.
func TestWarm(t *testing.T) {
	fh := newFakeHost(t, nil)
	s := fh.session(t)
	if err := s.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := len(fh.fake.Requests())
	run(t, s, "hi")
	var methods []string
	for _, m := range fh.fake.Requests()[before:] {
		methods = append(methods, m.Method)
	}
	if len(methods) == 0 || methods[0] != "turn/start" || slices.Contains(methods, "thread/start") || slices.Contains(methods, "thread/resume") {
		t.Errorf("requests of the first turn after Warm: %v, want turn/start and no thread loading", methods)
	}
}

func TestResultProjection(t *testing.T) {
	fh := newFakeHost(t, nil)
	var execID string
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Reasoning("thinking about tests")
		execID = ft.Exec("go test ./...", 1, "FAIL: TestX\n")
		ft.Item(map[string]any{"type": codex.ItemMcpToolCall, "server": "fs", "tool": "read", "arguments": map[string]any{"p": 1},
			"result": map[string]any{"content": []map[string]any{{"type": "text", "text": "file body"}}}})
		ft.Item(map[string]any{"type": codex.ItemDynamicToolCall, "tool": "lsp_diagnostics", "arguments": map[string]any{"path": "a.go"},
			"success": true, "contentItems": []map[string]any{{"type": "inputText", "text": "no problems"}}})
		ft.Item(map[string]any{"type": codex.ItemWebSearch, "query": "golang conc"})
		ft.AgentMessage("first")
		ft.AgentMessage("the final answer")
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	res, events := run(t, s, "fix the tests")
	if !res.Completed || res.Partial || res.Status != agenthost.StatusCompleted || res.Error != "" {
		t.Fatalf("status: %+v", res)
	}
	if res.FinalText != "the final answer" || res.APICalls != 1 || res.ThreadID == "" || res.TurnID == "" {
		t.Fatalf("result: %+v", res)
	}
	if res.ToolIterations != 3 {
		t.Errorf("tool iterations %d, want 3 (exec, mcp, dynamic; web search does not count)", res.ToolIterations)
	}
	users := 0
	for _, m := range res.Messages {
		if m.Role == "user" {
			users++
		}
	}
	if users != 1 || res.Messages[0].Role != "user" || res.Messages[0].Content != "fix the tests" {
		t.Fatalf("the user message must come first, exactly once: %+v", res.Messages)
	}
	wantIDs := []string{"codex_exec_" + execID, "codex_mcp__fs__read_", "codex_dyn_lsp_diagnostics_", "codex_web_search_"}
	var calls []hermesproto.Message
	for i, m := range res.Messages {
		if len(m.ToolCalls) == 1 {
			calls = append(calls, m)
			next := res.Messages[i+1]
			if next.Role != "tool" || next.ToolCallID != m.ToolCalls[0].ID {
				t.Errorf("tool call %s not followed by its tool row: %+v", m.ToolCalls[0].ID, next)
			}
		}
	}
	if len(calls) != 4 {
		t.Fatalf("tool call rows: %+v", calls)
	}
	for i, prefix := range wantIDs {
		if !strings.HasPrefix(calls[i].ToolCalls[0].ID, prefix) {
			t.Errorf("call %d id %s, want prefix %s", i, calls[i].ToolCalls[0].ID, prefix)
		}
	}
	if calls[0].Reasoning != "thinking about tests" {
		t.Errorf("reasoning not attached to the next assistant row: %+v", calls[0])
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != "assistant" || last.Content != "the final answer" {
		t.Errorf("last row: %+v", last)
	}

	// Tool events: names, previews, results.
	done := ofKind(events, hermesproto.EventKindToolCompleted)
	if len(done) != 4 {
		t.Fatalf("toolCompleted events: %d", len(done))
	}
	wantNames := []string{"exec_command", "mcp.fs.read", "lsp_diagnostics", "web_search"}
	for i, ev := range done {
		if ev.Tool.Name != wantNames[i] {
			t.Errorf("tool %d named %s, want %s", i, ev.Tool.Name, wantNames[i])
		}
	}
	if done[0].Tool.Result != "[exit 1] FAIL: TestX\n" || !done[0].Tool.IsError || done[0].Tool.Preview != "go test ./..." {
		t.Errorf("exec event: %+v", done[0].Tool)
	}
	if done[1].Tool.Result != "file body" || done[2].Tool.Result != "no problems" || done[3].Tool.Preview != "golang conc" {
		t.Errorf("results: %q %q %q", done[1].Tool.Result, done[2].Tool.Result, done[3].Tool.Preview)
	}
	started := ofKind(events, hermesproto.EventKindToolStarted)
	if len(started) != 4 {
		t.Errorf("toolStarted events: %d", len(started))
	}
	for i, ev := range started {
		if i < len(wantNames) && (ev.Tool.Name != wantNames[i] || ev.Tool.CallID != done[i].Tool.CallID) {
			t.Errorf("toolStarted %d: name %s call %s, want %s / %s", i, ev.Tool.Name, ev.Tool.CallID, wantNames[i], done[i].Tool.CallID)
		}
	}
	// The exec's duration is codex's own (durationMs: 1 in the fake), not the time between the
	// item's start and end as hermes saw it.
	if done[0].Tool.DurationMs != 1 {
		t.Errorf("exec duration %d ms, want codex's 1", done[0].Tool.DurationMs)
	}
	if evs := ofKind(events, hermesproto.EventKindTurnCompleted); len(evs) != 1 || evs[0].Result.FinalText != "the final answer" {
		t.Errorf("turnCompleted events: %+v", evs)
	}
	var answer strings.Builder
	for _, ev := range ofKind(events, hermesproto.EventKindAnswerDelta) {
		answer.WriteString(ev.Text)
	}
	if answer.String() != "firstthe final answer" {
		t.Errorf("answer deltas %q", answer.String())
	}

	// The session sums the turns' tool iterations.
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("ls", 0, "a\n")
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	run(t, s, "again")
	if st := s.Status(); st.ToolIterations != 4 || st.Turns != 2 {
		t.Errorf("session: %d tool iterations over %d turns, want 4 over 2", st.ToolIterations, st.Turns)
	}
}

func TestToolMappingAndPreview(t *testing.T) {
	manyPaths := make([]codex.FileChange, 5)
	for i := range manyPaths {
		manyPaths[i].Path = "/w/file" + string(rune('a'+i)) + ".go"
		manyPaths[i].Kind.Type = "update"
	}
	long := strings.Repeat("x", 300)
	tests := []struct {
		name    string
		item    codex.Item
		tool    string
		preview string
		callID  string
	}{
		{"exec", codex.Item{Type: codex.ItemCommandExecution, ID: "c1", Command: "pytest -q"}, "exec_command", "pytest -q", "codex_exec_c1"},
		{"long command", codex.Item{Type: codex.ItemCommandExecution, ID: "c2", Command: long}, "exec_command", strings.Repeat("x", 119) + "…", "codex_exec_c2"},
		{"patch", codex.Item{Type: codex.ItemFileChange, ID: "p1", Changes: manyPaths}, "apply_patch", "/w/filea.go, /w/fileb.go, /w/filec.go, +2 more", "codex_apply_patch_p1"},
		{"mcp", codex.Item{Type: codex.ItemMcpToolCall, ID: "m1", Server: "fs", Tool: "read", Arguments: json.RawMessage(`{"p":1}`)}, "mcp.fs.read", `{"p":1}`, "codex_mcp__fs__read_m1"},
		{"dynamic", codex.Item{Type: codex.ItemDynamicToolCall, ID: "d1", Tool: "web_fetch", Arguments: json.RawMessage(`{"q":"x"}`)}, "web_fetch", `{"q":"x"}`, "codex_dyn_web_fetch_d1"},
		{"web search", codex.Item{Type: codex.ItemWebSearch, ID: "w1", Query: "go generics"}, "web_search", "go generics", "codex_web_search_w1"},
		{"not a tool", codex.Item{Type: codex.ItemAgentMessage, ID: "a1", Text: "hi"}, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := agenthost.ToolName(&tt.item); got != tt.tool {
				t.Errorf("name %q, want %q", got, tt.tool)
			}
			if tt.tool == "" {
				return
			}
			if got := agenthost.ToolPreview(&tt.item); got != tt.preview {
				t.Errorf("preview %q, want %q", got, tt.preview)
			}
			if got := agenthost.ToolCallID(&tt.item); got != tt.callID {
				t.Errorf("call id %q, want %q", got, tt.callID)
			}
		})
	}
	patch := codex.Item{Type: codex.ItemFileChange, Status: codex.ItemCompleted, Changes: manyPaths[:2]}
	if got, isErr := agenthost.ToolResult(&patch); got != "apply_patch status=completed, 2 change(s)" || isErr {
		t.Errorf("patch result %q %v", got, isErr)
	}
	var args struct{ Arguments map[string]int }
	_ = json.Unmarshal([]byte(`{"Arguments":`+string(agenthost.ToolArgs(&tests[3].item))+`}`), &args)
	if args.Arguments["p"] != 1 {
		t.Errorf("mcp args %s", agenthost.ToolArgs(&tests[3].item))
	}
}

func TestEventsIgnoreNonToolsMalformedAndOtherTurns(t *testing.T) {
	fh := newFakeHost(t, nil)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Item(map[string]any{"type": codex.ItemPlan, "text": "1. do it"})
		ft.Notify(codex.NotifyItemStarted, map[string]any{"item": "not an object"}) // malformed
		ft.Notify(codex.NotifyItemCompleted, map[string]any{})                      // malformed
		// A late notification of an older turn of the same thread.
		ft.Notify(codex.NotifyItemStarted, map[string]any{"turnId": "turn-old", "item": map[string]any{"type": codex.ItemCommandExecution, "id": "old", "command": "rm -rf /", "cwd": "/", "commandActions": []any{}, "status": "inProgress"}})
		// A tool item that never completes is closed at turn/completed.
		ft.StartItem(map[string]any{"type": codex.ItemCommandExecution, "command": "sleep 100", "cwd": ft.Cwd, "commandActions": []any{}})
		ft.AgentMessage("done")
		ft.Complete(codex.TurnCompleted, nil)
	})
	res, events := run(t, fh.session(t), "go")
	started := ofKind(events, hermesproto.EventKindToolStarted)
	completed := ofKind(events, hermesproto.EventKindToolCompleted)
	if len(started) != 1 || started[0].Tool.Preview != "sleep 100" {
		t.Fatalf("toolStarted: %+v", started)
	}
	if len(completed) != 1 || !completed[0].Tool.IsError || completed[0].Tool.Status != "incomplete" {
		t.Fatalf("the open item was not closed: %+v", completed)
	}
	if res.ToolIterations != 0 {
		t.Errorf("an item that never completed counted as an iteration")
	}
}

func TestSteerWhileRunning(t *testing.T) {
	fh := newFakeHost(t, nil)
	steered := make(chan string, 1)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		select {
		case in := <-ft.Steered():
			steered <- in
		case <-ft.Done():
			return
		}
		ft.AgentMessage("steered answer")
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	first, err := s.Run(t.Context(), agenthost.Input{Prompt: "start"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Run(t.Context(), agenthost.Input{Prompt: "and also this"})
	if err != nil {
		t.Fatal(err)
	}
	if !second.Steered() || first.Steered() || second.TurnID() != first.TurnID() {
		t.Fatalf("second run: steered %v turn %s (first %s)", second.Steered(), second.TurnID(), first.TurnID())
	}
	if got := <-steered; got != "and also this" {
		t.Fatalf("steered input %q", got)
	}
	res, events := finish(t, first)
	if !res.Completed || len(ofKind(events, hermesproto.EventKindSteered)) != 1 {
		t.Fatalf("result %+v", res)
	}
	// The steered input is the user's, in the messages (before the answer it led to), the
	// transcript and the history a chat fallback gets.
	var users []string
	for _, m := range res.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if !slices.Equal(users, []string{"start", "and also this"}) || res.Messages[len(res.Messages)-1].Content != "steered answer" {
		t.Errorf("messages: %+v", res.Messages)
	}
	if md := readFile(t, res.TranscriptPath); !strings.Contains(md, "> and also this") {
		t.Errorf("the transcript lacks the steered input:\n%s", md)
	}
	if n := len(fh.fake.Threads()); n != 1 {
		t.Errorf("threads %d", n)
	}
}

func TestFoldersRunInParallel(t *testing.T) {
	fh := newFakeHost(t, nil)
	var mu sync.Mutex
	running := map[string]bool{}
	both := make(chan struct{})
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		mu.Lock()
		running[ft.Cwd] = true
		if len(running) == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both: // each turn waits until the other runs too
		case <-ft.Done():
			return
		}
		ft.AgentMessage("in " + ft.Cwd)
		ft.Complete(codex.TurnCompleted, nil)
	})
	a, _ := fh.Session(t.TempDir())
	b, _ := fh.Session(t.TempDir())
	ta, err := a.Run(t.Context(), agenthost.Input{Prompt: "a"})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.Run(t.Context(), agenthost.Input{Prompt: "b"})
	if err != nil {
		t.Fatal(err)
	}
	ra, _ := finish(t, ta)
	rb, _ := finish(t, tb)
	if ra.FinalText != "in "+a.Folder() || rb.FinalText != "in "+b.Folder() || ra.ThreadID == rb.ThreadID {
		t.Fatalf("results %q %q", ra.FinalText, rb.FinalText)
	}
	if len(fh.fake.Starts()) != 1 {
		t.Errorf("one codex serves every folder; started %d", len(fh.fake.Starts()))
	}
}

func TestCloseInterruptsRunningTurn(t *testing.T) {
	fake := codextest.NewFake(t)
	h, err := agenthost.New(agenthost.Config{StartCodex: fake.Start, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("partial answer")
		ft.CompleteOnInterrupt()
	})
	s, _ := h.Session(t.TempDir())
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "long job"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fake.WaitRequest(t.Context(), codex.MethodTurnStart, 1); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	res, err := turn.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed || res.Status != agenthost.StatusInterrupted || !strings.Contains(res.Error, "shutting down") {
		t.Fatalf("result after Close: %+v", res)
	}
	if _, err := h.Session(t.TempDir()); err == nil {
		t.Error("a closed host made a session")
	}
}

func TestConfigValidation(t *testing.T) {
	bad := []agenthost.Config{
		{ApprovalPolicy: "sometimes"},
		{Sandbox: "none"},
		{ApprovalsMode: "auto"},
		{Fallbacks: []agenthost.FallbackProvider{{Name: "x", Kind: "grpc", BaseURL: "http://h", Model: "m"}}},
		{Fallbacks: []agenthost.FallbackProvider{{Name: "x", Kind: "chat"}}},
	}
	for i, cfg := range bad {
		cfg.StateDir = t.TempDir()
		if _, err := agenthost.New(cfg); err == nil {
			t.Errorf("config %d accepted: %+v", i, cfg)
		}
	}
	modes := []struct {
		in   any
		want string
		ok   bool
	}{
		{"manual", agenthost.ApprovalsManual, true}, {"off", agenthost.ApprovalsOff, true}, {false, agenthost.ApprovalsOff, true},
		{true, agenthost.ApprovalsManual, true}, {nil, agenthost.ApprovalsManual, true}, {"maybe", "", false}, {3.0, "", false},
	}
	for _, m := range modes {
		got, err := agenthost.ParseApprovalsMode(m.in)
		if (err == nil) != m.ok || got != m.want {
			t.Errorf("ParseApprovalsMode(%v) = %q, %v", m.in, got, err)
		}
	}
}

// Codex acknowledges an interrupt that comes before the turn's first model request and runs on: the
// host sends it again until the turn ends.
func TestInterruptIsResentUntilTheTurnEnds(t *testing.T) {
	fh := newFakeHost(t, nil)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		// Ignore the first interrupt; give in at the second.
		if _, err := fh.fake.WaitRequest(t.Context(), codex.MethodTurnInterrupt, 2); err != nil {
			return
		}
		ft.Complete(codex.TurnInterrupted, nil)
	})
	s := fh.session(t)
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "stop me early"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Interrupt(t.Context()); err != nil {
		t.Fatal(err)
	}
	res, _ := finish(t, turn)
	if res.Status != agenthost.StatusInterrupted {
		t.Fatalf("result: %+v", res)
	}
}

// TestHostReportsItsConfig: codex hears the client version the host was configured with, and the
// state dir stays the one the host was created with after a change (which applies on restart).
func TestHostReportsItsConfig(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) { c.ClientVersion = "1.2.3" })
	run(t, fh.session(t), "hello")
	if v := fh.fake.Starts()[0].ClientInfo.Version; v != "1.2.3" {
		t.Errorf("clientInfo.version %q, want 1.2.3", v)
	}
	if err := fh.Reconfigure(agenthost.Config{CodexPath: "/opt/codex/bin/codex", StateDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if got := fh.StateDir(); got != fh.state {
		t.Errorf("StateDir() = %s after a change, want the one it was created with (%s)", got, fh.state)
	}
}

// TestEventsAgainAfterTheEnd asks a finished turn for its events again, as a caller that lost the
// channel does: the channel is closed, and the host still closes (a second delivery for the same
// turn used to leave the session's goroutine waiting forever for a delivery that had panicked).
func TestEventsAgainAfterTheEnd(t *testing.T) {
	fh := newFakeHost(t, nil)
	s := fh.session(t)
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	finish(t, turn)
	for range 3 {
		if ev, ok := recvOrClosed(t, turn.Events()); ok {
			t.Fatalf("event %+v after the turn's end", ev)
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- fh.Close() }()
	if err := recv(t, closed, "the host's Close"); err != nil {
		t.Fatal(err)
	}
}
