package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// ACP drives codex-acp (Zed's Agent Client Protocol adapter around codex) over its stdio: JSON-RPC
// 2.0, one message per line. It speaks the client side of what a turn needs: initialize,
// session/new, session/prompt with its session/update notifications; a server request is refused
// (a permission request is answered "cancelled"), which a plain answer never causes.
type ACP struct {
	cmd     *exec.Cmd
	conn    *codex.Conn // the same JSON-lines endpoint as codex's, writing "jsonrpc": "2.0"
	exited  chan struct{}
	updates chan acpUpdate
}

type acpUpdate struct {
	at   time.Time
	kind string // sessionUpdate
}

// StartACP spawns codex-acp with the -c args in home (its own process group, so Close ends what it
// started too).
func StartACP(bin string, args []string, home Home) (*ACP, error) {
	a := &ACP{updates: make(chan acpUpdate, 1<<16), exited: make(chan struct{})}
	a.cmd = exec.Command(bin, args...)
	a.cmd.Dir = home.Work
	a.cmd.Env = append(os.Environ(), "CODEX_HOME="+home.CodexHome)
	for k, v := range home.CodexEnv() {
		a.cmd.Env = append(a.cmd.Env, k+"="+v)
	}
	proctest.NewGroup(a.cmd)
	stdin, err := a.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := a.cmd.Start(); err != nil {
		return nil, err
	}
	a.conn = codex.NewConn(stdout, stdin, codex.ConnOptions{
		JSONRPC:        "2.0",
		OnNotification: a.notified,
		OnRequest:      a.answer,
	})
	go func() {
		_ = a.cmd.Wait()
		close(a.exited)
	}()
	return a, nil
}

// Pid is codex-acp's process id.
func (a *ACP) Pid() int { return a.cmd.Process.Pid }

// notified keeps the time and kind of each session/update, as it is read.
func (a *ACP) notified(n codex.Notification) {
	if n.Method != "session/update" {
		return
	}
	var p struct {
		Update struct {
			Kind string `json:"sessionUpdate"`
		} `json:"update"`
	}
	_ = json.Unmarshal(n.Params, &p)
	select {
	case a.updates <- acpUpdate{at: time.Now(), kind: p.Update.Kind}:
	default: // nobody measures these: drop
	}
}

// answer refuses a request of codex-acp's (a permission is cancelled).
func (a *ACP) answer(_ context.Context, req *codex.Request) (any, error) {
	if req.Method == "session/request_permission" {
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, nil
	}
	return nil, codex.Errorf(codex.CodeMethodNotFound, "not supported by the benchmark client")
}

// Call sends a request and decodes its result.
func (a *ACP) Call(ctx context.Context, method string, params, result any) error {
	return a.conn.Call(ctx, method, params, result)
}

// Initialize sends initialize (protocol version 1, a client with no file system or terminal) and
// returns how long its answer took.
func (a *ACP) Initialize(ctx context.Context) (time.Duration, error) {
	began := time.Now()
	err := a.Call(ctx, "initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]any{"name": "hermes-bench", "version": "0"},
	}, nil)
	return time.Since(began), err
}

// NewSession starts a session in cwd with no MCP servers.
func (a *ACP) NewSession(ctx context.Context, cwd string) (string, error) {
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := a.Call(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, &res); err != nil {
		return "", err
	}
	return res.SessionID, nil
}

// Prompt runs one turn: First is the first agent_message_chunk, Total the answer to session/prompt
// (stopReason end_turn).
func (a *ACP) Prompt(ctx context.Context, session, text string) (TurnTiming, error) {
	// Updates of earlier turns are not this turn's.
	for len(a.updates) > 0 {
		<-a.updates
	}
	began := time.Now()
	var res struct {
		StopReason string `json:"stopReason"`
	}
	err := a.Call(ctx, "session/prompt", map[string]any{
		"sessionId": session,
		"prompt":    []any{map[string]any{"type": "text", "text": text}},
	}, &res)
	total := time.Since(began)
	if err != nil {
		return TurnTiming{}, err
	}
	if res.StopReason != "end_turn" {
		return TurnTiming{}, fmt.Errorf("session/prompt: stopReason %q", res.StopReason)
	}
	tt := TurnTiming{Total: total}
	// Every update of the turn was read before its answer: they are all queued by now.
	for len(a.updates) > 0 {
		u := <-a.updates
		if tt.First == 0 && u.kind == "agent_message_chunk" {
			tt.First = u.at.Sub(began)
		}
	}
	if tt.First == 0 {
		tt.First = total
	}
	return tt, nil
}

// Close ends codex-acp: it closes its stdin, waits a moment, then signals its process group (it
// does not exit at the end of its input).
func (a *ACP) Close() {
	_ = a.conn.CloseWrite()
	defer a.conn.Close()
	select {
	case <-a.exited:
		return
	case <-time.After(500 * time.Millisecond):
	}
	_ = proctest.TerminateGroup(a.Pid())
	select {
	case <-a.exited:
	case <-time.After(2 * time.Second):
		_ = proctest.KillGroup(a.Pid())
		<-a.exited
	}
}
