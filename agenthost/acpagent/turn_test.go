package acpagent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
)

// TestTurnMapsEachUpdate: a prompt's updates reach the turn's stream as codex's notifications, in
// order, and the host's hook sees each before the stream does: the reasoning and the answer as
// items with deltas (a tool call completes them), a command with its streamed output, an edit with
// its diff, another tool as a dynamic tool, a failed call, the plan, the context's usage.
func TestTurnMapsEachUpdate(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	file := h.folder + "/a.txt"
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		t.Thought("Let me ")
		t.Thought("look.")
		t.Message("Run")
		t.Message("ning the tests.")
		t.ToolCall(acp.ToolCall{ToolCallID: "c1", Kind: acp.ToolKindExecute, Title: "go test", Status: acp.ToolCallStatusPending, RawInput: raw(`{"command":["go","test","./..."]}`)})
		t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.ToolCallStatusInProgress, Content: []acp.ToolCallContent{textContent("ok a\n")}})
		t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.ToolCallStatusCompleted, Content: []acp.ToolCallContent{textContent("ok a\nok b\n")}})
		t.Plan(acp.PlanEntry{Content: "fix a.txt", Status: acp.PlanEntryStatusInProgress}, acp.PlanEntry{Content: "test", Status: acp.PlanEntryStatusPending},
			acp.PlanEntry{Content: "read", Status: acp.PlanEntryStatusCompleted})
		t.ToolCall(acp.ToolCall{ToolCallID: "c2", Kind: acp.ToolKindEdit, Title: "Edit a.txt", Content: []acp.ToolCallContent{
			{Kind: acp.ToolCallContentKindDiff, Diff: &acp.Diff{Path: file, OldText: "one\n", NewText: "two\n"}},
			{Kind: acp.ToolCallContentKindDiff, Diff: &acp.Diff{Path: h.folder + "/new.txt", NewText: "new\n"}},
		}})
		t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "c2", Status: acp.ToolCallStatusCompleted})
		t.ToolCall(acp.ToolCall{ToolCallID: "c3", Kind: acp.ToolKindRead, Title: "Read a.txt", RawInput: raw(`{"path":"a.txt"}`), Status: acp.ToolCallStatusInProgress})
		t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "c3", Status: acp.ToolCallStatusCompleted, Content: []acp.ToolCallContent{textContent("one\n")}})
		t.ToolCall(acp.ToolCall{ToolCallID: "c4", Kind: acp.ToolKindFetch, Title: "Fetch \x1b[31mhttps://example.com\x1b[0m", Status: acp.ToolCallStatusInProgress})
		t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "c4", Status: acp.ToolCallStatusFailed, RawOutput: raw(`"offline"`)})
		t.ToolCall(acp.ToolCall{ToolCallID: "c5", Kind: acp.ToolKindOther, Title: "Think\nhard", Status: acp.ToolCallStatusInProgress})
		t.Usage(1200, 200000)
		t.Message("Done.")
		return acp.StopReasonEndTurn
	})
	evs := h.turn(thread, "fix it")
	wantEvents(t, evs,
		"turn/started",
		"item/started reasoning",
		`item/reasoning/textDelta "Let me "`,
		`item/reasoning/textDelta "look."`,
		`item/completed reasoning "Let me look."`,
		"item/started agentMessage",
		`item/agentMessage/delta "Run"`,
		`item/agentMessage/delta "ning the tests."`,
		`item/completed agentMessage "Running the tests."`,
		`item/started commandExecution inProgress "go test ./..."`,
		`item/commandExecution/outputDelta "ok a\n"`,
		`item/commandExecution/outputDelta "ok b\n"`,
		`item/completed commandExecution completed "go test ./..." -> "ok a\nok b\n"`,
		"plan fix a.txt=inProgress, test=pending, read=completed",
		"item/started fileChange inProgress update:a.txt add:new.txt",
		"item/completed fileChange completed update:a.txt add:new.txt",
		`item/started dynamicToolCall inProgress read {"path":"a.txt"}`,
		`item/completed dynamicToolCall completed read {"path":"a.txt"} -> "one\n"`,
		"item/started dynamicToolCall inProgress fetch {}",
		`item/completed dynamicToolCall failed fetch {} -> "offline"`,
		"item/started dynamicToolCall inProgress Think hard {}",
		"usage in=1200 cached=0 out=0 reasoning=0 window=200000 total.in=0",
		"item/started agentMessage",
		`item/agentMessage/delta "Done."`,
		`item/completed agentMessage "Done."`,
		`item/completed dynamicToolCall failed Think hard {} -> "[did not complete: the turn ended]"`,
		"turn/completed completed",
	)
	h.mu.Lock()
	seen := describeAll(h.seen)
	h.mu.Unlock()
	if got := describeAll(evs); !slices.Equal(seen, got) {
		t.Errorf("the host's hook saw:\n%s\nthe stream:\n%s", strings.Join(seen, "\n"), strings.Join(got, "\n"))
	}
	for _, ev := range evs {
		if ev.ThreadID != thread || (ev.TurnID == "" || ev.TurnID != evs[0].TurnID) {
			t.Fatalf("%s: thread %q turn %q, want %q and the turn's", describe(ev), ev.ThreadID, ev.TurnID, thread)
		}
	}
	// The edit's change carries a unified diff of its texts, hunks only.
	for _, ev := range evs {
		if v, ok := ev.Value.(*codex.ItemParams); ok && v.Item.Type == codex.ItemFileChange {
			if d := v.Item.Changes[0].Diff; d != "@@ -1 +1 @@\n-one\n+two\n" {
				t.Errorf("the diff of a.txt: %q", d)
			}
			if d := v.Item.Changes[1].Diff; d != "@@ -0,0 +1 @@\n+new\n" {
				t.Errorf("the diff of new.txt: %q", d)
			}
		}
	}
	// The tool items read as the host names them.
	for _, ev := range evs {
		if v, ok := ev.Value.(*codex.ItemParams); ok && v.Item.Type == codex.ItemCommandExecution && ev.Method == codex.NotifyItemCompleted {
			if name, args := agenthost.ToolName(&v.Item), string(agenthost.ToolArgs(&v.Item)); name != "exec_command" || !strings.Contains(args, `"command":"go test ./..."`) {
				t.Errorf("the command reads as %s %s", name, args)
			}
		}
	}
}

// TestMessageIDStartsAnotherMessage: a chunk of another messageId completes the message and starts
// another; the turn's answer is the last.
func TestMessageIDStartsAnotherMessage(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		t.Update(textUpdate("first", "m1"))
		t.Update(textUpdate(" part", "m1"))
		t.Update(textUpdate("second", "m2"))
		return acp.StopReasonEndTurn
	})
	wantEvents(t, h.turn(thread, "hi"),
		"turn/started",
		"item/started agentMessage",
		`item/agentMessage/delta "first"`,
		`item/agentMessage/delta " part"`,
		`item/completed agentMessage "first part"`,
		"item/started agentMessage",
		`item/agentMessage/delta "second"`,
		`item/completed agentMessage "second"`,
		"turn/completed completed",
	)
}

// TestStopReasons: end_turn completes the turn; max_tokens, max_turn_requests and refusal complete
// it with an error event that says so; cancelled interrupts it.
func TestStopReasons(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	for _, tt := range []struct {
		reason string
		want   []string
	}{
		{acp.StopReasonMaxTokens, []string{"error: acptest stopped: the model reached its limit of output tokens (max_tokens). Ask it to go on, or to do less at once.", "turn/completed completed"}},
		{acp.StopReasonMaxTurnRequests, []string{"error: acptest stopped: the turn reached the agent's limit of model requests (max_turn_requests). Ask it to go on.", "turn/completed completed"}},
		{acp.StopReasonRefusal, []string{"error: acptest refused to go on with this prompt (refusal).", "turn/completed completed"}},
		{acp.StopReasonCancelled, []string{"turn/completed interrupted"}},
		{acp.StopReasonEndTurn, []string{"turn/completed completed"}},
	} {
		h.fake.OnPrompt(func(*acptest.Turn) string { return tt.reason })
		evs := h.turn(thread, "go")
		wantEvents(t, evs[1:], tt.want...)
	}
}

// TestInterruptCancelsThePrompt: InterruptTurn sends session/cancel; the agent's answer, cancelled,
// makes the turn interrupted.
func TestInterruptCancelsThePrompt(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		t.Message("working")
		if !t.WaitCancel() {
			return acp.StopReasonEndTurn
		}
		return acp.StopReasonCancelled
	})
	turn, st := h.start(thread, "go")
	first := <-st.Events()
	if describe(first) != "turn/started" {
		t.Fatalf("first event %s", describe(first))
	}
	if _, err := h.fake.WaitReceived(ctx(t), acp.MethodSessionPrompt, 1); err != nil {
		t.Fatal(err)
	}
	if err := h.agent.InterruptTurn(ctx(t), thread, turn.ID); err != nil {
		t.Fatal(err)
	}
	evs := drain(t, st)
	if got := describe(evs[len(evs)-1]); got != "turn/completed interrupted" {
		t.Errorf("the turn ended %s", got)
	}
	if !st.TurnCompleted() {
		t.Error("TurnCompleted is false after turn/completed")
	}
	// An interrupt of a turn that ended is nothing.
	if err := h.agent.InterruptTurn(ctx(t), thread, turn.ID); err != nil {
		t.Errorf("interrupt after the end: %v", err)
	}
}

// TestAgentExitingMidTurn: an agent that dies during a prompt fails the turn with what it wrote
// last on its stderr; the agent is Done with the reason.
func TestAgentExitingMidTurn(t *testing.T) {
	command, args, env, err := acptest.Command("crash")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, folder: t.TempDir(), buffers: map[string]string{}, atStart: map[string]string{}}
	h.request = func(context.Context, *codex.Request) (any, error) { return nil, errors.New("no") }
	cfg := agenthost.AgentConfig{Kind: agenthost.AgentACP, Command: command, Args: args, Env: map[string]string{}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		cfg.Env[k] = v
	}
	a, err := acpagentStart(ctx(t), cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = a
	t.Cleanup(func() { _ = a.Close() })
	if a.Pid() == 0 {
		t.Error("a spawned agent has no pid")
	}
	evs := h.turn(h.thread(), "go")
	last := describe(evs[len(evs)-1])
	if !strings.HasPrefix(last, "turn/completed failed") || !strings.Contains(last, "panic: the model ran away") {
		t.Errorf("the turn ended %s", last)
	}
	<-a.Done()
	if a.Err() == nil || !strings.Contains(a.StderrTail(5), "panic: the model ran away") {
		t.Errorf("Err %v, stderr %q", a.Err(), a.StderrTail(5))
	}
}

func textContent(text string) acp.ToolCallContent {
	return acp.ToolCallContent{Kind: acp.ToolCallContentKindContent, Content: &acp.Content{Content: acp.TextBlock(text)}}
}

// TestClosedAgent: a closed agent starts nothing: a turn fails, a subscription ends at once.
func TestClosedAgent(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	sub := h.agent.Subscribe(thread)
	if err := h.agent.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-sub.Events(); ok || sub.Err() == nil {
		t.Errorf("a subscription of a closed agent: err %v", sub.Err())
	}
	if _, _, err := h.agent.StartTurn(ctx(t), codex.TurnStartParams{ThreadID: thread, Input: []codex.UserInput{codex.TextInput("x")}}); err == nil {
		t.Error("a turn of a closed agent started")
	}
	if st := h.agent.Subscribe(thread); st.Err() == nil {
		t.Error("a subscription of a closed agent has no error")
	}
}
