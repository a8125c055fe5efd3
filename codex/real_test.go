package codex_test

// These tests run the real pinned codex binary (make tools) against the fake Responses API of
// internal/fakemodel on loopback, each with its own throwaway HOME and CODEX_HOME.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// realSession is one real codex with one thread.
type realSession struct {
	env      *codextest.Real
	client   *codex.Client
	threadID string

	mu        sync.Mutex
	decide    func(method string, params any) any // answers server requests; nil declines
	requested []string                            // methods of the server requests seen
}

func startReal(t *testing.T, env *codextest.Real) *realSession {
	t.Helper()
	if env == nil {
		env = codextest.NewReal(t)
	}
	s := &realSession{env: env}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	start := time.Now()
	client, err := codex.Start(ctx, codex.Options{
		Process:    env.ProcessOptions(),
		ClientInfo: codex.ClientInfo{Name: "hermes-lsp-test", Version: "0"},
		OnRequest:  s.answer,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("spawn to initialize: %v", time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() { _ = client.Close() })
	s.client = client
	return s
}

func (s *realSession) answer(ctx context.Context, req *codex.Request) (any, error) {
	params, err := codex.DecodeRequest(req)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.requested = append(s.requested, req.Method)
	decide := s.decide
	s.mu.Unlock()
	if decide == nil {
		return codex.ApprovalResponse{Decision: codex.DecisionDecline}, nil
	}
	return decide(req.Method, params), nil
}

func (s *realSession) startThread(t *testing.T) {
	t.Helper()
	res, err := s.client.StartThread(t.Context(), codex.ThreadStartParams{
		Cwd:            s.env.Work,
		ApprovalPolicy: codex.ApprovalUntrusted,
		Sandbox:        codex.SandboxWorkspaceWrite,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Thread.ID == "" || res.Cwd != s.env.Work {
		t.Fatalf("thread/start: id %q cwd %q, want cwd %s", res.Thread.ID, res.Cwd, s.env.Work)
	}
	s.threadID = res.Thread.ID
}

// turnRun is what one turn produced.
type turnRun struct {
	id     string
	events []codex.Event
	done   *codex.TurnCompletedParams
	err    error // why the subscription ended early
	took   time.Duration
}

func (r *turnRun) items(method, itemType string) []codex.Item {
	var out []codex.Item
	for _, ev := range r.events {
		if v, ok := ev.Value.(*codex.ItemParams); ok && ev.Method == method && v.Item.Type == itemType {
			out = append(out, v.Item)
		}
	}
	return out
}

func (r *turnRun) deltas(method string) string {
	var b strings.Builder
	for _, ev := range r.events {
		if v, ok := ev.Value.(*codex.DeltaParams); ok && ev.Method == method {
			b.WriteString(v.Delta)
		}
	}
	return b.String()
}

// startTurn starts a turn and returns a function that waits for its end.
func (s *realSession) startTurn(t *testing.T, prompt string) (string, func() *turnRun) {
	t.Helper()
	start := time.Now()
	turn, sub, err := s.client.StartTurn(t.Context(), codex.TurnStartParams{
		ThreadID: s.threadID,
		Input:    []codex.UserInput{codex.TextInput(prompt)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return turn.ID, func() *turnRun {
		t.Helper()
		defer sub.Close()
		run := &turnRun{id: turn.ID}
		timeout := time.NewTimer(60 * time.Second)
		defer timeout.Stop()
		for {
			select {
			case ev, ok := <-sub.Events():
				if !ok {
					run.err = sub.Err()
					run.took = time.Since(start)
					return run
				}
				run.events = append(run.events, ev)
				if v, ok := ev.Value.(*codex.TurnCompletedParams); ok {
					run.done = v
				}
			case <-timeout.C:
				t.Fatalf("turn %s did not end; events so far: %d", turn.ID, len(run.events))
			}
		}
	}
}

func (s *realSession) runTurn(t *testing.T, prompt string) *turnRun {
	t.Helper()
	_, wait := s.startTurn(t, prompt)
	return wait()
}

func wantStatus(t *testing.T, run *turnRun, status string) {
	t.Helper()
	if run.done == nil {
		t.Fatalf("turn %s ended without turn/completed (%v)", run.id, run.err)
	}
	if run.done.Turn.Status != status {
		t.Fatalf("turn status %s (error %+v), want %s", run.done.Turn.Status, run.done.Turn.Error, status)
	}
}

func TestRealPlainTurn(t *testing.T) {
	t.Parallel()
	s := startReal(t, nil)
	s.env.Model.Enqueue(fakemodel.MessageChunks("Hello ", "from ", "the fake.").WithUsage(fakemodel.Usage{
		InputTokens: 80, CachedTokens: 20, OutputTokens: 25, ReasoningTokens: 5, TotalTokens: 130,
	}))
	s.startThread(t)
	run := s.runTurn(t, "say hello")
	t.Logf("plain turn: %v", run.took.Round(time.Millisecond))
	wantStatus(t, run, codex.TurnCompleted)

	if got := run.deltas(codex.NotifyAgentMessageDelta); got != "Hello from the fake." {
		t.Errorf("streamed answer %q", got)
	}
	msgs := run.items(codex.NotifyItemCompleted, codex.ItemAgentMessage)
	if len(msgs) != 1 || msgs[0].Text != "Hello from the fake." {
		t.Errorf("completed agent messages: %+v", msgs)
	}
	var usage *codex.TokenUsageParams
	for _, ev := range run.events {
		if v, ok := ev.Value.(*codex.TokenUsageParams); ok {
			usage = v
		}
	}
	if usage == nil {
		t.Fatal("no thread/tokenUsage/updated")
	}
	want := codex.TokenUsage{InputTokens: 80, CachedInputTokens: 20, OutputTokens: 25, ReasoningOutputTokens: 5, TotalTokens: 130}
	if usage.TokenUsage.Last != want || usage.TokenUsage.ModelContextWindow == 0 {
		t.Errorf("usage %+v, want last %+v and a context window", usage.TokenUsage, want)
	}
	reqs := s.env.Model.Requests()
	if len(reqs) != 1 || reqs[0].UserText() != "say hello" {
		t.Errorf("model saw %d requests; last user text %q", len(reqs), reqs[len(reqs)-1].UserText())
	}
}

func TestRealExecApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		decision   string
		turnStatus string
		itemStatus string
	}{
		{codex.DecisionAccept, codex.TurnCompleted, codex.ItemCompleted},
		{codex.DecisionDecline, codex.TurnCompleted, codex.ItemDeclined},
		{codex.DecisionCancel, codex.TurnInterrupted, ""},
	}
	for _, tt := range tests {
		t.Run(tt.decision, func(t *testing.T) {
			t.Parallel()
			s := startReal(t, nil)
			s.env.Model.Enqueue(fakemodel.Exec("echo hello-from-codex > made_by_shell.txt && cat made_by_shell.txt"))
			var asked *codex.CommandApprovalParams
			s.decide = func(method string, params any) any {
				if p, ok := params.(*codex.CommandApprovalParams); ok {
					asked = p
				}
				return codex.ApprovalResponse{Decision: tt.decision}
			}
			s.startThread(t)
			run := s.runTurn(t, "run a command")
			wantStatus(t, run, tt.turnStatus)

			if asked == nil || !strings.Contains(asked.Command, "hello-from-codex") || asked.Cwd != s.env.Work {
				t.Fatalf("approval request: %+v", asked)
			}
			if asked.TurnID != run.id || asked.ThreadID != s.threadID || asked.ItemID == "" {
				t.Errorf("approval names thread %s turn %s item %q", asked.ThreadID, asked.TurnID, asked.ItemID)
			}
			_, statErr := os.Stat(filepath.Join(s.env.Work, "made_by_shell.txt"))
			if tt.decision == codex.DecisionAccept {
				items := run.items(codex.NotifyItemCompleted, codex.ItemCommandExecution)
				if len(items) != 1 || items[0].Status != tt.itemStatus || items[0].AggregatedOutput == nil ||
					!strings.Contains(*items[0].AggregatedOutput, "hello-from-codex") {
					t.Fatalf("completed command: %+v", items)
				}
				if statErr != nil {
					t.Errorf("the command did not run: %v", statErr)
				}
				return
			}
			if statErr == nil {
				t.Errorf("a %s command ran anyway", tt.decision)
			}
			if tt.itemStatus != "" {
				items := run.items(codex.NotifyItemCompleted, codex.ItemCommandExecution)
				if len(items) != 1 || items[0].Status != tt.itemStatus {
					t.Fatalf("completed command items: %+v", items)
				}
			}
		})
	}
}

func TestRealPatchApproval(t *testing.T) {
	t.Parallel()
	s := startReal(t, nil)
	s.env.Model.Enqueue(fakemodel.Patch(fakemodel.AddFilePatch("hello.txt", "hello from fake model\n")))
	var asked *codex.FileChangeApprovalParams
	s.decide = func(method string, params any) any {
		asked, _ = params.(*codex.FileChangeApprovalParams)
		return codex.ApprovalResponse{Decision: codex.DecisionAccept}
	}
	s.startThread(t)
	run := s.runTurn(t, "add a file")
	wantStatus(t, run, codex.TurnCompleted)
	if asked == nil || asked.ItemID == "" {
		t.Fatalf("file change approval: %+v (requests %v)", asked, s.requested)
	}
	started := run.items(codex.NotifyItemStarted, codex.ItemFileChange)
	if len(started) != 1 || started[0].ID != asked.ItemID || len(started[0].Changes) != 1 ||
		started[0].Changes[0].Kind.Type != "add" || !strings.HasSuffix(started[0].Changes[0].Path, "hello.txt") {
		t.Fatalf("fileChange item for the approval: %+v", started)
	}
	data, err := os.ReadFile(filepath.Join(s.env.Work, "hello.txt"))
	if err != nil || string(data) != "hello from fake model\n" {
		t.Fatalf("hello.txt: %q, %v", data, err)
	}
}

func TestRealInterrupt(t *testing.T) {
	t.Parallel()
	s := startReal(t, nil)
	s.env.Model.Enqueue(fakemodel.Hang())
	s.startThread(t)
	turnID, wait := s.startTurn(t, "think forever")
	if err := s.env.Model.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	// Input sent while the turn runs steers it: same turn.
	steered, err := s.client.SteerTurn(t.Context(), codex.TurnSteerParams{
		ThreadID: s.threadID, ExpectedTurnID: turnID, Input: []codex.UserInput{codex.TextInput("and hurry")},
	})
	if err != nil || steered != turnID {
		t.Fatalf("steer: turn %q, %v; want %s", steered, err, turnID)
	}
	if err := s.client.InterruptTurn(t.Context(), s.threadID, turnID); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, wait(), codex.TurnInterrupted)

	// The interrupted turn is over: interrupting it again is an error codex reports, typed; a codex
	// with the known problem never answers, and the interrupt's own timeout says so.
	err = s.client.InterruptTurn(t.Context(), s.threadID, turnID)
	if s.env.Compat.Has(codex.ProblemInterruptUnanswered) {
		if !errors.Is(err, codex.ErrInterruptUnanswered) {
			t.Fatalf("second interrupt on codex %s: %v, want %v", s.env.Compat.Version, err, codex.ErrInterruptUnanswered)
		}
		return
	}
	var rpcErr *codex.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != codex.CodeInvalidRequest {
		t.Fatalf("second interrupt: %v", err)
	}
}

func TestRealUsageLimit(t *testing.T) {
	t.Parallel()
	s := startReal(t, nil)
	s.env.Model.Enqueue(fakemodel.UsageLimit())
	s.startThread(t)
	run := s.runTurn(t, "spend")
	wantStatus(t, run, codex.TurnFailed)
	if kind := run.done.Turn.Error.CodexErrorInfo.Kind(); kind != codex.ErrorUsageLimitExceeded {
		t.Fatalf("failed turn kind %q, want %s", kind, codex.ErrorUsageLimitExceeded)
	}
	var notified bool
	for _, ev := range run.events {
		if v, ok := ev.Value.(*codex.ErrorParams); ok && !v.WillRetry && v.Error.CodexErrorInfo.Kind() == codex.ErrorUsageLimitExceeded {
			notified = true
		}
	}
	if !notified {
		t.Error("no error notification with usageLimitExceeded")
	}
}

func TestRealResumeAfterRestart(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	first := startReal(t, env)
	first.startThread(t)
	wantStatus(t, first.runTurn(t, "first turn before restart"), codex.TurnCompleted)
	if err := proctest.Kill(first.client.Pid()); err != nil {
		t.Fatal(err)
	}
	<-first.client.Done()

	second := startReal(t, env)
	res, err := second.client.ResumeThread(t.Context(), codex.ThreadResumeParams{
		ThreadID:       first.threadID,
		Cwd:            env.Work,
		ApprovalPolicy: codex.ApprovalUntrusted,
		Sandbox:        codex.SandboxWorkspaceWrite,
		ExcludeTurns:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Thread.ID != first.threadID {
		t.Fatalf("resumed thread %s, want %s", res.Thread.ID, first.threadID)
	}
	second.threadID = res.Thread.ID
	wantStatus(t, second.runTurn(t, "second turn after restart"), codex.TurnCompleted)

	// The model saw the first turn again: the thread's history survived the restart.
	reqs := env.Model.Requests()
	last := reqs[len(reqs)-1]
	var history []string
	for _, it := range last.Input {
		if it.Role == "user" {
			history = append(history, it.Text)
		}
	}
	joined := strings.Join(history, "\n")
	if !strings.Contains(joined, "first turn before restart") || !strings.Contains(joined, "second turn after restart") {
		t.Fatalf("resumed turn's input lacks the history: %q", joined)
	}
}

func TestRealKilledMidTurn(t *testing.T) {
	t.Parallel()
	s := startReal(t, nil)
	s.env.Model.Enqueue(fakemodel.Hang())
	s.startThread(t)
	_, wait := s.startTurn(t, "hang")
	if err := s.env.Model.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := proctest.Kill(s.client.Pid()); err != nil {
		t.Fatal(err)
	}
	run := wait()
	noticed := time.Since(killed)
	t.Logf("SIGKILL noticed after %v", noticed.Round(time.Millisecond))
	if noticed > time.Second {
		t.Errorf("the client took %v to report codex's death, want under 1s", noticed)
	}
	if run.done != nil {
		t.Fatal("a killed codex completed its turn")
	}
	var exit *codex.ExitError
	if !errors.As(run.err, &exit) || !strings.Contains(exit.Status, "killed") {
		t.Fatalf("turn ended with %v, want an *ExitError saying killed", run.err)
	}
	if !errors.As(s.client.Err(), &exit) {
		t.Fatalf("client error %v, want *ExitError", s.client.Err())
	}
	if tail := s.client.StderrTail(20); tail != exit.Stderr {
		t.Errorf("exit error carries stderr %q, client tail %q", exit.Stderr, tail)
	}
	_, err := s.client.StartThread(t.Context(), codex.ThreadStartParams{Cwd: s.env.Work})
	if !errors.As(err, &exit) {
		t.Fatalf("a call after the death: %v, want the exit error", err)
	}
}

func TestRealCompact(t *testing.T) {
	t.Parallel()
	s := startReal(t, nil)
	s.startThread(t)
	wantStatus(t, s.runTurn(t, "something to compact"), codex.TurnCompleted)

	sub := s.client.Subscribe(s.threadID)
	defer sub.Close()
	if err := s.client.CompactThread(t.Context(), s.threadID); err != nil {
		t.Fatal(err)
	}
	var compacted bool
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-sub.Events():
			if v, ok := ev.Value.(*codex.ItemParams); ok && v.Item.Type == codex.ItemContextCompaction && ev.Method == codex.NotifyItemCompleted {
				compacted = true
			}
			if v, ok := ev.Value.(*codex.TurnCompletedParams); ok {
				if !compacted || v.Turn.Status != codex.TurnCompleted {
					t.Fatalf("compaction turn ended %s without a contextCompaction item (log %v)", v.Turn.Status, s.env.Model.Log())
				}
				return
			}
		case <-timeout:
			t.Fatalf("compaction did not finish (model log %v)", s.env.Model.Log())
		}
	}
}
