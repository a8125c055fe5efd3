package acpagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/agenthost/acpagent"
	"github.com/hermes-lsp/hermes-lsp/codex"
)

func TestMain(m *testing.M) {
	acptest.Main(scripts)
	goleak.VerifyTestMain(m)
}

// scripts are the agents a test runs as processes of their own (acptest.Command).
var scripts = map[string]acptest.Script{
	"crash": {OnPrompt: func(t *acptest.Turn) string {
		t.Message("starting")
		t.Crash("panic: the model ran away", "goroutine 1 [running]")
		return ""
	}},
}

// harness is an acpagent.Agent connected to an in-process acptest agent, with the host's side
// played by the test: its request handler (request, by default declining) and its notification
// hook, which records every event (seen).
type harness struct {
	t      testing.TB
	fake   *acptest.Agent
	agent  agenthost.Agent
	folder string

	mu      sync.Mutex
	seen    []codex.Event
	request func(ctx context.Context, req *codex.Request) (any, error)
	buffers map[string]string
	// atStart is what each file was when the host was told of a fileChange item's start.
	atStart map[string]string
}

func newHarness(t testing.TB, cfg acptest.Config) *harness {
	t.Helper()
	h := &harness{t: t, fake: acptest.NewAgent(t, cfg), folder: t.TempDir(), buffers: map[string]string{}, atStart: map[string]string{}}
	h.folder, _ = filepath.EvalSymlinks(h.folder)
	h.request = func(context.Context, *codex.Request) (any, error) {
		return codex.ApprovalResponse{Decision: codex.DecisionDecline}, nil
	}
	h.connect(h.fake.Connect)
	return h
}

// connect connects the harness's agent through connect.
func (h *harness) connect(connect acpagent.Connector) {
	h.t.Helper()
	a, err := acpagent.Connect(ctx(h.t), agenthost.AgentConfig{Kind: agenthost.AgentACP, Command: "/opt/bin/fake-agent"}, h.options(), h.editor(), connect)
	if err != nil {
		h.t.Fatal(err)
	}
	h.agent = a
	h.t.Cleanup(func() { _ = a.Close() })
}

// acpagentStart spawns the agent cfg names for h.
func acpagentStart(c context.Context, cfg agenthost.AgentConfig, h *harness) (agenthost.Agent, error) {
	return acpagent.Start(c, cfg, h.options(), h.editor())
}

// options are the host's side of the agent: h's request handler and notification hook.
func (h *harness) options() codex.Options {
	return codex.Options{
		OnRequest: func(ctx context.Context, req *codex.Request) (any, error) {
			h.mu.Lock()
			f := h.request
			h.mu.Unlock()
			return f(ctx, req)
		},
		OnNotification: h.notified,
		ClientInfo:     codex.ClientInfo{Name: "hermes-lsp", Version: "test"},
		StartTimeout:   10 * time.Second,
	}
}

// editor has the buffers of h.buffers open.
func (h *harness) editor() acpagent.Editor {
	return acpagent.Editor{Buffer: func(path string) (string, bool) {
		h.mu.Lock()
		defer h.mu.Unlock()
		text, ok := h.buffers[path]
		return text, ok
	}}
}

// notified records ev, and the files a fileChange item names as they are when it starts.
func (h *harness) notified(ev codex.Event) {
	if v, ok := ev.Value.(*codex.ItemParams); ok && ev.Method == codex.NotifyItemStarted && v.Item.Type == codex.ItemFileChange {
		for _, c := range v.Item.Changes {
			b, err := os.ReadFile(c.Path)
			if err != nil {
				b = []byte("<absent>")
			}
			h.mu.Lock()
			h.atStart[c.Path] = string(b)
			h.mu.Unlock()
		}
	}
	h.mu.Lock()
	h.seen = append(h.seen, ev)
	h.mu.Unlock()
}

func (h *harness) setRequest(f func(ctx context.Context, req *codex.Request) (any, error)) {
	h.mu.Lock()
	h.request = f
	h.mu.Unlock()
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// thread starts a session in the harness's folder.
func (h *harness) thread() string {
	h.t.Helper()
	res, err := h.agent.StartThread(ctx(h.t), codex.ThreadStartParams{Cwd: h.folder})
	if err != nil {
		h.t.Fatal(err)
	}
	return res.Thread.ID
}

// turn runs a prompt on the thread and returns its events, turn/started to turn/completed.
func (h *harness) turn(thread, prompt string) []codex.Event {
	h.t.Helper()
	_, st := h.start(thread, prompt)
	return drain(h.t, st)
}

func (h *harness) start(thread, prompt string) (*codex.Turn, agenthost.Stream) {
	h.t.Helper()
	turn, st, err := h.agent.StartTurn(ctx(h.t), codex.TurnStartParams{ThreadID: thread, Input: []codex.UserInput{codex.TextInput(prompt)}})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(st.Close)
	return turn, st
}

// drain reads st to its end.
func drain(t testing.TB, st agenthost.Stream) []codex.Event {
	t.Helper()
	c := ctx(t)
	var out []codex.Event
	for {
		select {
		case ev, ok := <-st.Events():
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-c.Done():
			t.Fatalf("the stream did not end; so far:\n%s", strings.Join(describeAll(out), "\n"))
		}
	}
}

// describeAll is each event in a line (describe).
func describeAll(evs []codex.Event) []string {
	out := make([]string, 0, len(evs))
	for _, ev := range evs {
		out = append(out, describe(ev))
	}
	return out
}

// describe is an event as the tests compare it: its method and what the host reads of it.
func describe(ev codex.Event) string {
	switch v := ev.Value.(type) {
	case *codex.TurnStartedParams:
		return "turn/started"
	case *codex.TurnCompletedParams:
		s := "turn/completed " + v.Turn.Status
		if v.Turn.Error.Message != "" {
			s += ": " + v.Turn.Error.Message
		}
		return s
	case *codex.ItemParams:
		return ev.Method + " " + describeItem(&v.Item)
	case *codex.DeltaParams:
		return fmt.Sprintf("%s %q", ev.Method, v.Delta)
	case *codex.TurnPlanParams:
		var steps []string
		for _, p := range v.Plan {
			steps = append(steps, p.Step+"="+p.Status)
		}
		return "plan " + strings.Join(steps, ", ")
	case *codex.TokenUsageParams:
		u := v.TokenUsage
		return fmt.Sprintf("usage in=%d cached=%d out=%d reasoning=%d window=%d total.in=%d",
			u.Last.InputTokens, u.Last.CachedInputTokens, u.Last.OutputTokens, u.Last.ReasoningOutputTokens, u.ModelContextWindow, u.Total.InputTokens)
	case *codex.ErrorParams:
		return "error: " + v.Error.Message
	}
	return ev.Method + " ?"
}

func describeItem(it *codex.Item) string {
	s := it.Type
	switch it.Type {
	case codex.ItemAgentMessage:
		if it.Text != "" {
			s += fmt.Sprintf(" %q", it.Text)
		}
	case codex.ItemReasoning:
		if len(it.Summary) > 0 {
			s += fmt.Sprintf(" %q", strings.Join(it.Summary, ""))
		}
	case codex.ItemCommandExecution:
		s += fmt.Sprintf(" %s %q", it.Status, it.Command)
		if it.AggregatedOutput != nil {
			s += fmt.Sprintf(" -> %q", *it.AggregatedOutput)
		}
	case codex.ItemFileChange:
		s += " " + it.Status
		for _, c := range it.Changes {
			s += fmt.Sprintf(" %s:%s", c.Kind.Type, filepath.Base(c.Path))
		}
	case codex.ItemDynamicToolCall:
		s += fmt.Sprintf(" %s %s %s", it.Status, it.Tool, it.Arguments)
		if len(it.ContentItems) > 0 {
			var parts []struct{ Text string }
			_ = json.Unmarshal(it.ContentItems, &parts)
			if len(parts) == 1 {
				s += fmt.Sprintf(" -> %q", parts[0].Text)
			}
		}
	}
	return s
}

// wantEvents fails the test unless got describes as want, line by line.
func wantEvents(t *testing.T, got []codex.Event, want ...string) {
	t.Helper()
	lines := describeAll(got)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// textUpdate is an agent_message_chunk of the message id.
func textUpdate(text, messageID string) acp.SessionUpdate {
	return acp.SessionUpdate{Kind: acp.SessionUpdateKindAgentMessageChunk, ContentChunk: &acp.ContentChunk{Content: acp.TextBlock(text), MessageID: messageID}}
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// declineAll is a host that declines every request.
func declineAll(context.Context, *codex.Request) (any, error) {
	return codex.ApprovalResponse{Decision: codex.DecisionDecline}, nil
}
