//go:build agents

package agentstest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/agentstest"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// client is the editor side of one ACP agent's stdio, as raw as the smoke tests want it: JSON-RPC
// 2.0 on codex.Conn, the agent's requests answered (a permission with its allow_once option, the
// file system inside the workspace folder), its session/update notifications recorded.
type client struct {
	agent  *agentstest.Agent
	cmd    *exec.Cmd
	conn   *codex.Conn
	stderr string // the file the agent's stderr goes to
	exited chan struct{}

	mu          sync.Mutex
	updates     []update
	permissions []json.RawMessage // the params of each session/request_permission
	writes      []string          // the paths of each fs/write_text_file
	reads       []string          // the paths of each fs/read_text_file
}

// codeResourceNotFound is ACP's error code for a file that does not exist.
const codeResourceNotFound = -32002

// update is one session/update: its kind and, for a message chunk, its text.
type update struct {
	kind, text, status string
}

// start runs the agent in its workspace, in a process group of its own; the test's cleanup ends it
// (see close).
func start(t *testing.T, a *agentstest.Agent) *client {
	t.Helper()
	c := &client{agent: a, exited: make(chan struct{}), stderr: filepath.Join(t.TempDir(), "stderr")}
	errFile, err := os.Create(c.stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	c.cmd = exec.Command(a.Command, a.Args...)
	c.cmd.Dir = a.Work
	c.cmd.Env = a.Environ()
	c.cmd.Stderr = errFile
	proctest.NewGroup(c.cmd)
	stdin, err := c.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", a.Command, err)
	}
	go func() {
		_ = c.cmd.Wait()
		close(c.exited)
	}()
	c.conn = codex.NewConn(stdout, stdin, codex.ConnOptions{
		JSONRPC:        "2.0",
		OnNotification: c.notified,
		OnRequest:      c.answer,
	})
	t.Cleanup(func() { c.close(t) })
	return c
}

// close ends the agent: end of its input first (each of them exits then), then SIGTERM to its
// group, then SIGKILL; it waits for the agent and checks that nothing of its group is left. On
// failure it logs the end of the agent's stderr.
func (c *client) close(t *testing.T) {
	closed := time.Now()
	_ = c.conn.CloseWrite()
	pid := c.cmd.Process.Pid
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		t.Errorf("%s did not exit within 10 s of the end of its input; terminating it", c.agent.Name)
		_ = proctest.TerminateGroup(pid)
		select {
		case <-c.exited:
		case <-time.After(5 * time.Second):
			_ = proctest.KillGroup(pid)
			<-c.exited
		}
	}
	_ = c.conn.Close()
	if !proctest.WaitGroupGone(pid, 5*time.Second) {
		t.Errorf("%s left processes in its group after it exited; killing them", c.agent.Name)
		_ = proctest.KillGroup(pid)
	}
	proctest.EndEnv(t, "HOME="+c.agent.Home) // and any that left the group
	t.Logf("%s and its processes gone %v after the end of its input", c.agent.Name, time.Since(closed).Round(time.Millisecond))
	if t.Failed() {
		if b, err := os.ReadFile(c.stderr); err == nil {
			t.Logf("%s stderr (last 4 KiB):\n%s", c.agent.Name, tail(string(b), 4096))
		}
	}
}

// notified records a session/update.
func (c *client) notified(n codex.Notification) {
	if n.Method != "session/update" {
		return
	}
	var p struct {
		Update struct {
			Kind    string          `json:"sessionUpdate"`
			Status  string          `json:"status"`
			Content json.RawMessage `json:"content"` // a tool call's is a list
		} `json:"update"`
	}
	if json.Unmarshal(n.Params, &p) != nil {
		return
	}
	u := update{kind: p.Update.Kind, status: p.Update.Status}
	if u.kind == "agent_message_chunk" {
		var content struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(p.Update.Content, &content)
		u.text = content.Text
	}
	c.mu.Lock()
	c.updates = append(c.updates, u)
	c.mu.Unlock()
}

// answer answers the agent's requests: a permission with the option of kind allow_once (cancelled
// when there is none), a file read or write inside the workspace folder (a missing file is ACP's
// "resource not found").
func (c *client) answer(ctx context.Context, req *codex.Request) (any, error) {
	switch req.Method {
	case "session/request_permission":
		var p struct {
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, codex.Errorf(codex.CodeInvalidParams, "%v", err)
		}
		c.mu.Lock()
		c.permissions = append(c.permissions, req.Params)
		c.mu.Unlock()
		for _, o := range p.Options {
			if o.Kind == "allow_once" {
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}}, nil
			}
		}
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, nil
	case "fs/read_text_file", "fs/write_text_file":
		var p struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, codex.Errorf(codex.CodeInvalidParams, "%v", err)
		}
		c.mu.Lock()
		if req.Method == "fs/read_text_file" {
			c.reads = append(c.reads, p.Path)
		} else {
			c.writes = append(c.writes, p.Path)
		}
		c.mu.Unlock()
		// The agent's paths go through the workspace package, as the host's do: inside the
		// folder only, never through a link.
		if req.Method == "fs/write_text_file" {
			return struct{}{}, workspace.WriteFile(c.agent.Work, p.Path, []byte(p.Content), 0o600)
		}
		b, err := workspace.ReadFile(ctx, c.agent.Work, p.Path, 1<<20)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, codex.Errorf(codeResourceNotFound, "Resource not found: %s", p.Path)
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"content": string(b)}, nil
	}
	return nil, codex.Errorf(codex.CodeMethodNotFound, "%s: not supported by the smoke test's client", req.Method)
}

// call sends a request and decodes its answer.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// prompt runs one turn and returns its stopReason and the text of its agent_message_chunks. The
// agent sends a turn's updates before its answer, and they are read in order, so every update of
// the turn has been recorded when prompt returns.
func (c *client) prompt(ctx context.Context, session, text string) (stopReason, answer string, err error) {
	c.mu.Lock()
	from := len(c.updates)
	c.mu.Unlock()
	var res struct {
		StopReason string `json:"stopReason"`
	}
	err = c.call(ctx, "session/prompt", map[string]any{
		"sessionId": session,
		"prompt":    []any{map[string]any{"type": "text", "text": text}},
	}, &res)
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, u := range c.updates[from:] {
		b.WriteString(u.text)
	}
	return res.StopReason, b.String(), err
}

// mark returns how many updates are recorded so far: an index for kinds.
func (c *client) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.updates)
}

// kinds returns the kinds of the updates recorded since the index from, each once, in order.
func (c *client) kinds(from int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, u := range c.updates[from:] {
		k := u.kind
		if u.status != "" {
			k += "(" + u.status + ")"
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
