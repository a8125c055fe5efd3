package fakemodel

// These tests run the real pinned codex binary against the fake, both as `codex exec --json` and as
// `codex app-server` (the way hermes-lsp runs it). Each run takes well under a second or two.
//
// CODEX_HOME lives under t.TempDir(), that is under /tmp, so codex prints "WARNING: proceeding,
// even though we could not create PATH aliases: Refusing to create helper binaries under temporary
// dir". That only means no `apply_patch` helper on the PATH of the commands it runs; the
// apply_patch tool itself works, as TestCodexPatch shows.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// codexRelPath is where `make tools` installs the pinned codex binary, relative to the module root.
const codexRelPath = "tools/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"

// codexTimeout bounds one codex run.
const codexTimeout = 60 * time.Second

// codexBinary returns the pinned codex binary: $HERMES_CODEX_BIN if set (the Makefile sets it),
// else tools/codex/... under the module root. Without it the test fails, or skips under -short.
func codexBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real codex binary; skipped with -short")
	}
	p, from := os.Getenv("HERMES_CODEX_BIN"), "HERMES_CODEX_BIN"
	if p == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Fatalf("HERMES_CODEX_BIN is unset and %v: run `make tools`, or set HERMES_CODEX_BIN", err)
		}
		p, from = filepath.Join(root, filepath.FromSlash(codexRelPath)), "the module root"
	}
	if !isExecutable(p) {
		t.Fatalf("the pinned codex binary %s (from %s) is missing: run `make tools`", p, from)
	}
	return p
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// moduleRoot walks up from the working directory to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// codexDirs makes a throwaway HOME holding a CODEX_HOME and a working directory.
func codexDirs(t *testing.T) (home, codexHome, work string) {
	t.Helper()
	home = t.TempDir()
	codexHome = filepath.Join(home, ".codex")
	work = filepath.Join(home, "project")
	for _, d := range []string{codexHome, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, codexHome, work
}

// codexEnv is a minimal environment for codex: no API keys or codex settings leak in from ours.
func codexEnv(home, codexHome string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CODEX_HOME=" + codexHome, "TERM=dumb"}
}

// startServer starts a fake that is closed at the end of the test.
func startServer(t *testing.T) *Server {
	t.Helper()
	srv, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// execResult is the outcome of one `codex exec --json`.
type execResult struct {
	events []map[string]any // the JSON lines of stdout
	stderr string
	err    error  // from cmd.Run: non-nil when codex exits non-zero
	work   string // the working directory codex ran in
}

// runExec runs `codex exec --json PROMPT` against srv in a fresh working directory, with a throwaway
// CODEX_HOME and HOME, no approvals and no sandbox.
func runExec(t *testing.T, srv *Server, prompt string) execResult {
	t.Helper()
	bin := codexBinary(t)
	home, codexHome, work := codexDirs(t)
	args := []string{"exec", "--json", "--color", "never", "--skip-git-repo-check", "--ephemeral",
		"--dangerously-bypass-approvals-and-sandbox", "-C", work}
	for _, kv := range srv.CodexConfig() {
		args = append(args, "-c", kv)
	}
	args = append(args, prompt)

	ctx, cancel := context.WithTimeout(t.Context(), codexTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = work
	cmd.Env = codexEnv(home, codexHome)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("codex exec: %v, err %v", time.Since(start).Round(time.Millisecond), err)
	res := execResult{stderr: stderr.String(), err: err, work: work}
	for line := range strings.Lines(stdout.String()) {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			res.events = append(res.events, m)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("codex exec stdout:\n%s\nstderr:\n%s\nserver log: %q", stdout.String(), stderr.String(), srv.Log())
		}
	})
	return res
}

// find returns the events of the given type, and for "item.completed" only items of itemType.
func (r execResult) find(typ, itemType string) []map[string]any {
	var out []map[string]any
	for _, e := range r.events {
		if e["type"] != typ {
			continue
		}
		if itemType != "" {
			if item, _ := e["item"].(map[string]any); item == nil || item["type"] != itemType {
				continue
			}
		}
		out = append(out, e)
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
	text, _ := msgs[len(msgs)-1]["item"].(map[string]any)["text"].(string)
	return text
}

// appServer is a bare-bones client of `codex app-server` for these tests: JSON lines on stdio.
type appServer struct {
	t      *testing.T
	ctx    context.Context // ends codexTimeout after the start
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan map[string]any // every message codex writes, in order; closed at EOF
	nextID int
	work   string
}

// startAppServer starts `codex app-server` against srv with a throwaway CODEX_HOME and HOME and
// completes the initialize handshake. The process is killed at the end of the test.
func startAppServer(t *testing.T, srv *Server) *appServer {
	t.Helper()
	bin := codexBinary(t)
	home, codexHome, work := codexDirs(t)
	args := []string{"app-server"}
	for _, kv := range srv.CodexConfig() {
		args = append(args, "-c", kv)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = work
	cmd.Env = codexEnv(home, codexHome)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), codexTimeout)
	t.Cleanup(cancel)
	a := &appServer{t: t, ctx: ctx, cmd: cmd, stdin: stdin, lines: make(chan map[string]any, 4096), nextID: 1, work: work}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(a.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				a.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		<-readDone
		cmd.Wait()
		if t.Failed() {
			t.Logf("codex app-server stderr:\n%s\nserver log: %q", stderr.String(), srv.Log())
		}
	})
	a.call("initialize", map[string]any{
		"clientInfo":   map[string]any{"name": "fakemodel-test", "title": "fakemodel test", "version": "0.0.1"},
		"capabilities": map[string]any{"experimentalApi": false},
	})
	a.send(map[string]any{"method": "initialized"})
	return a
}

func (a *appServer) send(m map[string]any) {
	a.t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.stdin.Write(append(b, '\n')); err != nil {
		a.t.Fatalf("write to codex: %v", err)
	}
}

// call sends a request and returns its result, dropping the messages before it.
func (a *appServer) call(method string, params map[string]any) map[string]any {
	a.t.Helper()
	id := a.nextID
	a.nextID++
	a.send(map[string]any{"id": id, "method": method, "params": params})
	for {
		m := a.next()
		if m["method"] == nil && m["id"] == float64(id) {
			if m["error"] != nil {
				a.t.Fatalf("%s: error %v", method, m["error"])
			}
			res, _ := m["result"].(map[string]any)
			return res
		}
	}
}

// next returns the next message codex writes.
func (a *appServer) next() map[string]any {
	a.t.Helper()
	select {
	case m, ok := <-a.lines:
		if !ok {
			a.t.Fatal("codex app-server closed its stdout")
		}
		return m
	case <-a.ctx.Done():
		a.t.Fatalf("waiting for codex app-server: %v", a.ctx.Err())
	}
	return nil
}

// until returns the messages codex writes up to and including the first notification named method.
func (a *appServer) until(method string) []map[string]any {
	a.t.Helper()
	var got []map[string]any
	for {
		m := a.next()
		got = append(got, m)
		if m["method"] == method {
			return got
		}
	}
}

// startThread starts a thread with no approvals and no sandbox and returns its id.
func (a *appServer) startThread() string {
	a.t.Helper()
	res := a.call("thread/start", map[string]any{"cwd": a.work, "approvalPolicy": "never", "sandbox": "danger-full-access"})
	thread, _ := res["thread"].(map[string]any)
	id, _ := thread["id"].(string)
	if id == "" {
		a.t.Fatalf("thread/start: no thread id in %v", res)
	}
	return id
}

// startTurn starts a turn with a text prompt and returns its id.
func (a *appServer) startTurn(thread, prompt string) string {
	a.t.Helper()
	res := a.call("turn/start", map[string]any{
		"threadId": thread,
		"input":    []any{map[string]any{"type": "text", "text": prompt}},
	})
	turn, _ := res["turn"].(map[string]any)
	id, _ := turn["id"].(string)
	if id == "" {
		a.t.Fatalf("turn/start: no turn id in %v", res)
	}
	return id
}

// params returns the params of the notifications named method among msgs.
func params(msgs []map[string]any, method string) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		if m["method"] == method {
			p, _ := m["params"].(map[string]any)
			out = append(out, p)
		}
	}
	return out
}

// dig walks nested JSON objects along keys.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		if m == nil {
			return nil
		}
		v = m[k]
	}
	return v
}

// waitLog waits until the server logged a line containing substr.
func waitLog(t *testing.T, srv *Server, substr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	err := srv.wait(ctx, func() bool {
		return slices.ContainsFunc(srv.log, func(l string) bool { return strings.Contains(l, substr) })
	})
	if err != nil {
		t.Fatalf("waiting for log line %q: %v; log %q", substr, err, srv.Log())
	}
}

func TestCodexMessage(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	usage := Usage{InputTokens: 2000, CachedTokens: 1500, OutputTokens: 50, ReasoningTokens: 10, TotalTokens: 2050}
	srv.Enqueue(Message("Hello there from a scripted reply.").WithUsage(usage))

	res := runExec(t, srv, "say hello")
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
	wantUsage := map[string]any{
		"input_tokens": 2000.0, "cached_input_tokens": 1500.0, "output_tokens": 50.0, "reasoning_output_tokens": 10.0,
	}
	for k, v := range wantUsage {
		if got := dig(done[0], "usage", k); got != v {
			t.Errorf("usage.%s = %v, want %v", k, got, v)
		}
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != DefaultModel || !r.Stream || r.UserText() != "say hello" {
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
	srv := startServer(t)
	srv.Enqueue(Exec("echo hi-from-tool"))

	res := runExec(t, srv, "run something")
	if res.err != nil {
		t.Fatalf("codex exec: %v", res.err)
	}
	cmds := res.find("item.completed", "command_execution")
	if len(cmds) != 1 {
		t.Fatalf("%d command executions, want 1", len(cmds))
	}
	if got := dig(cmds[0], "item", "aggregated_output"); got != "hi-from-tool\n" {
		t.Errorf("command output %q", got)
	}
	if text := res.agentText(t); !strings.HasPrefix(text, "Done. Tool said: ") || !strings.Contains(text, "hi-from-tool") {
		t.Errorf("agent message %q, want the default echo of the tool output", text)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last, _ := reqs[1].Last()
	if last.Type != "function_call_output" || last.CallID != "call_1" || !strings.Contains(last.Output, "hi-from-tool") {
		t.Errorf("second request ends with %+v, want the function_call_output of call_1", last)
	}
	call := reqs[1].Input[len(reqs[1].Input)-2]
	if call.Type != "function_call" || call.Name != "exec_command" || call.Arguments != `{"cmd":"echo hi-from-tool"}` {
		t.Errorf("second request replays %+v, want the function_call", call)
	}
}

func TestCodexPatch(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	srv.Enqueue(Patch(AddFilePatch("made.txt", "one\ntwo\n")))

	res := runExec(t, srv, "write a file")
	if res.err != nil {
		t.Fatalf("codex exec: %v", res.err)
	}
	b, err := os.ReadFile(filepath.Join(res.work, "made.txt"))
	if err != nil {
		t.Fatalf("the patch made no file: %v", err)
	}
	if string(b) != "one\ntwo\n" {
		t.Errorf("made.txt holds %q", b)
	}
	if n := len(res.find("item.completed", "file_change")); n != 1 {
		t.Errorf("%d file changes, want 1", n)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last, _ := reqs[1].Last()
	if last.Type != "custom_tool_call_output" || last.CallID != "call_1" || !strings.Contains(last.Output, "A made.txt") {
		t.Errorf("second request ends with %+v, want the custom_tool_call_output of call_1", last)
	}
}

func TestCodexUsageLimitExec(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	srv.Enqueue(UsageLimit())

	res := runExec(t, srv, "hi")
	var exit *exec.ExitError
	if !errors.As(res.err, &exit) {
		t.Fatalf("codex exec: %v, want a non-zero exit", res.err)
	}
	failed := res.find("turn.failed", "")
	if len(failed) != 1 {
		t.Fatalf("%d turn.failed events, want 1", len(failed))
	}
	if msg, _ := dig(failed[0], "error", "message").(string); !strings.Contains(msg, "usage limit") {
		t.Errorf("turn.failed message %q, want the usage limit", msg)
	}
	if got := srv.Log(); len(got) != 1 || got[0] != "POST /v1/responses 429" {
		t.Errorf("log %q, want one 429 (no retry)", got)
	}
}

// TestCodexAppServer drives one app-server thread through a streamed message with reasoning, a
// usage limit, a failed stream, and a hang interrupted by the client.
func TestCodexAppServer(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	a := startAppServer(t, srv)
	thread := a.startThread()

	t.Run("message", func(t *testing.T) {
		srv.Enqueue(MessageChunks("Hello ", "from ", "chunks.").WithReasoning("**Thinking** about it"))
		a.startTurn(thread, "hi")
		msgs := a.until("turn/completed")
		var deltas []string
		for _, p := range params(msgs, "item/agentMessage/delta") {
			d, _ := p["delta"].(string)
			deltas = append(deltas, d)
		}
		if !slices.Equal(deltas, []string{"Hello ", "from ", "chunks."}) {
			t.Errorf("deltas %q", deltas)
		}
		var reasoning, agent []any
		for _, p := range params(msgs, "item/completed") {
			switch dig(p, "item", "type") {
			case "reasoning":
				reasoning = append(reasoning, dig(p, "item", "summary"))
			case "agentMessage":
				agent = append(agent, dig(p, "item", "text"))
			}
		}
		if len(reasoning) != 1 || len(agent) != 1 || agent[0] != "Hello from chunks." {
			t.Errorf("reasoning items %v, agent messages %v", reasoning, agent)
		}
		if s, _ := reasoning[0].([]any); len(s) != 1 || s[0] != "**Thinking** about it" {
			t.Errorf("reasoning summary %v", reasoning[0])
		}
		usage := params(msgs, "thread/tokenUsage/updated")
		if len(usage) == 0 {
			t.Fatal("no thread/tokenUsage/updated")
		}
		last := dig(usage[len(usage)-1], "tokenUsage", "last")
		want := map[string]any{"inputTokens": 1200.0, "cachedInputTokens": 1000.0, "outputTokens": 34.0,
			"reasoningOutputTokens": 7.0, "totalTokens": 1234.0}
		for k, v := range want {
			if got := dig(last, k); got != v {
				t.Errorf("tokenUsage.last.%s = %v, want %v", k, got, v)
			}
		}
		if st := dig(params(msgs, "turn/completed")[0], "turn", "status"); st != "completed" {
			t.Errorf("turn status %v", st)
		}
	})

	t.Run("usage limit", func(t *testing.T) {
		srv.Enqueue(UsageLimit())
		a.startTurn(thread, "hi")
		msgs := a.until("turn/completed")
		errs := params(msgs, "error")
		if len(errs) != 1 || dig(errs[0], "error", "codexErrorInfo") != "usageLimitExceeded" {
			t.Errorf("error notifications %v, want one usageLimitExceeded", errs)
		}
		done := params(msgs, "turn/completed")[0]
		if dig(done, "turn", "status") != "failed" || dig(done, "turn", "error", "codexErrorInfo") != "usageLimitExceeded" {
			t.Errorf("turn/completed %v", done)
		}
	})

	t.Run("failed", func(t *testing.T) {
		srv.Enqueue(Failed("fake response.failed"))
		a.startTurn(thread, "hi")
		msgs := a.until("turn/completed")
		done := params(msgs, "turn/completed")[0]
		msg, _ := dig(done, "turn", "error", "message").(string)
		if dig(done, "turn", "status") != "failed" || !strings.Contains(msg, "fake response.failed") {
			t.Errorf("turn/completed %v", done)
		}
	})

	t.Run("hang then interrupt", func(t *testing.T) {
		srv.Enqueue(Hang())
		n := len(srv.Requests())
		turn := a.startTurn(thread, "hi")
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := srv.WaitRequests(ctx, n+1); err != nil {
			t.Fatal(err)
		}
		a.call("turn/interrupt", map[string]any{"threadId": thread, "turnId": turn})
		msgs := a.until("turn/completed")
		if st := dig(params(msgs, "turn/completed")[0], "turn", "status"); st != "interrupted" {
			t.Errorf("turn status %v, want interrupted", st)
		}
		waitLog(t, srv, "hang ended: client went away")
	})
}

// TestCodexKilledWhileHanging checks that a hanging reply ends when codex dies.
func TestCodexKilledWhileHanging(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	srv.Enqueue(Hang())
	a := startAppServer(t, srv)
	a.startTurn(a.startThread(), "hi")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitLog(t, srv, "hang ended: client went away")
}
