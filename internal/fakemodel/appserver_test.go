package fakemodel_test

// Tests of the fake model driving the real codex app-server.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// startAppServer starts `codex app-server` against env's fake model, closed at the end of the test,
// and a thread in env.Work with no approvals and no sandbox.
func startAppServer(t *testing.T, env *codextest.Real) (client *codex.Client, threadID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), codexTimeout)
	defer cancel()
	client, err := codex.Start(ctx, codex.Options{
		Process:    env.ProcessOptions(),
		ClientInfo: codex.ClientInfo{Name: "fakemodel-test", Version: "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Close()
		if t.Failed() {
			t.Logf("codex app-server stderr:\n%s\nmodel log: %q", client.StderrTail(50), env.Model.Log())
		}
	})
	res, err := client.StartThread(ctx, codex.ThreadStartParams{
		Cwd:            env.Work,
		ApprovalPolicy: codex.ApprovalNever,
		Sandbox:        codex.SandboxFullAccess,
	})
	if err != nil {
		t.Fatal(err)
	}
	return client, res.Thread.ID
}

// turnRun is what one app-server turn produced.
type turnRun struct {
	events []codex.Event
	done   *codex.TurnCompletedParams // nil if the turn ended without turn/completed
	err    error                      // why it ended so
}

// startTurn starts a turn with a text prompt and returns its id and a function that waits for the
// turn's end and returns its events.
func startTurn(t *testing.T, client *codex.Client, threadID, prompt string) (string, func() turnRun) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), codexTimeout)
	t.Cleanup(cancel)
	turn, sub, err := client.StartTurn(ctx, codex.TurnStartParams{
		ThreadID: threadID,
		Input:    []codex.UserInput{codex.TextInput(prompt)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	return turn.ID, func() turnRun {
		t.Helper()
		var run turnRun
		for {
			select {
			case ev, ok := <-sub.Events():
				if !ok {
					run.err = sub.Err()
					return run
				}
				if ev.Err != nil {
					t.Errorf("malformed %s: %v", ev.Method, ev.Err)
				}
				run.events = append(run.events, ev)
				if v, ok := ev.Value.(*codex.TurnCompletedParams); ok {
					run.done = v
				}
			case <-ctx.Done():
				t.Fatalf("turn %s did not end: %v; %d events so far", turn.ID, ctx.Err(), len(run.events))
			}
		}
	}
}

// runTurn runs a turn to its turn/completed.
func runTurn(t *testing.T, client *codex.Client, threadID, prompt string) turnRun {
	t.Helper()
	_, wait := startTurn(t, client, threadID, prompt)
	return completed(t, wait())
}

// completed fails the test unless the turn ended with turn/completed.
func completed(t *testing.T, run turnRun) turnRun {
	t.Helper()
	if run.done == nil {
		t.Fatalf("the turn ended without turn/completed: %v", run.err)
	}
	return run
}

// params returns the decoded params of the notifications named method, of type *P.
func params[P any](run turnRun, method string) []*P {
	var out []*P
	for _, ev := range run.events {
		if v, ok := ev.Value.(*P); ok && ev.Method == method {
			out = append(out, v)
		}
	}
	return out
}

// TestCodexAppServer drives one app-server thread through a streamed message with reasoning, a
// usage limit, a failed stream, and a hang interrupted by the client.
func TestCodexAppServer(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	srv := env.Model
	client, thread := startAppServer(t, env)

	t.Run("message", func(t *testing.T) {
		srv.Enqueue(fakemodel.MessageChunks("Hello ", "from ", "chunks.").WithReasoning("**Thinking** about it"))
		run := runTurn(t, client, thread, "hi")
		var deltas []string
		for _, p := range params[codex.DeltaParams](run, codex.NotifyAgentMessageDelta) {
			deltas = append(deltas, p.Delta)
		}
		if !slices.Equal(deltas, []string{"Hello ", "from ", "chunks."}) {
			t.Errorf("deltas %q", deltas)
		}
		var reasoning, agent []codex.Item
		for _, p := range params[codex.ItemParams](run, codex.NotifyItemCompleted) {
			switch p.Item.Type {
			case codex.ItemReasoning:
				reasoning = append(reasoning, p.Item)
			case codex.ItemAgentMessage:
				agent = append(agent, p.Item)
			}
		}
		if len(reasoning) != 1 || len(agent) != 1 || agent[0].Text != "Hello from chunks." {
			t.Fatalf("reasoning items %+v, agent messages %+v", reasoning, agent)
		}
		if s := reasoning[0].Summary; !slices.Equal(s, []string{"**Thinking** about it"}) {
			t.Errorf("reasoning summary %q", s)
		}
		usage := params[codex.TokenUsageParams](run, codex.NotifyTokenUsageUpdated)
		if len(usage) == 0 {
			t.Fatal("no thread/tokenUsage/updated")
		}
		want := codex.TokenUsage{InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 34, ReasoningOutputTokens: 7, TotalTokens: 1234}
		if last := usage[len(usage)-1].TokenUsage.Last; last != want {
			t.Errorf("tokenUsage.last %+v, want %+v", last, want)
		}
		if st := run.done.Turn.Status; st != codex.TurnCompleted {
			t.Errorf("turn status %s (error %+v)", st, run.done.Turn.Error)
		}
	})

	t.Run("usage limit", func(t *testing.T) {
		srv.Enqueue(fakemodel.UsageLimit())
		run := runTurn(t, client, thread, "hi")
		errs := params[codex.ErrorParams](run, codex.NotifyError)
		if len(errs) != 1 || errs[0].Error.CodexErrorInfo.Kind() != codex.ErrorUsageLimitExceeded {
			t.Errorf("error notifications %+v, want one %s", errs, codex.ErrorUsageLimitExceeded)
		}
		turn := run.done.Turn
		if turn.Status != codex.TurnFailed || turn.Error.CodexErrorInfo.Kind() != codex.ErrorUsageLimitExceeded {
			t.Errorf("turn/completed status %s error %+v, want failed with %s", turn.Status, turn.Error, codex.ErrorUsageLimitExceeded)
		}
	})

	t.Run("failed", func(t *testing.T) {
		srv.Enqueue(fakemodel.Failed("fake response.failed"))
		turn := runTurn(t, client, thread, "hi").done.Turn
		if turn.Status != codex.TurnFailed || !strings.Contains(turn.Error.Message, "fake response.failed") {
			t.Errorf("turn/completed status %s error %+v, want failed with the fake's message", turn.Status, turn.Error)
		}
	})

	t.Run("hang then interrupt", func(t *testing.T) {
		srv.Enqueue(fakemodel.Hang())
		n := len(srv.Requests())
		turnID, wait := startTurn(t, client, thread, "hi")
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := srv.WaitRequests(ctx, n+1); err != nil {
			t.Fatal(err)
		}
		if err := client.InterruptTurn(ctx, thread, turnID); err != nil {
			t.Fatal(err)
		}
		if st := completed(t, wait()).done.Turn.Status; st != codex.TurnInterrupted {
			t.Errorf("turn status %s, want %s", st, codex.TurnInterrupted)
		}
		fakemodel.WaitLog(t, srv, "hang ended: client went away")
	})
}

// TestCodexKilledWhileHanging checks that a hanging reply ends when codex dies.
func TestCodexKilledWhileHanging(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(fakemodel.Hang())
	client, thread := startAppServer(t, env)
	_, wait := startTurn(t, client, thread, "hi")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := env.Model.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := proctest.Kill(client.Pid()); err != nil {
		t.Fatal(err)
	}
	fakemodel.WaitLog(t, env.Model, "hang ended: client went away")
	if run := wait(); run.done != nil {
		t.Errorf("a killed codex completed its turn: %+v", run.done.Turn)
	}
}

// TestCodexConfigFile starts `codex app-server` with no -c option at all: the fake model reaches it
// only through CODEX_HOME/config.toml, as written by WriteCodexConfig (codextest.NewReal writes it),
// the way hermes-lsp's harnesses hand the fake to the codex it starts.
func TestCodexConfigFile(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	b, err := os.ReadFile(filepath.Join(env.CodexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `model_providers.fake.base_url="`+env.Model.BaseURL()+`"`) {
		t.Fatalf("config.toml does not name the fake model:\n%s", b)
	}
	env.Model.Enqueue(fakemodel.Message("Answered through config.toml."))

	opts := env.ProcessOptions()
	opts.Config = nil
	ctx, cancel := context.WithTimeout(t.Context(), codexTimeout)
	defer cancel()
	client, err := codex.Start(ctx, codex.Options{
		Process:    opts,
		ClientInfo: codex.ClientInfo{Name: "fakemodel-test", Version: "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Close()
		if t.Failed() {
			t.Logf("codex app-server stderr:\n%s\nmodel log: %q", client.StderrTail(50), env.Model.Log())
		}
	})
	res, err := client.StartThread(ctx, codex.ThreadStartParams{
		Cwd:            env.Work,
		ApprovalPolicy: codex.ApprovalNever,
		Sandbox:        codex.SandboxFullAccess,
	})
	if err != nil {
		t.Fatal(err)
	}
	run := runTurn(t, client, res.Thread.ID, "hi from the config file")
	if st := run.done.Turn.Status; st != codex.TurnCompleted {
		t.Fatalf("turn status %s (error %+v)", st, run.done.Turn.Error)
	}
	var agent []string
	for _, p := range params[codex.ItemParams](run, codex.NotifyItemCompleted) {
		if p.Item.Type == codex.ItemAgentMessage {
			agent = append(agent, p.Item.Text)
		}
	}
	if !slices.Equal(agent, []string{"Answered through config.toml."}) {
		t.Errorf("agent messages %q", agent)
	}
	reqs := env.Model.Requests()
	if len(reqs) != 1 || reqs[0].Model != fakemodel.DefaultModel || reqs[0].UserText() != "hi from the config file" {
		t.Fatalf("the fake got %d requests, want 1 for %s: %+v", len(reqs), fakemodel.DefaultModel, reqs)
	}
}
