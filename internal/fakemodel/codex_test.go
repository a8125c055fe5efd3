package fakemodel_test

// These tests run the real pinned codex binary against the fake, both as `codex exec --json` and as
// `codex app-server` through package codex (the way hermes-lsp runs it), in the throwaway folders of
// codextest.NewReal. Each run takes a second or two. They are in package fakemodel_test because
// codextest imports fakemodel.
//
// CODEX_HOME lives under t.TempDir(), that is under /tmp, so codex prints "WARNING: proceeding,
// even though we could not create PATH aliases: Refusing to create helper binaries under temporary
// dir". That only means no `apply_patch` helper on the PATH of the commands it runs; the
// apply_patch tool itself works, as TestCodexPatch shows.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
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

// codexTimeout bounds one codex run.
const codexTimeout = 60 * time.Second

// execEvent is one JSON line of `codex exec --json`, with the fields these tests read.
type execEvent struct {
	Type string `json:"type"`
	Item struct {
		Type             string `json:"type"`
		Text             string `json:"text"`
		AggregatedOutput string `json:"aggregated_output"`
	} `json:"item"`
	Usage execUsage `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// execUsage is the usage of turn.completed.
type execUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

// execResult is the outcome of one `codex exec --json`.
type execResult struct {
	events []execEvent // the JSON lines of stdout
	err    error       // from cmd.Run: non-nil when codex exits non-zero
}

// runExec runs `codex exec --json PROMPT` against env's fake model in env's folders, with no
// approvals and no sandbox, with the options and environment codex app-server gets from
// env.ProcessOptions.
func runExec(t *testing.T, env *codextest.Real, prompt string) execResult {
	t.Helper()
	opts := env.ProcessOptions()
	args := []string{"exec", "--json", "--color", "never", "--skip-git-repo-check", "--ephemeral",
		"--dangerously-bypass-approvals-and-sandbox", "-C", opts.Dir}
	for _, kv := range opts.Config {
		args = append(args, "-c", kv)
	}
	args = append(args, prompt)

	ctx, cancel := context.WithTimeout(t.Context(), codexTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, opts.Binary, args...)
	cmd.Dir = opts.Dir
	cmd.Env = append(append(os.Environ(), opts.Env...), "CODEX_HOME="+opts.Home)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("codex exec: %v, err %v", time.Since(start).Round(time.Millisecond), err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("codex exec stdout:\n%s\nstderr:\n%s\nmodel log: %q", stdout.String(), stderr.String(), env.Model.Log())
		}
	})
	res := execResult{err: err}
	for line := range strings.Lines(stdout.String()) {
		var e execEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("codex exec printed %q: %v", line, err)
		}
		res.events = append(res.events, e)
	}
	return res
}

// find returns the events of the given type, and for "item.completed" only items of itemType.
func (r execResult) find(typ, itemType string) []execEvent {
	var out []execEvent
	for _, e := range r.events {
		if e.Type == typ && (itemType == "" || e.Item.Type == itemType) {
			out = append(out, e)
		}
	}
	return out
}

// agentText returns the text of the last agent message.
func (r execResult) agentText(t *testing.T) string {
	t.Helper()
	msgs := r.find("item.completed", "agent_message")
	if len(msgs) == 0 {
		t.Fatal("codex printed no agent message")
	}
	return msgs[len(msgs)-1].Item.Text
}

// wantToolOutput checks that the model got two requests, the second ending with the output of
// call_1 (an input item of type typ) holding text, and returns the second request.
func wantToolOutput(t *testing.T, model *fakemodel.Server, typ, text string) fakemodel.Request {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last, _ := reqs[1].Last()
	if last.Type != typ || last.CallID != "call_1" || !strings.Contains(last.Output, text) {
		t.Errorf("second request ends with %+v, want the %s of call_1 holding %q", last, typ, text)
	}
	return reqs[1]
}

func TestCodexMessage(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	usage := fakemodel.Usage{InputTokens: 2000, CachedTokens: 1500, OutputTokens: 50, ReasoningTokens: 10, TotalTokens: 2050}
	env.Model.Enqueue(fakemodel.Message("Hello there from a scripted reply.").WithUsage(usage))

	res := runExec(t, env, "say hello")
	if res.err != nil {
		t.Fatalf("codex exec: %v", res.err)
	}
	if got, want := res.agentText(t), "Hello there from a scripted reply."; got != want {
		t.Errorf("agent message %q, want %q", got, want)
	}
	done := res.find("turn.completed", "")
	if len(done) != 1 {
		t.Fatalf("%d turn.completed events, want 1", len(done))
	}
	want := execUsage{InputTokens: 2000, CachedInputTokens: 1500, OutputTokens: 50, ReasoningOutputTokens: 10}
	if done[0].Usage != want {
		t.Errorf("usage %+v, want %+v", done[0].Usage, want)
	}

	reqs := env.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != fakemodel.DefaultModel || !r.Stream || r.UserText() != "say hello" {
		t.Errorf("request model %q stream %v user text %q", r.Model, r.Stream, r.UserText())
	}
	for _, tool := range []string{"exec_command", "apply_patch"} {
		if !r.HasTool(tool) {
			t.Errorf("request offers no %s tool: %q", tool, r.Tools)
		}
	}
	if got := r.Header.Get("Accept"); got != "text/event-stream" {
		t.Errorf("Accept %q", got)
	}
}

func TestCodexExecThenDefault(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(fakemodel.Exec("echo hi-from-tool"))

	res := runExec(t, env, "run something")
	if res.err != nil {
		t.Fatalf("codex exec: %v", res.err)
	}
	cmds := res.find("item.completed", "command_execution")
	if len(cmds) != 1 {
		t.Fatalf("%d command executions, want 1", len(cmds))
	}
	if got := cmds[0].Item.AggregatedOutput; got != "hi-from-tool\n" {
		t.Errorf("command output %q", got)
	}
	if text := res.agentText(t); !strings.HasPrefix(text, "Done. Tool said: ") || !strings.Contains(text, "hi-from-tool") {
		t.Errorf("agent message %q, want the default echo of the tool output", text)
	}

	second := wantToolOutput(t, env.Model, "function_call_output", "hi-from-tool")
	call := second.Input[len(second.Input)-2]
	if call.Type != "function_call" || call.Name != "exec_command" || call.Arguments != `{"cmd":"echo hi-from-tool"}` {
		t.Errorf("second request replays %+v, want the function_call", call)
	}
}

func TestCodexPatch(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(fakemodel.Patch(fakemodel.AddFilePatch("made.txt", "one\ntwo\n")))

	res := runExec(t, env, "write a file")
	if res.err != nil {
		t.Fatalf("codex exec: %v", res.err)
	}
	b, err := os.ReadFile(filepath.Join(env.Work, "made.txt"))
	if err != nil {
		t.Fatalf("the patch made no file: %v", err)
	}
	if string(b) != "one\ntwo\n" {
		t.Errorf("made.txt holds %q", b)
	}
	if n := len(res.find("item.completed", "file_change")); n != 1 {
		t.Errorf("%d file changes, want 1", n)
	}
	wantToolOutput(t, env.Model, "custom_tool_call_output", "A made.txt")
}

func TestCodexUsageLimitExec(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(fakemodel.UsageLimit())

	res := runExec(t, env, "hi")
	var exit *exec.ExitError
	if !errors.As(res.err, &exit) {
		t.Fatalf("codex exec: %v, want a non-zero exit", res.err)
	}
	failed := res.find("turn.failed", "")
	if len(failed) != 1 {
		t.Fatalf("%d turn.failed events, want 1", len(failed))
	}
	if msg := failed[0].Error.Message; !strings.Contains(msg, "usage limit") {
		t.Errorf("turn.failed message %q, want the usage limit", msg)
	}
	if got := env.Model.Log(); len(got) != 1 || got[0] != "POST /v1/responses 429" {
		t.Errorf("log %q, want one 429 (no retry)", got)
	}
}

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
