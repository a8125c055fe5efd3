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
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
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

// TestCodexUpdatePatch: codex applies an UpdateFilePatch to a file in its folder.
func TestCodexUpdatePatch(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	file := filepath.Join(env.Work, "notes.txt")
	if err := os.WriteFile(file, []byte("keep\nold line\nkeep too\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Model.Enqueue(fakemodel.Patch(fakemodel.UpdateFilePatch("notes.txt", "old line", "new line")))

	if res := runExec(t, env, "change a line"); res.err != nil {
		t.Fatalf("codex exec: %v", res.err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep\nnew line\nkeep too\n" {
		t.Errorf("notes.txt holds %q (%v)", b, err)
	}
	wantToolOutput(t, env.Model, "custom_tool_call_output", "M notes.txt")
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
