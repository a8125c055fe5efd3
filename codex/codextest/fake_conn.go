package codextest

// This file is the fake's side of one connection: the JSON-lines transport and codex's methods.

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// fakeConn is one "process": the server side of one connection, on codex's own JSON-lines endpoint
// (codex.Conn) with requests taken in order.
type fakeConn struct {
	f    *Fake
	opts codex.Options
	conn *codex.Conn
	out  *gate

	mu          sync.Mutex
	initialized bool
	loaded      map[string]bool      // threads started or resumed on this connection
	running     map[string]*FakeTurn // thread id -> its running turn
}

func newFakeConn(f *Fake, opts codex.Options, r io.ReadCloser, w io.WriteCloser, stalled bool) *fakeConn {
	c := &fakeConn{
		f: f, opts: opts, out: &gate{w: w, stalled: stalled},
		loaded:  make(map[string]bool),
		running: make(map[string]*FakeTurn),
	}
	c.conn = codex.NewConn(r, c.out, codex.ConnOptions{
		OnRequestInOrder: func(req *codex.Request) { c.handle(Message{ID: req.ID, Method: req.Method, Params: req.Params}) },
		OnNotification: func(n codex.Notification) {
			c.f.record(Message{Method: n.Method, Params: n.Params})
		},
		StampNotifications: true,
	})
	return c
}

// done is closed when the connection has ended.
func (c *fakeConn) done() <-chan struct{} { return c.conn.Done() }

// close ends the connection once: the client sees its output end, handlers see done.
func (c *fakeConn) close() { _ = c.conn.Close() }

// gate is the fake's output: once the fake stalls or is killed it drops every write, as a codex
// that stopped answering or exited writes nothing more.
type gate struct {
	mu      sync.Mutex
	w       io.WriteCloser
	stalled bool
	dead    bool
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stalled || g.dead {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gate) Close() error { return g.w.Close() }

func (g *gate) stall() {
	g.mu.Lock()
	g.stalled = true
	g.mu.Unlock()
}

func (g *gate) isStalled() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stalled
}

// last writes lines as they are (codex's last words on a crash), then nothing more.
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

func (c *fakeConn) notify(method string, params any) {
	_ = c.conn.Notify(method, params) // fails only when the client has gone
}

func (c *fakeConn) reply(id json.RawMessage, result any) {
	_ = c.conn.Reply(&codex.Request{ID: id}, result, nil)
}

func (c *fakeConn) fail(id json.RawMessage, code int64, format string, args ...any) {
	_ = c.conn.Reply(&codex.Request{ID: id}, nil, codex.Errorf(code, format, args...))
}

// handle answers one request of the client. It runs on the read loop, so answers and the
// notifications that follow them go out in order.
func (c *fakeConn) handle(m Message) {
	c.f.record(m)
	if c.out.isStalled() {
		return
	}
	c.mu.Lock()
	initialized := c.initialized
	c.mu.Unlock()
	if !initialized && m.Method != codex.MethodInitialize {
		c.fail(m.ID, codex.CodeInvalidRequest, "Not initialized")
		return
	}
	switch m.Method {
	case codex.MethodInitialize:
		c.initialize(m)
	case codex.MethodThreadStart:
		c.threadStart(m)
	case codex.MethodThreadResume:
		c.threadResume(m)
	case codex.MethodTurnStart:
		c.turnStart(m)
	case codex.MethodTurnSteer:
		c.turnSteer(m)
	case codex.MethodTurnInterrupt:
		c.turnInterrupt(m)
	case codex.MethodThreadCompact:
		c.threadCompact(m)
	case codex.MethodThreadRevert:
		c.threadRevert(m)
	default:
		if !c.handleMore(m) {
			c.f.mu.Lock()
			if c.f.unknown == nil {
				c.f.unknown = make(map[string]bool)
			}
			c.f.unknown[m.Method] = true
			c.f.mu.Unlock()
			c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: unknown method `%s`", m.Method)
		}
	}
}

func (c *fakeConn) initialize(m Message) {
	c.mu.Lock()
	again := c.initialized
	c.initialized = true
	c.mu.Unlock()
	if again {
		c.fail(m.ID, codex.CodeInvalidRequest, "Already initialized")
		return
	}
	var p codex.InitializeParams
	_ = json.Unmarshal(m.Params, &p)
	name := p.ClientInfo.Name
	if name == "" {
		name = "client"
	}
	c.f.mu.Lock()
	version := c.f.version
	c.f.mu.Unlock()
	if version == "" {
		version = fakeVersion
	}
	c.reply(m.ID, codex.InitializeResult{
		UserAgent:      fmt.Sprintf("%s/%s (codextest fake) (%s; %s)", name, version, name, p.ClientInfo.Version),
		CodexHome:      c.codexHome(),
		PlatformFamily: "unix",
		PlatformOS:     "linux",
	})
}

func (c *fakeConn) codexHome() string {
	if c.opts.Process.Home != "" {
		return c.opts.Process.Home
	}
	return FakeCodexHome
}

func (c *fakeConn) threadStart(m Message) {
	var p codex.ThreadStartParams
	if !c.decode(m, &p) {
		return
	}
	th := &FakeThread{
		ID:             c.f.nextID("thread"),
		Cwd:            p.Cwd,
		Model:          p.Model,
		ModelProvider:  p.ModelProvider,
		Start:          p,
		approvalPolicy: string(p.ApprovalPolicy),
		sandbox:        p.Sandbox,
		updated:        time.Now(),
	}
	if th.Cwd == "" {
		th.Cwd = c.opts.Process.Dir
	}
	if th.Cwd == "" {
		th.Cwd = "/"
	}
	if th.Model == "" {
		th.Model = FakeModel
	}
	if th.ModelProvider == "" {
		th.ModelProvider = FakeModelProvider
	}
	c.f.mu.Lock()
	c.f.threads[th.ID] = th
	res, thread := c.threadResult(th)
	c.f.mu.Unlock()
	c.mu.Lock()
	c.loaded[th.ID] = true
	c.mu.Unlock()
	c.reply(m.ID, res)
	c.notify(codex.NotifyThreadStarted, map[string]any{"thread": thread})
}

func (c *fakeConn) threadResume(m Message) {
	var p codex.ThreadResumeParams
	if !c.decode(m, &p) {
		return
	}
	c.f.mu.Lock()
	th := c.f.threads[p.ThreadID]
	if th == nil || c.f.failResume {
		c.f.mu.Unlock()
		c.fail(m.ID, codex.CodeInvalidRequest, "no rollout found for thread id %s", p.ThreadID)
		return
	}
	th.Resumes = append(th.Resumes, p)
	if p.Cwd != "" {
		th.Cwd = p.Cwd
	}
	if p.Model != "" {
		th.Model = p.Model
	}
	if p.ModelProvider != "" {
		th.ModelProvider = p.ModelProvider
	}
	if p.ApprovalPolicy != "" {
		th.approvalPolicy = string(p.ApprovalPolicy)
	}
	if p.Sandbox != "" {
		th.sandbox = p.Sandbox
	}
	res, _ := c.threadResult(th)
	c.f.mu.Unlock()
	c.mu.Lock()
	c.loaded[th.ID] = true
	c.mu.Unlock()
	c.notify(codex.NotifyThreadStatusChanged, map[string]any{"threadId": th.ID, "status": map[string]any{"type": "idle"}})
	c.reply(m.ID, res)
}

// threadResult is the answer to thread/start and thread/resume, and the thread itself, shaped as
// codex sends them. The caller holds f.mu.
func (c *fakeConn) threadResult(th *FakeThread) (result, thread map[string]any) {
	now := time.Now()
	thread = map[string]any{
		"id":            th.ID,
		"sessionId":     th.ID,
		"preview":       "",
		"ephemeral":     th.Start.Ephemeral,
		"modelProvider": th.ModelProvider,
		"model":         th.Model,
		"createdAt":     now.Unix(),
		"updatedAt":     now.Unix(),
		"status":        map[string]any{"type": "idle"},
		"path":          c.codexHome() + "/sessions/rollout-" + th.ID + ".jsonl",
		"cwd":           th.Cwd,
		"cliVersion":    fakeVersion,
		"source":        "vscode",
		"turns":         []any{},
	}
	approval := th.approvalPolicy
	if approval == "" {
		approval = codex.ApprovalOnRequest
	}
	result = map[string]any{
		"thread":            thread,
		"model":             th.Model,
		"modelProvider":     th.ModelProvider,
		"cwd":               th.Cwd,
		"approvalPolicy":    approval,
		"approvalsReviewer": "user",
		"sandbox":           sandboxPolicy(th.sandbox),
		"reasoningEffort":   nil,
	}
	return result, thread
}

func (c *fakeConn) turnStart(m Message) {
	var p codex.TurnStartParams
	if !c.decode(m, &p) {
		return
	}
	loaded, running := c.thread(p.ThreadID)
	switch {
	case !loaded:
		c.fail(m.ID, codex.CodeInvalidRequest, "thread not found: %s", p.ThreadID)
		return
	case running != nil && running.Compaction:
		c.fail(m.ID, codex.CodeInvalidRequest, "turn already in progress")
		return
	case running != nil:
		// Codex starts no second turn: the input joins the running one, and the answer names it.
		if !running.steer(prompt(p.Input)) {
			c.fail(m.ID, codex.CodeInternalError, "codextest: too many unread steers")
			return
		}
		c.reply(m.ID, map[string]any{"turn": running.turnJSON(codex.TurnInProgress, false)})
		return
	}

	ft := c.newTurn(p.ThreadID, p, false)
	c.reply(m.ID, map[string]any{"turn": ft.turnJSON(codex.TurnInProgress, false)})
	c.begin(ft, func() { ft.Item(map[string]any{"type": codex.ItemUserMessage, "content": p.Input}) })
}

func (c *fakeConn) threadCompact(m Message) {
	var p codex.ThreadCompactParams
	if !c.decode(m, &p) {
		return
	}
	if !c.idle(m, p.ThreadID) {
		return
	}
	ft := c.newTurn(p.ThreadID, codex.TurnStartParams{ThreadID: p.ThreadID}, true)
	c.reply(m.ID, map[string]any{})
	c.begin(ft, nil)
}

// decode decodes m's params into p, or answers m with codex's "Invalid request" and reports false.
func (c *fakeConn) decode(m Message, p any) bool {
	if err := json.Unmarshal(m.Params, p); err != nil {
		c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: %v", err)
		return false
	}
	return true
}

// thread says whether threadID is loaded on this connection, and its running turn.
func (c *fakeConn) thread(threadID string) (loaded bool, running *FakeTurn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loaded[threadID], c.running[threadID]
}

// begin announces a started turn (thread/status/changed active, turn/started, then what first
// says) and runs its handler: the turn handler, or the compaction handler for a compaction.
func (c *fakeConn) begin(ft *FakeTurn, first func()) {
	c.notify(codex.NotifyThreadStatusChanged, ft.status("active"))
	c.notify(codex.NotifyTurnStarted, map[string]any{"threadId": ft.ThreadID, "turn": ft.turnJSON(codex.TurnInProgress, true)})
	if first != nil {
		first()
	}
	c.f.mu.Lock()
	h := c.f.onTurn
	if ft.Compaction {
		h = c.f.onCompact
	}
	c.f.mu.Unlock()
	c.f.wg.Go(func() { ft.run(h) })
}

// newTurn registers a running turn on a loaded thread.
func (c *fakeConn) newTurn(threadID string, p codex.TurnStartParams, compaction bool) *FakeTurn {
	ft := &FakeTurn{
		ThreadID:    threadID,
		TurnID:      c.f.nextID("turn"),
		Prompt:      prompt(p.Input),
		Params:      p,
		Cwd:         p.Cwd,
		Compaction:  compaction,
		conn:        c,
		started:     time.Now(),
		interrupted: make(chan struct{}),
		steered:     make(chan string, steerBuffer),
	}
	c.f.mu.Lock()
	if th := c.f.threads[threadID]; th != nil {
		th.Turns = append(th.Turns, ft.TurnID)
		if th.played == nil {
			th.played = make(map[string]*FakeTurn)
		}
		th.played[ft.TurnID] = ft
		th.updated = ft.started
		if th.preview == "" && !compaction {
			th.preview = ft.Prompt
		}
		if ft.Cwd == "" {
			ft.Cwd = th.Cwd
		}
	}
	c.f.mu.Unlock()
	c.mu.Lock()
	c.running[threadID] = ft
	c.mu.Unlock()
	return ft
}

func (c *fakeConn) turnSteer(m Message) {
	var p codex.TurnSteerParams
	if !c.decode(m, &p) {
		return
	}
	c.mu.Lock()
	ft := c.running[p.ThreadID]
	c.mu.Unlock()
	c.f.mu.Lock()
	refuse := c.f.refuseSteer
	c.f.mu.Unlock()
	switch {
	case refuse != nil:
		c.fail(m.ID, refuse.Code, "%s", refuse.Message)
	case ft == nil:
		c.fail(m.ID, codex.CodeInvalidRequest, "no active turn to steer")
	case p.ExpectedTurnID != ft.TurnID:
		c.fail(m.ID, codex.CodeInvalidRequest, "expected active turn id `%s` but found `%s`", p.ExpectedTurnID, ft.TurnID)
	case ft.Compaction:
		c.fail(m.ID, codex.CodeInvalidRequest, "cannot steer a compact turn")
	case !ft.steer(prompt(p.Input)):
		c.fail(m.ID, codex.CodeInternalError, "codextest: too many unread steers")
	default:
		c.reply(m.ID, codex.TurnSteerResult{TurnID: ft.TurnID})
	}
}

func (c *fakeConn) turnInterrupt(m Message) {
	var p codex.TurnInterruptParams
	if !c.decode(m, &p) {
		return
	}
	c.f.mu.Lock()
	deaf := c.f.deafToStop
	c.f.mu.Unlock()
	if deaf {
		return // recorded, never answered
	}
	c.mu.Lock()
	ft := c.running[p.ThreadID]
	c.mu.Unlock()
	if ft == nil || ft.TurnID != p.TurnID {
		c.fail(m.ID, codex.CodeInvalidRequest, "no active turn to interrupt")
		return
	}
	c.reply(m.ID, map[string]any{})
	ft.interruptOnce.Do(func() { close(ft.interrupted) })
}

// prompt joins the text of a user's inputs.
func prompt(input []codex.UserInput) string {
	var texts []string
	for _, in := range input {
		if in.Type == "text" {
			texts = append(texts, in.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// steerBuffer is how many steered inputs a turn holds before its handler reads them.
const steerBuffer = 16
