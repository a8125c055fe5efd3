package codextest_test

// Tests of the fake's process lifecycle and odd turns: resume after kill, failures, compaction, stalls.

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

func TestFakeResumeAfterKill(t *testing.T) {
	f := codextest.NewFake(t)
	first := start(t, f, codex.Options{Process: codex.ProcessOptions{Binary: "one"}})
	threadID := startThread(t, first)
	runTurn(t, first, threadID, "before").status(t, codex.TurnCompleted)
	f.Kill()
	<-first.Done()

	second := start(t, f, codex.Options{Process: codex.ProcessOptions{Binary: "two"}})
	// A new process knows the thread only once resumed.
	_, _, err := second.StartTurn(testContext(t), codex.TurnStartParams{
		ThreadID: threadID, Input: []codex.UserInput{codex.TextInput("too early")},
	})
	wantRPCError(t, err, "thread not found")

	res, err := second.ResumeThread(testContext(t), codex.ThreadResumeParams{ThreadID: threadID, ExcludeTurns: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Thread.ID != threadID || res.Cwd != "/project" {
		t.Fatalf("resumed %+v", res)
	}
	r := runTurn(t, second, threadID, "after")
	r.status(t, codex.TurnCompleted)
	if r.turn.ID != "turn-2" {
		t.Errorf("turn after restart %s, want turn-2 (turn ids never repeat)", r.turn.ID)
	}

	th := f.Threads()[threadID]
	if len(th.Resumes) != 1 || !th.Resumes[0].ExcludeTurns || !slices.Equal(th.Turns, []string{"turn-1", "turn-2"}) {
		t.Fatalf("thread %+v", th)
	}
	if starts := f.Starts(); len(starts) != 2 || starts[1].Process.Binary != "two" {
		t.Fatalf("starts %+v", starts)
	}
}

func TestFakeFailResume(t *testing.T) {
	f := codextest.NewFake(t)
	c := start(t, f, codex.Options{})
	threadID := startThread(t, c)

	f.FailResume(true)
	_, err := c.ResumeThread(testContext(t), codex.ThreadResumeParams{ThreadID: threadID})
	wantRPCError(t, err, "no rollout found for thread id "+threadID)
	f.FailResume(false)
	if _, err := c.ResumeThread(testContext(t), codex.ThreadResumeParams{ThreadID: threadID}); err != nil {
		t.Fatal(err)
	}
	_, err = c.ResumeThread(testContext(t), codex.ThreadResumeParams{ThreadID: "thread-404"})
	wantRPCError(t, err, "no rollout found for thread id thread-404")
}

func TestFakeKill(t *testing.T) {
	f := codextest.NewFake(t)
	handlerDone := make(chan struct{})
	f.OnTurn(func(ft *codextest.FakeTurn) {
		defer close(handlerDone)
		<-ft.Done()
		ft.AgentMessage("too late") // does nothing on a dead connection
	})
	c := start(t, f, codex.Options{})
	turn, sub := startTurn(t, c, startThread(t, c), "hang")
	f.Kill("thread 'main' panicked at core/src/codex.rs:1:1:", "boom")

	select {
	case <-c.Done():
	case <-time.After(timeout):
		t.Fatal("the client did not see the kill")
	}
	<-handlerDone
	r := collect(t, turn, sub)
	if r.done != nil || r.err == nil {
		t.Fatalf("killed turn: completed %+v, err %v", r.done, r.err)
	}
	if tail := c.StderrTail(10); tail != "thread 'main' panicked at core/src/codex.rs:1:1:\nboom" {
		t.Errorf("stderr tail %q", tail)
	}
	if !errors.Is(c.Err(), codex.ErrClosed) {
		t.Errorf("client error %v", c.Err())
	}
	if _, err := c.StartThread(testContext(t), codex.ThreadStartParams{}); err == nil {
		t.Error("a call after the kill succeeded")
	}
	f.Kill() // nothing left to kill
}

func TestFakeUnknownMethod(t *testing.T) {
	f := codextest.NewFake(t)
	c := start(t, f, codex.Options{})
	err := c.Call(testContext(t), "thread/bogus", map[string]any{"x": 1}, nil)
	wantRPCError(t, err, "thread/bogus")
	m, err := f.WaitRequest(testContext(t), "thread/bogus", 1)
	if err != nil || string(m.Params) != `{"x":1}` {
		t.Fatalf("recorded %+v, %v", m, err)
	}
}

func TestFakeCompaction(t *testing.T) {
	f := codextest.NewFake(t)
	c := start(t, f, codex.Options{})
	threadID := startThread(t, c)

	compact := func() run {
		t.Helper()
		sub := c.Subscribe(threadID)
		defer sub.Close()
		if err := c.CompactThread(testContext(t), threadID); err != nil {
			t.Fatal(err)
		}
		var r run
		deadline := time.After(timeout)
		for r.done == nil {
			select {
			case ev := <-sub.Events():
				r.events = append(r.events, ev)
				r.done, _ = ev.Value.(*codex.TurnCompletedParams)
			case <-deadline:
				t.Fatalf("compaction did not finish: %v", methods(r.events))
			}
		}
		return r
	}

	r := compact()
	r.status(t, codex.TurnCompleted)
	if len(r.items(codex.NotifyItemStarted, codex.ItemContextCompaction)) != 1 ||
		len(r.items(codex.NotifyItemCompleted, codex.ItemContextCompaction)) != 1 {
		t.Fatalf("compaction events %v", methods(r.events))
	}

	f.OnCompact(func(ft *codextest.FakeTurn) {
		if !ft.Compaction {
			t.Error("a compaction turn not marked so")
		}
		id := ft.StartItem(map[string]any{"type": codex.ItemContextCompaction})
		u := codex.TokenUsage{TotalTokens: 7000}
		ft.Usage(u, u, 95000)
		ft.CompleteItem(map[string]any{"type": codex.ItemContextCompaction, "id": id})
		ft.Complete(codex.TurnFailed, &codex.TurnError{Message: "compaction failed"})
	})
	r = compact()
	r.status(t, codex.TurnFailed)
	if r.done.Turn.Error.Message != "compaction failed" {
		t.Fatalf("failed compaction %+v", r.done.Turn)
	}
	if th := f.Threads()[threadID]; len(th.Turns) != 2 {
		t.Fatalf("thread turns %v", th.Turns)
	}
}

func TestFakeFailedTurn(t *testing.T) {
	f := codextest.NewFake(t)
	f.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Complete(codex.TurnFailed, &codex.TurnError{
			Message:        "You've hit your usage limit.",
			CodexErrorInfo: codex.CodexErrorInfo{Raw: json.RawMessage(`"usageLimitExceeded"`)},
		})
	})
	c := start(t, f, codex.Options{})
	r := runTurn(t, c, startThread(t, c), "spend")
	r.status(t, codex.TurnFailed)
	if kind := r.done.Turn.Error.CodexErrorInfo.Kind(); kind != codex.ErrorUsageLimitExceeded {
		t.Errorf("turn error kind %q", kind)
	}
	var notified bool
	for _, ev := range r.events {
		if v, ok := ev.Value.(*codex.ErrorParams); ok && !v.WillRetry && v.TurnID == r.turn.ID &&
			v.Error.CodexErrorInfo.Kind() == codex.ErrorUsageLimitExceeded {
			notified = true
		}
	}
	if !notified {
		t.Errorf("no error notification: %v", methods(r.events))
	}
}

func TestFakeTurnHelpers(t *testing.T) {
	f := codextest.NewFake(t)
	answers := make(chan string, 1)
	f.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Reasoning("thinking about it")
		ft.Exec("false", 1, "nope\n")
		raw, rpcErr, err := ft.Request("item/tool/call", map[string]any{"callId": "call_x", "tool": "lsp", "arguments": map[string]any{}})
		switch {
		case err != nil:
			answers <- err.Error()
		case rpcErr != nil:
			answers <- rpcErr.Message
		default:
			answers <- string(raw)
		}
		ft.Notify(codex.NotifyTurnDiffUpdated, map[string]any{"diff": "diff --git a/x b/x"})
		// Returning completes the turn.
	})
	c := start(t, f, codex.Options{OnRequest: func(ctx context.Context, req *codex.Request) (any, error) {
		return map[string]any{"success": true}, nil
	}})
	r := runTurn(t, c, startThread(t, c), "helpers")
	r.status(t, codex.TurnCompleted)
	if got := r.deltas(codex.NotifyReasoningSummaryDelta); got != "thinking about it" {
		t.Errorf("reasoning deltas %q", got)
	}
	if rs := r.items(codex.NotifyItemCompleted, codex.ItemReasoning); len(rs) != 1 || !slices.Equal(rs[0].Summary, []string{"thinking about it"}) {
		t.Errorf("reasoning %+v", rs)
	}
	cmds := r.items(codex.NotifyItemCompleted, codex.ItemCommandExecution)
	if len(cmds) != 1 || cmds[0].Status != codex.ItemFailed || cmds[0].ExitCode == nil || *cmds[0].ExitCode != 1 ||
		cmds[0].AggregatedOutput == nil || *cmds[0].AggregatedOutput != "nope\n" || cmds[0].Cwd != "/project" {
		t.Errorf("commands %+v", cmds)
	}
	if got := <-answers; got != `{"success":true}` {
		t.Errorf("tool call answered %s", got)
	}
	var diff *codex.TurnDiffParams
	for _, ev := range r.events {
		if v, ok := ev.Value.(*codex.TurnDiffParams); ok {
			diff = v
		}
	}
	if diff == nil || diff.TurnID != r.turn.ID || diff.ThreadID == "" {
		t.Errorf("diff %+v", diff)
	}
	if len(r.done.Turn.Items) != 0 {
		t.Errorf("a turn without agent message has summary items %+v", r.done.Turn.Items)
	}
}

func TestFakeStall(t *testing.T) {
	f := codextest.NewFake(t)
	c := start(t, f, codex.Options{})
	threadID := startThread(t, c)
	f.Stall()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, _, err := c.StartTurn(ctx, codex.TurnStartParams{ThreadID: threadID, Input: []codex.UserInput{codex.TextInput("hello?")}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a stalled turn/start: %v", err)
	}
	if _, err := f.WaitRequest(testContext(t), codex.MethodTurnStart, 1); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()
	if _, err := f.WaitRequest(short, codex.MethodTurnStart, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting for a request never sent: %v", err)
	}

	// With no process running, the next one stalls from the start.
	f.Kill()
	<-c.Done()
	f.Stall()
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := f.Start(ctx, codex.Options{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a stalled start: %v", err)
	}
	// The stall was for that process only.
	c = start(t, f, codex.Options{})
	if _, err := c.ResumeThread(testContext(t), codex.ThreadResumeParams{ThreadID: threadID}); err != nil {
		t.Fatal(err)
	}
}
