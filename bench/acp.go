package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// ACP drives codex-acp (Zed's Agent Client Protocol adapter around codex) over its stdio: JSON-RPC
// 2.0, one message per line. It speaks the client side of what a turn needs: initialize,
// session/new, session/prompt with its session/update notifications; a server request is refused
// (a permission request is answered "cancelled"), which a plain answer never causes.
type ACP struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}

	wmu sync.Mutex

	mu      sync.Mutex
	next    int
	pending map[string]chan acpMessage
	updates chan acpUpdate
	readErr error
}

type acpMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

type acpUpdate struct {
	at   time.Time
	kind string // sessionUpdate
}

// StartACP spawns codex-acp with the -c args in home (its own process group, so Close ends what it
// started too).
func StartACP(bin string, args []string, home Home) (*ACP, error) {
	a := &ACP{pending: map[string]chan acpMessage{}, updates: make(chan acpUpdate, 1<<16), exited: make(chan struct{})}
	a.cmd = exec.Command(bin, args...)
	a.cmd.Dir = home.Work
	a.cmd.Env = append(os.Environ(), "CODEX_HOME="+home.CodexHome)
	for k, v := range home.CodexEnv() {
		a.cmd.Env = append(a.cmd.Env, k+"="+v)
	}
	proctest.NewGroup(a.cmd)
	var err error
	if a.stdin, err = a.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := a.cmd.Start(); err != nil {
		return nil, err
	}
	go a.read(stdout)
	go func() {
		_ = a.cmd.Wait()
		close(a.exited)
	}()
	return a, nil
}

// Pid is codex-acp's process id.
func (a *ACP) Pid() int { return a.cmd.Process.Pid }

func (a *ACP) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		at := time.Now()
		var m acpMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			go a.answer(m)
		case m.Method == "session/update":
			var p struct {
				Update struct {
					Kind string `json:"sessionUpdate"`
				} `json:"update"`
			}
			_ = json.Unmarshal(m.Params, &p)
			select {
			case a.updates <- acpUpdate{at: at, kind: p.Update.Kind}:
			default: // nobody measures these: drop
			}
		case len(m.ID) > 0:
			a.mu.Lock()
			ch := a.pending[string(m.ID)]
			delete(a.pending, string(m.ID))
			a.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
	a.mu.Lock()
	a.readErr = errors.Join(errors.New("codex-acp closed its output"), sc.Err())
	for id, ch := range a.pending {
		close(ch)
		delete(a.pending, id)
	}
	a.mu.Unlock()
}

func (a *ACP) write(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	a.wmu.Lock()
	defer a.wmu.Unlock()
	_, err = a.stdin.Write(append(b, '\n'))
	return err
}

// answer refuses a request of codex-acp's (a permission is cancelled).
func (a *ACP) answer(m acpMessage) {
	if m.Method == "session/request_permission" {
		_ = a.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}})
		return
	}
	_ = a.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not supported by the benchmark client"}})
}

// Call sends a request and decodes its result.
func (a *ACP) Call(ctx context.Context, method string, params, result any) error {
	a.mu.Lock()
	if a.readErr != nil {
		err := a.readErr
		a.mu.Unlock()
		return err
	}
	a.next++
	id := strconv.Itoa(a.next)
	ch := make(chan acpMessage, 1)
	a.pending[id] = ch
	a.mu.Unlock()
	if err := a.write(map[string]any{"jsonrpc": "2.0", "id": a.next, "method": method, "params": params}); err != nil {
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: codex-acp closed its output", method)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
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
	_ = a.stdin.Close()
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
