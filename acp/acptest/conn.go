package acptest

// This file is the agent's side of one connection: the transport and the methods the client calls.

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"sync"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/internal/jsonrpc"
)

// conn is one connection (one agent process, as the client sees it), on the JSON-RPC endpoint the
// client uses too, with the client's requests taken in the order they were read.
type conn struct {
	a   *Agent
	rpc *jsonrpc.Conn
	out *gate
	ctx context.Context // ends with the connection

	mu      sync.Mutex
	authed  bool
	running map[string]*Turn // session id -> its prompt's turn
}

func pipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

// serve starts a connection on r and w.
func (a *Agent) serve(r io.ReadCloser, w io.WriteCloser) *conn {
	c := &conn{a: a, out: &gate{w: w}, running: map[string]*Turn{}, authed: !a.cfg.RequireAuth}
	// The connection reads at once, and what it reads (a process's stdin may hold initialize
	// already) is handled once c.rpc is set.
	ready := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	c.ctx = ctx // before ready: a prompt's turn is made of it
	c.rpc = jsonrpc.NewConn(r, c.out, jsonrpc.ConnOptions{
		Peer:    "the client",
		JSONRPC: "2.0",
		OnRequestInOrder: func(req *jsonrpc.Request) {
			<-ready
			c.handle(req)
		},
		OnNotification: func(n jsonrpc.Notification) {
			<-ready
			c.notified(n)
		},
	})
	close(ready)
	a.mu.Lock()
	a.conns = append(a.conns, c)
	a.mu.Unlock()
	// The agent ends when its input does, as an agent process would; its turns see Done close.
	a.wg.Go(func() {
		<-c.rpc.Done()
		cancel()
		c.close()
	})
	return c
}

// close ends the connection once: the client sees its output end.
func (c *conn) close() { _ = c.rpc.Close() }

// kill writes lines as plain text, then nothing more, and ends the connection.
func (c *conn) kill(lines []string) {
	c.out.last(lines)
	c.close()
}

// gate is the agent's output: once the agent is killed it drops every write, as a process that
// exited writes nothing more.
type gate struct {
	mu   sync.Mutex
	w    io.WriteCloser
	dead bool
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dead {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gate) Close() error { return g.w.Close() }

// last writes lines as they are (the agent's last words on a crash), then nothing more.
func (g *gate) last(lines []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.dead {
		for _, line := range lines {
			_, _ = io.WriteString(g.w, line+"\n")
		}
		g.dead = true
	}
}

func (c *conn) reply(req *jsonrpc.Request, result any) {
	_ = c.rpc.Reply(req, result, nil) // fails only when the client has gone
}

func (c *conn) fail(req *jsonrpc.Request, code int64, format string, args ...any) {
	_ = c.rpc.Reply(req, nil, jsonrpc.Errorf(code, format, args...))
}

func (c *conn) notified(n jsonrpc.Notification) {
	c.a.record(Message{Method: n.Method, Params: n.Params}, false)
	if n.Method != acp.MethodSessionCancel {
		return
	}
	var p acp.CancelNotification
	if json.Unmarshal(n.Params, &p) != nil {
		return
	}
	c.mu.Lock()
	t := c.running[p.SessionID]
	c.mu.Unlock()
	if t != nil {
		t.cancel(errCancelled)
	}
}

// handle answers one request of the client's, on the read goroutine, in order.
func (c *conn) handle(req *jsonrpc.Request) {
	c.a.record(Message{ID: req.ID, Method: req.Method, Params: req.Params}, false)
	switch req.Method {
	case acp.MethodInitialize:
		c.initialize(req)
	case acp.MethodAuthenticate:
		c.authenticate(req)
	case acp.MethodSessionNew, acp.MethodSessionLoad, acp.MethodSessionResume, acp.MethodSessionList,
		acp.MethodSessionClose, acp.MethodSessionPrompt, acp.MethodSessionSetMode, acp.MethodSessionSetConfigOption:
		if !c.isAuthed() {
			c.fail(req, acp.ErrorCodeAuthenticationRequired, "Authentication required")
			return
		}
		c.session(req)
	default:
		c.fail(req, acp.ErrorCodeMethodNotFound, "Method not found: %s", req.Method)
	}
}

func (c *conn) isAuthed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authed
}

func (c *conn) initialize(req *jsonrpc.Request) {
	cfg := c.a.cfg
	caps := acp.AgentCapabilities{LoadSession: cfg.LoadSession}
	caps.PromptCapabilities = acp.PromptCapabilities{EmbeddedContext: true}
	if cfg.List {
		caps.SessionCapabilities.List = &acp.SessionListCapabilities{}
	}
	if cfg.Resume {
		caps.SessionCapabilities.Resume = &acp.SessionResumeCapabilities{}
	}
	if cfg.Close {
		caps.SessionCapabilities.Close = &acp.SessionCloseCapabilities{}
	}
	c.reply(req, acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersion(cfg.ProtocolVersion),
		AgentCapabilities: caps,
		AuthMethods:       cfg.AuthMethods,
		AgentInfo:         &acp.Implementation{Name: cfg.Name, Version: cfg.Version},
	})
}

func (c *conn) authenticate(req *jsonrpc.Request) {
	var p acp.AuthenticateRequest
	_ = json.Unmarshal(req.Params, &p)
	for _, m := range c.a.cfg.AuthMethods {
		if authMethodID(m) == p.MethodID {
			c.mu.Lock()
			c.authed = true
			c.mu.Unlock()
			c.reply(req, acp.AuthenticateResponse{})
			return
		}
	}
	c.fail(req, acp.ErrorCodeInvalidParams, "unknown auth method %q", p.MethodID)
}

// authMethodID is the id of an auth method, whichever variant it is.
func authMethodID(m acp.AuthMethod) string {
	switch {
	case m.AuthMethodAgent != nil:
		return m.AuthMethodAgent.ID
	case m.AuthMethodTerminal != nil:
		return m.AuthMethodTerminal.ID
	}
	var raw struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(m.Raw, &raw)
	return raw.ID
}

// session answers the session methods.
func (c *conn) session(req *jsonrpc.Request) {
	a := c.a
	switch req.Method {
	case acp.MethodSessionNew:
		var p acp.NewSessionRequest
		_ = json.Unmarshal(req.Params, &p)
		a.mu.Lock()
		s := a.newSessionLocked(p.Cwd)
		s.MCPServers = p.MCPServers
		a.mu.Unlock()
		c.reply(req, acp.NewSessionResponse{SessionID: s.ID, Modes: a.cfg.Modes, ConfigOptions: a.cfg.ConfigOptions})
	case acp.MethodSessionLoad:
		c.load(req)
	case acp.MethodSessionResume:
		var p acp.ResumeSessionRequest
		_ = json.Unmarshal(req.Params, &p)
		if !a.cfg.Resume || !c.touch(req, p.SessionID, p.MCPServers, func(s *Session) { s.Resumes++ }) {
			return
		}
		c.reply(req, acp.ResumeSessionResponse{Modes: a.cfg.Modes, ConfigOptions: a.cfg.ConfigOptions})
	case acp.MethodSessionList:
		c.list(req)
	case acp.MethodSessionClose:
		c.reply(req, acp.CloseSessionResponse{})
	case acp.MethodSessionPrompt:
		c.prompt(req)
	case acp.MethodSessionSetMode:
		c.reply(req, acp.SetSessionModeResponse{})
	case acp.MethodSessionSetConfigOption:
		c.reply(req, acp.SetSessionConfigOptionResponse{ConfigOptions: orEmpty(a.cfg.ConfigOptions)})
	}
}

// touch finds the session a load or resume names and updates it, or answers with an error.
func (c *conn) touch(req *jsonrpc.Request, id string, mcp []acp.MCPServer, f func(*Session)) bool {
	a := c.a
	a.mu.Lock()
	s := a.sessions[id]
	if s != nil {
		s.MCPServers = mcp
		f(s)
	}
	a.mu.Unlock()
	if s == nil {
		c.fail(req, acp.ErrorCodeResourceNotFound, "Resource not found: session %q (known: %v)", id, a.sessionIDs())
	}
	return s != nil
}

// load replays the session's history as session/update notifications, then answers.
func (c *conn) load(req *jsonrpc.Request) {
	a := c.a
	var p acp.LoadSessionRequest
	_ = json.Unmarshal(req.Params, &p)
	if !a.cfg.LoadSession {
		c.fail(req, acp.ErrorCodeMethodNotFound, "Method not found: %s", req.Method)
		return
	}
	var history []acp.SessionUpdate
	if !c.touch(req, p.SessionID, p.MCPServers, func(s *Session) { s.Loads++; history = slices.Clone(s.History) }) {
		return
	}
	for _, u := range history {
		_ = c.rpc.Notify(acp.MethodSessionUpdate, acp.SessionNotification{SessionID: p.SessionID, Update: u})
	}
	c.reply(req, acp.LoadSessionResponse{Modes: a.cfg.Modes, ConfigOptions: a.cfg.ConfigOptions})
}

// list answers a page of session/list, most recently changed first.
func (c *conn) list(req *jsonrpc.Request) {
	a := c.a
	if !a.cfg.List {
		c.fail(req, acp.ErrorCodeMethodNotFound, "Method not found: %s", req.Method)
		return
	}
	var p acp.ListSessionsRequest
	_ = json.Unmarshal(req.Params, &p)
	all := a.sessionsIn(p.Cwd)
	start := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(p.Cursor)
		if err != nil || n < 0 || n > len(all) {
			c.fail(req, acp.ErrorCodeInvalidParams, "bad cursor %q", p.Cursor)
			return
		}
		start = n
	}
	end := len(all)
	if a.cfg.PageSize > 0 {
		end = min(end, start+a.cfg.PageSize)
	}
	res := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	a.mu.Lock()
	for _, s := range all[start:end] {
		res.Sessions = append(res.Sessions, acp.SessionInfo{SessionID: s.ID, Cwd: s.Cwd, Title: s.Title})
	}
	a.mu.Unlock()
	if end < len(all) {
		res.NextCursor = strconv.Itoa(end)
	}
	c.reply(req, res)
}

// prompt starts the prompt's turn on a goroutine of its own; the turn answers when it ends.
func (c *conn) prompt(req *jsonrpc.Request) {
	a := c.a
	var p acp.PromptRequest
	_ = json.Unmarshal(req.Params, &p)
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	h := a.onPrompt
	a.mu.Unlock()
	if s == nil {
		c.fail(req, acp.ErrorCodeResourceNotFound, "Resource not found: session %q", p.SessionID)
		return
	}
	c.mu.Lock()
	if c.running[p.SessionID] != nil {
		c.mu.Unlock()
		c.fail(req, acp.ErrorCodeInvalidRequest, "session %s is already running a prompt", p.SessionID)
		return
	}
	t := newTurn(c, s, p.Prompt)
	c.running[p.SessionID] = t
	c.mu.Unlock()
	for _, block := range p.Prompt {
		t.record(acp.SessionUpdate{Kind: acp.SessionUpdateKindUserMessageChunk, ContentChunk: &acp.ContentChunk{Content: block}})
	}
	a.wg.Go(func() {
		stop := h(t)
		c.mu.Lock()
		delete(c.running, p.SessionID)
		c.mu.Unlock()
		t.cancel(errEnded)
		if stop != "" {
			c.reply(req, acp.PromptResponse{StopReason: stop})
		}
	})
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
