package acp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
)

// streamEveryKind plays a turn that sends an update of each kind a prompt streams.
func streamEveryKind(t *acptest.Turn) string {
	t.Thought("Let me look")
	t.Message("Reading ")
	t.ToolCall(acp.ToolCall{
		ToolCallID: "call-1", Title: "Edit main.go", Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusPending,
		Locations: []acp.ToolCallLocation{{Path: "/w/main.go", Line: 12}},
		Content:   []acp.ToolCallContent{{Diff: &acp.Diff{Path: "/w/main.go", OldText: "a\n", NewText: "b\n"}}},
		RawInput:  json.RawMessage(`{"path":"/w/main.go"}`),
	})
	t.ToolCallUpdate(acp.ToolCallUpdate{
		ToolCallID: "call-1", Status: acp.ToolCallStatusCompleted,
		Content: []acp.ToolCallContent{{Content: &acp.Content{Content: acp.TextBlock("done")}}},
	})
	t.Plan(acp.PlanEntry{Content: "fix it", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusInProgress})
	t.Usage(1200, 200000)
	t.Message("the file.")
	return acp.StopReasonEndTurn
}

// TestPromptStreamsEveryKind: a prompt's updates reach the Handler decoded, in the order the agent
// sent them, and all of them before Prompt returns its stop reason.
func TestPromptStreamsEveryKind(t *testing.T) {
	rec := &recorder{}
	agent, client := connect(t, acptest.Config{}, rec)
	agent.OnPrompt(streamEveryKind)
	session := newSession(t, client)

	res, err := client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("fix main.go")})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != acp.StopReasonEndTurn {
		t.Errorf("stop reason %q", res.StopReason)
	}
	want := []string{"agent_thought_chunk", "agent_message_chunk", "tool_call", "tool_call_update", "plan", "usage_update", "agent_message_chunk"}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Fatalf("updates %q, want %q", got, want)
	}
	u := rec.received()
	for _, n := range u {
		if n.SessionID != session {
			t.Errorf("an update of session %q", n.SessionID)
		}
	}
	if text(u[0].Update.ContentChunk.Content) != "Let me look" || text(u[1].Update.ContentChunk.Content)+text(u[6].Update.ContentChunk.Content) != "Reading the file." {
		t.Errorf("chunks %+v %+v", u[0].Update.ContentChunk, u[1].Update.ContentChunk)
	}
	call := u[2].Update.ToolCall
	if call.ToolCallID != "call-1" || call.Title != "Edit main.go" || call.Kind != acp.ToolKindEdit || call.Status != acp.ToolCallStatusPending ||
		len(call.Locations) != 1 || call.Locations[0].Line != 12 || string(call.RawInput) != `{"path":"/w/main.go"}` {
		t.Errorf("tool call %+v", call)
	}
	if len(call.Content) != 1 || call.Content[0].Kind != acp.ToolCallContentKindDiff || call.Content[0].Diff.OldText != "a\n" || call.Content[0].Diff.NewText != "b\n" {
		t.Errorf("tool call content %+v", call.Content)
	}
	update := u[3].Update.ToolCallUpdate
	if update.Status != acp.ToolCallStatusCompleted || update.Title != "" || len(update.Content) != 1 || text(update.Content[0].Content.Content) != "done" {
		t.Errorf("tool call update %+v", update)
	}
	if p := u[4].Update.Plan; len(p.Entries) != 1 || p.Entries[0].Status != acp.PlanEntryStatusInProgress {
		t.Errorf("plan %+v", p)
	}
	if usage := u[5].Update.UsageUpdate; usage.Used != 1200 || usage.Size != 200000 {
		t.Errorf("usage %+v", usage)
	}
	if got := agent.Sessions()[session].History; len(got) != 1+len(want) || got[0].Kind != acp.SessionUpdateKindUserMessageChunk {
		t.Errorf("the agent's history of the session: %d updates", len(got))
	}
}

// TestAnswerWaitsForItsUpdates: when the agent has answered a prompt (or a load) but the Handler is
// still busy with the updates that came before the answer, Prompt (LoadSession) waits for them.
func TestAnswerWaitsForItsUpdates(t *testing.T) {
	for _, method := range []string{acp.MethodSessionPrompt, acp.MethodSessionLoad} {
		t.Run(method, func(t *testing.T) {
			release := make(chan struct{})
			rec := &recorder{onUpdate: func(ctx context.Context, n *acp.SessionNotification) {
				select {
				case <-release:
				case <-ctx.Done():
				}
			}}
			agent, client := connect(t, acptest.Config{LoadSession: true}, rec)
			answered := make(chan struct{})
			agent.OnPrompt(func(t *acptest.Turn) string {
				defer close(answered)
				return streamEveryKind(t)
			})
			cwd := t.TempDir()
			var history []acp.SessionUpdate
			for range 7 {
				history = append(history, acp.SessionUpdate{Kind: acp.SessionUpdateKindAgentMessageChunk, ContentChunk: &acp.ContentChunk{Content: acp.TextBlock("x")}})
			}
			old := agent.AddSession(cwd, "old", history...)
			session := newSession(t, client)

			returned := make(chan error, 1)
			go func() {
				var err error
				if method == acp.MethodSessionPrompt {
					_, err = client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("go")})
				} else {
					_, err = client.LoadSession(testContext(t), old, cwd, nil)
				}
				returned <- err
			}()
			if method == acp.MethodSessionPrompt {
				recv(t, answered)
			} else if _, err := agent.WaitReceived(testContext(t), method, 1); err != nil {
				t.Fatal(err)
			}
			// A request answered after the agent's answer: once it returns, the client has read
			// that answer too.
			newSession(t, client)
			select {
			case err := <-returned:
				t.Fatalf("%s returned (%v) with %d of its 7 updates delivered", method, err, len(rec.kinds()))
			case <-time.After(50 * time.Millisecond): // no wait for an event: a bound on what must not come
			}
			close(release)
			if err := recv(t, returned); err != nil {
				t.Fatal(err)
			}
			if n := len(rec.kinds()); n != 7 {
				t.Errorf("%s returned with %d of its 7 updates delivered", method, n)
			}
		})
	}
}

// TestCancel: Cancel sends session/cancel; the agent stops and answers "cancelled".
func TestCancel(t *testing.T) {
	agent, client := connect(t, acptest.Config{}, &recorder{})
	started := make(chan struct{})
	agent.OnPrompt(func(t *acptest.Turn) string {
		t.Message("working")
		close(started)
		t.WaitCancel()
		return t.StopReason(acp.StopReasonEndTurn)
	})
	session := newSession(t, client)
	returned := make(chan *acp.PromptResponse, 1)
	go func() {
		res, err := client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("go")})
		if err != nil {
			t.Error(err)
		}
		returned <- res
	}()
	recv(t, started)
	if err := client.Cancel(session); err != nil {
		t.Fatal(err)
	}
	if res := recv(t, returned); res == nil || res.StopReason != acp.StopReasonCancelled {
		t.Errorf("prompt answered %+v", res)
	}
	m, err := agent.WaitReceived(testContext(t), acp.MethodSessionCancel, 1)
	if err != nil || !jsonEqual(decodeMap(t, m.Params), map[string]any{"sessionId": session}) {
		t.Errorf("session/cancel: %s, %v", m.Params, err)
	}
}

// TestAgentEndsMidPrompt: an agent that dies in the middle of a prompt makes Prompt fail with an
// error that says it ended, and what it said last, once the updates it sent before have been
// delivered.
func TestAgentEndsMidPrompt(t *testing.T) {
	release := make(chan struct{})
	rec := &recorder{onUpdate: func(ctx context.Context, n *acp.SessionNotification) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	}}
	agent, client := connect(t, acptest.Config{}, rec)
	agent.OnPrompt(scripts["crash"].OnPrompt)
	session := newSession(t, client)

	returned := make(chan error, 1)
	go func() {
		_, err := client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("go")})
		returned <- err
	}()
	recv(t, client.Done())
	select {
	case err := <-returned:
		t.Fatalf("Prompt returned (%v) before the update the agent sent first was delivered", err)
	case <-time.After(50 * time.Millisecond): // no wait for an event: a bound on what must not come
	}
	close(release)
	err := recv(t, returned)
	if err == nil {
		t.Fatal("the prompt succeeded")
	}
	for _, want := range []string{"session/prompt", "fake-agent closed its output", "its last output:\nerror: the model went away\nfatal: giving up"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if client.Err() == nil || !strings.Contains(client.StderrTail(5), "fatal: giving up") {
		t.Errorf("Err %v, tail %q", client.Err(), client.StderrTail(5))
	}
	if got := rec.kinds(); !slices.Equal(got, []string{"agent_message_chunk"}) {
		t.Errorf("updates before the end: %q", got)
	}
}

// TestOversizedMessageDropped: a message longer than the limit is dropped, as codex's are; the
// rest of the prompt goes on.
func TestOversizedMessageDropped(t *testing.T) {
	rec := &recorder{}
	agent := acptest.NewAgent(t, acptest.Config{})
	client, err := agent.Connect(testContext(t), acp.Options{Handler: rec, MaxLine: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	agent.OnPrompt(func(t *acptest.Turn) string {
		t.Message(strings.Repeat("x", 8<<10))
		t.Message("small")
		return acp.StopReasonEndTurn
	})
	res, err := client.Prompt(testContext(t), newSession(t, client), []acp.ContentBlock{acp.TextBlock("go")})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	if u := rec.received(); len(u) != 1 || text(u[0].Update.ContentChunk.Content) != "small" {
		t.Errorf("delivered %d updates", len(u))
	}
}
