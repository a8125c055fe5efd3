package codextest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Fake is a scripted codex app-server that runs in process, for fast tests of code built on
// codex.Client. Each Start is a new "process": a new connection over in-process pipes, with fresh
// state except the threads, which persist across connections the way codex keeps sessions on disk,
// so thread/resume works after a restart. Turns are played by a handler (see OnTurn) that emits
// items, asks for approvals and completes the turn through a FakeTurn.
//
// The fake speaks the protocol as codex 0.171.0 does in the recorded transcripts: turn/start is
// answered at once (status inProgress) and followed by turn/started and the userMessage item;
// approvals are preceded by their item/started and followed by serverRequest/resolved; an interrupted
// turn withdraws its pending approvals after turn/completed; thread/compact/start runs a turn of its
// own with a contextCompaction item; unknown methods are answered with error -32600.
//
// Every method is safe for concurrent use.
type Fake struct {
	t testing.TB

	mu          sync.Mutex
	starts      []codex.Options
	requests    []Message
	arrived     chan struct{} // closed and replaced whenever a request arrives
	threads     map[string]*FakeThread
	onTurn      func(*FakeTurn)
	onCompact   func(*FakeTurn)
	failResume  bool
	refuseSteer *codex.Error // answers every turn/steer, when set
	stallNext   bool
	conns       []*fakeConn
	clients     []*codex.Client
	counters    map[string]int // id prefix -> last number used

	wg sync.WaitGroup // connection read loops and turn handlers
}

// FakeThread is what the fake knows of a thread.
type FakeThread struct {
	// ID is "thread-N".
	ID string
	// Cwd, Model and ModelProvider are the thread's, as thread/start set them (or the defaults) and
	// thread/resume changed them.
	Cwd           string
	Model         string
	ModelProvider string
	// Start holds the params of the thread/start that created the thread.
	Start codex.ThreadStartParams
	// Resumes holds the params of every successful thread/resume of the thread, in order.
	Resumes []codex.ThreadResumeParams
	// Turns holds the ids of the turns run on the thread, compactions included, in order.
	Turns []string

	approvalPolicy string
	sandbox        string
	total          codex.TokenUsage // the running token total ModelCall adds to
}

// Errors a FakeTurn's requests return when they end without an answer.
var (
	// ErrInterrupted says the client interrupted the turn while the request waited.
	ErrInterrupted = errors.New("codextest: turn interrupted")
	// ErrDisconnected says the connection ended (Kill, or the client closed) while the request waited.
	ErrDisconnected = errors.New("codextest: connection ended")
)

// Defaults the fake reports when the client does not choose.
const (
	FakeModel         = "gpt-5.5"
	FakeModelProvider = "openai"
	FakeCodexHome     = "/home/fake/.codex"
	fakeVersion       = "0.171.0"
	defaultWindow     = 258400
)

// NewFake returns a fake with the default turn handler (DefaultTurn) and compaction handler
// (DefaultCompaction). t.Cleanup closes every client Start returned and every connection, and waits
// for every goroutine the fake started: turn handlers must return once their FakeTurn's Done closes.
func NewFake(t testing.TB) *Fake {
	f := &Fake{
		t:         t,
		arrived:   make(chan struct{}),
		threads:   make(map[string]*FakeThread),
		onTurn:    DefaultTurn,
		onCompact: DefaultCompaction,
		counters:  make(map[string]int),
	}
	t.Cleanup(f.close)
	return f
}

// Start connects a new in-process server and returns a client for it, after the initialize
// handshake; it has the signature of codex.Start, so it can stand in for it. opts are recorded (see
// Starts) and passed to codex.NewClient; opts.Process only feeds what codex would report (its Home
// becomes codexHome, its Dir the default cwd of new threads).
func (f *Fake) Start(ctx context.Context, opts codex.Options) (*codex.Client, error) {
	clientR, clientW, serverR, serverW := Pipes()
	c := &fakeConn{
		f:       f,
		opts:    opts,
		r:       serverR,
		w:       serverW,
		done:    make(chan struct{}),
		loaded:  make(map[string]bool),
		running: make(map[string]*FakeTurn),
		pending: make(map[int64]*pendingRequest),
	}
	f.mu.Lock()
	f.starts = append(f.starts, opts)
	if f.stallNext {
		c.stalled.Store(true)
		f.stallNext = false
	}
	f.conns = append(f.conns, c)
	f.mu.Unlock()

	f.wg.Go(c.serve)
	client, err := codex.NewClient(ctx, clientR, clientW, opts)
	if err != nil {
		// NewClient closed its pipes: the connection ends on its own.
		return nil, err
	}
	f.mu.Lock()
	f.clients = append(f.clients, client)
	f.mu.Unlock()
	return client, nil
}

// Starts returns the options of every Start, in order.
func (f *Fake) Starts() []codex.Options {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.starts)
}

// OnTurn sets the handler of the turns that turn/start begins, from the next turn on. It runs in a
// goroutine of its own once turn/started and the userMessage item have been sent. When it returns
// without calling Complete, the turn completes: "interrupted" if the client interrupted it, else
// "completed". It must return soon after ft.Done closes. Nil restores DefaultTurn.
func (f *Fake) OnTurn(h func(ft *FakeTurn)) {
	if h == nil {
		h = DefaultTurn
	}
	f.mu.Lock()
	f.onTurn = h
	f.mu.Unlock()
}

// OnCompact sets the handler of compaction turns (thread/compact/start), with the same rules as
// OnTurn. Nil restores DefaultCompaction.
func (f *Fake) OnCompact(h func(ft *FakeTurn)) {
	if h == nil {
		h = DefaultCompaction
	}
	f.mu.Lock()
	f.onCompact = h
	f.mu.Unlock()
}

// DefaultTurn is the default turn handler: one agent message "ok", one model call's token usage
// (ModelCall), and the turn completes.
func DefaultTurn(ft *FakeTurn) {
	ft.AgentMessage("ok")
	u := codex.TokenUsage{InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 34, ReasoningOutputTokens: 7, TotalTokens: 1234}
	ft.ModelCall(u, defaultWindow)
	ft.Complete(codex.TurnCompleted, nil)
}

// DefaultCompaction is the default compaction handler: a contextCompaction item, and the turn
// completes.
func DefaultCompaction(ft *FakeTurn) {
	ft.Item(map[string]any{"type": codex.ItemContextCompaction})
	ft.Complete(codex.TurnCompleted, nil)
}

// Requests returns every request and notification the clients sent, in order, across connections.
// Answers to the fake's own requests are not included.
func (f *Fake) Requests() []Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// WaitRequest blocks until the n-th request or notification (counting from 1) with method has
// arrived, on any connection, and returns it; or until ctx ends.
func (f *Fake) WaitRequest(ctx context.Context, method string, n int) (Message, error) {
	for {
		f.mu.Lock()
		seen := 0
		for _, m := range f.requests {
			if m.Method == method {
				seen++
				if seen == n {
					f.mu.Unlock()
					return m, nil
				}
			}
		}
		arrived := f.arrived
		f.mu.Unlock()
		select {
		case <-arrived:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("waiting for %s #%d (seen %d): %w", method, n, seen, context.Cause(ctx))
		}
	}
}

// Kill ends the current process: the last connection started that is still open. The lines are
// written to the client first as plain text, which the client keeps as codex's last words (see
// codex.Client.StderrTail); then both pipes close, so the client sees its output end and its writes
// fail. Turn handlers of the connection see Done close. Kill does nothing when no connection is open.
func (f *Fake) Kill(stderr ...string) {
	c := f.current()
	if c == nil {
		return
	}
	c.wmu.Lock()
	if !c.dead {
		for _, line := range stderr {
			_, _ = io.WriteString(c.w, line+"\n")
		}
		c.dead = true
	}
	c.wmu.Unlock()
	c.close()
}

// Stall makes the current connection stop answering anything: requests are still read and recorded
// (see Requests) but nothing more is written, so calls run into their deadlines. With no open
// connection, the next Start's connection stalls from the beginning, so Start itself times out.
func (f *Fake) Stall() {
	if c := f.current(); c != nil {
		c.stalled.Store(true)
		return
	}
	f.mu.Lock()
	f.stallNext = true
	f.mu.Unlock()
}

// FailResume makes thread/resume fail (or succeed again, with false) as codex does when it finds no
// rollout for the thread: error -32600 "no rollout found for thread id <id>".
func (f *Fake) FailResume(fail bool) {
	f.mu.Lock()
	f.failResume = fail
	f.mu.Unlock()
}

// RefuseSteers makes every turn/steer fail with code and message (as codex does when it cannot take
// the input, e.g. an internal error), whatever the turn's state; code 0 answers steers normally
// again.
func (f *Fake) RefuseSteers(code int64, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if code == 0 {
		f.refuseSteer = nil
		return
	}
	f.refuseSteer = &codex.Error{Code: code, Message: message}
}

// Threads returns the threads the fake knows, by id.
func (f *Fake) Threads() map[string]FakeThread {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]FakeThread, len(f.threads))
	for id, th := range f.threads {
		cp := *th
		cp.Resumes = slices.Clone(th.Resumes)
		cp.Turns = slices.Clone(th.Turns)
		out[id] = cp
	}
	return out
}

// current returns the last connection started that is still open, or nil.
func (f *Fake) current() *fakeConn {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range slices.Backward(f.conns) {
		select {
		case <-c.done:
		default:
			return c
		}
	}
	return nil
}

// close ends everything the fake started and waits for its goroutines.
func (f *Fake) close() {
	f.mu.Lock()
	clients, conns := slices.Clone(f.clients), slices.Clone(f.conns)
	f.mu.Unlock()
	for _, c := range clients {
		_ = c.Close()
	}
	for _, c := range conns {
		c.close()
	}
	f.wg.Wait()
}

func (f *Fake) record(m Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, m)
	close(f.arrived)
	f.arrived = make(chan struct{})
}

// nextID returns prefix_N (thread-N and turn-N for threads and turns), N counting up per prefix
// across connections.
func (f *Fake) nextID(prefix string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counters[prefix]++
	sep := "_"
	if prefix == "thread" || prefix == "turn" {
		sep = "-"
	}
	return prefix + sep + strconv.Itoa(f.counters[prefix])
}

// fakeConn is one "process": the server side of one connection.
type fakeConn struct {
	f    *Fake
	opts codex.Options
	r    *io.PipeReader
	w    *io.PipeWriter

	wmu     sync.Mutex // serialises writes, one line at a time
	dead    bool       // no more writes; guarded by wmu
	stalled atomic.Bool

	done      chan struct{}
	closeOnce sync.Once

	mu          sync.Mutex
	initialized bool
	loaded      map[string]bool      // threads started or resumed on this connection
	running     map[string]*FakeTurn // thread id -> its running turn
	nextReq     int64
	pending     map[int64]*pendingRequest
}

type pendingRequest struct {
	answer chan Message // buffered: one answer
}

// outMessage is a message the fake writes, shaped as codex writes them (no "jsonrpc" member).
type outMessage struct {
	ID          json.RawMessage `json:"id,omitempty"`
	Method      string          `json:"method,omitempty"`
	Params      any             `json:"params,omitempty"`
	Result      any             `json:"result,omitempty"`
	Error       *codex.Error    `json:"error,omitempty"`
	EmittedAtMs int64           `json:"emittedAtMs,omitempty"`
}

// serve reads the client's messages until its input ends, then closes the connection, as codex exits
// when its stdin closes.
func (c *fakeConn) serve() {
	defer c.close()
	sc := bufio.NewScanner(c.r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue // codex logs and skips a line it cannot parse
		}
		c.handle(m)
	}
}

// close ends the connection once: the client sees its output end, handlers see Done.
func (c *fakeConn) close() {
	c.closeOnce.Do(func() {
		// Closing first unblocks a write in progress, so the lock below is free soon.
		_ = c.w.Close()
		_ = c.r.Close()
		c.wmu.Lock()
		c.dead = true
		c.wmu.Unlock()
		close(c.done)
	})
}

func (c *fakeConn) send(m outMessage) {
	line, err := json.Marshal(m)
	if err != nil {
		c.f.t.Errorf("codextest: encode %s: %v", m.Method, err)
		return
	}
	line = append(line, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dead || c.stalled.Load() {
		return
	}
	_, _ = c.w.Write(line) // fails only when the client has gone
}

func (c *fakeConn) notify(method string, params any) {
	c.send(outMessage{Method: method, Params: params, EmittedAtMs: time.Now().UnixMilli()})
}

func (c *fakeConn) reply(id json.RawMessage, result any) {
	c.send(outMessage{ID: id, Result: result})
}

func (c *fakeConn) fail(id json.RawMessage, code int64, format string, args ...any) {
	c.send(outMessage{ID: id, Error: codex.Errorf(code, format, args...)})
}

// handle answers one message of the client. It runs on the read loop, so answers and the
// notifications that follow them go out in order.
func (c *fakeConn) handle(m Message) {
	if m.IsResponse() {
		c.answered(m)
		return
	}
	if m.Method == "" {
		return
	}
	c.f.record(m)
	if c.stalled.Load() || m.IsNotification() {
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
	default:
		c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: unknown method `%s`", m.Method)
	}
}

// answered delivers the client's answer to a request of the fake.
func (c *fakeConn) answered(m Message) {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	p := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if p != nil {
		p.answer <- m
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
	c.reply(m.ID, codex.InitializeResult{
		UserAgent:      fmt.Sprintf("%s/%s (codextest fake) (%s; %s)", name, fakeVersion, name, p.ClientInfo.Version),
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
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: %v", err)
		return
	}
	th := &FakeThread{
		ID:             c.f.nextID("thread"),
		Cwd:            p.Cwd,
		Model:          p.Model,
		ModelProvider:  p.ModelProvider,
		Start:          p,
		approvalPolicy: p.ApprovalPolicy,
		sandbox:        p.Sandbox,
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
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: %v", err)
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
		th.approvalPolicy = p.ApprovalPolicy
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

func sandboxPolicy(mode string) map[string]any {
	switch mode {
	case codex.SandboxWorkspaceWrite:
		return map[string]any{"type": "workspaceWrite", "writableRoots": []string{}, "networkAccess": false,
			"excludeTmpdirEnvVar": false, "excludeSlashTmp": false}
	case codex.SandboxFullAccess:
		return map[string]any{"type": "dangerFullAccess"}
	default:
		return map[string]any{"type": "readOnly"}
	}
}

func (c *fakeConn) turnStart(m Message) {
	var p codex.TurnStartParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: %v", err)
		return
	}
	c.mu.Lock()
	loaded, running := c.loaded[p.ThreadID], c.running[p.ThreadID]
	c.mu.Unlock()
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
	c.notify(codex.NotifyThreadStatusChanged, ft.status("active"))
	c.notify(codex.NotifyTurnStarted, map[string]any{"threadId": ft.ThreadID, "turn": ft.turnJSON(codex.TurnInProgress, true)})
	ft.Item(map[string]any{"type": codex.ItemUserMessage, "content": p.Input})
	c.f.mu.Lock()
	h := c.f.onTurn
	c.f.mu.Unlock()
	c.f.wg.Go(func() { ft.run(h) })
}

func (c *fakeConn) threadCompact(m Message) {
	var p codex.ThreadCompactParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: %v", err)
		return
	}
	c.mu.Lock()
	loaded, running := c.loaded[p.ThreadID], c.running[p.ThreadID]
	c.mu.Unlock()
	switch {
	case !loaded:
		c.fail(m.ID, codex.CodeInvalidRequest, "thread not found: %s", p.ThreadID)
		return
	case running != nil:
		c.fail(m.ID, codex.CodeInvalidRequest, "turn already in progress")
		return
	}
	ft := c.newTurn(p.ThreadID, codex.TurnStartParams{ThreadID: p.ThreadID}, true)
	c.reply(m.ID, map[string]any{})
	c.notify(codex.NotifyThreadStatusChanged, ft.status("active"))
	c.notify(codex.NotifyTurnStarted, map[string]any{"threadId": ft.ThreadID, "turn": ft.turnJSON(codex.TurnInProgress, true)})
	c.f.mu.Lock()
	h := c.f.onCompact
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
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: %v", err)
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
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: %v", err)
		return
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

// FakeTurn is a running turn, as its handler sees it: what the client asked for, and the means to
// play the turn. Its methods write notifications in the order they are called; after the connection
// ended they do nothing (requests return ErrDisconnected).
type FakeTurn struct {
	// ThreadID is the turn's thread; TurnID is "turn-N", unique across connections.
	ThreadID string
	TurnID   string
	// Prompt is the text of the turn's input (for a compaction, "").
	Prompt string
	// Params are the params of turn/start (for a compaction, only the thread id).
	Params codex.TurnStartParams
	// Cwd is the turn's working directory: the params' or the thread's.
	Cwd string
	// Compaction says the turn was started by thread/compact/start.
	Compaction bool

	conn          *fakeConn
	started       time.Time
	interrupted   chan struct{}
	interruptOnce sync.Once
	steered       chan string

	mu          sync.Mutex
	completed   bool
	lastMessage map[string]any // the last completed agentMessage item
	withdraw    []int64        // approvals left unanswered by an interrupt, resolved after turn/completed
}

// run plays the turn with h and completes it if h did not.
func (ft *FakeTurn) run(h func(*FakeTurn)) {
	h(ft)
	ft.mu.Lock()
	completed := ft.completed
	ft.mu.Unlock()
	if completed {
		return
	}
	select {
	case <-ft.interrupted:
		ft.Complete(codex.TurnInterrupted, nil)
	default:
		ft.Complete(codex.TurnCompleted, nil)
	}
}

// Done is closed when the turn's connection has ended (Kill, or the client closed): the handler must
// return.
func (ft *FakeTurn) Done() <-chan struct{} { return ft.conn.done }

// Interrupted is closed when the client sends turn/interrupt for this turn. The fake has answered it;
// completing the turn is the handler's business (see CompleteOnInterrupt).
func (ft *FakeTurn) Interrupted() <-chan struct{} { return ft.interrupted }

// Steered delivers the text of every turn/steer for this turn, and of every turn/start sent while it
// runs (codex adds such input to the running turn). The fake has answered them.
func (ft *FakeTurn) Steered() <-chan string { return ft.steered }

// CompleteOnInterrupt waits until the client interrupts the turn, then completes it "interrupted",
// and reports true; or reports false when the connection ends first.
func (ft *FakeTurn) CompleteOnInterrupt() bool {
	select {
	case <-ft.interrupted:
		ft.Complete(codex.TurnInterrupted, nil)
		return true
	case <-ft.conn.done:
		return false
	}
}

func (ft *FakeTurn) steer(text string) bool {
	select {
	case ft.steered <- text:
		return true
	default:
		return false
	}
}

// Notify sends a notification. params gets the turn's threadId and turnId unless it has them; the
// message gets emittedAtMs, as codex's do.
func (ft *FakeTurn) Notify(method string, params map[string]any) {
	ft.conn.notify(method, ft.fill(params))
}

func (ft *FakeTurn) fill(params map[string]any) map[string]any {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	if _, ok := p["threadId"]; !ok {
		p["threadId"] = ft.ThreadID
	}
	if _, ok := p["turnId"]; !ok {
		p["turnId"] = ft.TurnID
	}
	return p
}

// Item sends item/started then item/completed for item, and returns its id. See StartItem.
func (ft *FakeTurn) Item(item map[string]any) string {
	id := ft.StartItem(item)
	done := maps.Clone(item)
	done["id"] = id
	ft.CompleteItem(done)
	return id
}

// StartItem sends item/started and returns the item's id. A missing id is made up from the type
// (msg_N, rs_N, call_N, ...); a missing status is "inProgress" for the types that have one.
func (ft *FakeTurn) StartItem(item map[string]any) string {
	it := ft.complete(item, codex.ItemInProgress)
	ft.Notify(codex.NotifyItemStarted, map[string]any{"item": it, "startedAtMs": time.Now().UnixMilli()})
	return it["id"].(string)
}

// CompleteItem sends item/completed. A missing status is "completed" for the types that have one.
// The last completed agentMessage is the turn's summary in turn/completed.
func (ft *FakeTurn) CompleteItem(item map[string]any) {
	it := ft.complete(item, codex.ItemCompleted)
	if it["type"] == codex.ItemAgentMessage {
		ft.mu.Lock()
		ft.lastMessage = it
		ft.mu.Unlock()
	}
	ft.Notify(codex.NotifyItemCompleted, map[string]any{"item": it, "completedAtMs": time.Now().UnixMilli()})
}

// complete returns a copy of item with its id and status filled in.
func (ft *FakeTurn) complete(item map[string]any, status string) map[string]any {
	it := maps.Clone(item)
	if it == nil {
		it = map[string]any{}
	}
	typ, _ := it["type"].(string)
	if id, _ := it["id"].(string); id == "" {
		it["id"] = ft.conn.f.nextID(idPrefix(typ))
	}
	if _, ok := it["status"]; !ok && hasStatus(typ) {
		it["status"] = status
	}
	return it
}

func idPrefix(itemType string) string {
	switch itemType {
	case codex.ItemAgentMessage:
		return "msg"
	case codex.ItemReasoning:
		return "rs"
	case codex.ItemUserMessage:
		return "user"
	case codex.ItemContextCompaction:
		return "compact"
	case codex.ItemCommandExecution, codex.ItemFileChange, codex.ItemMcpToolCall, codex.ItemDynamicToolCall:
		return "call"
	default:
		return "item"
	}
}

func hasStatus(itemType string) bool {
	switch itemType {
	case codex.ItemCommandExecution, codex.ItemFileChange, codex.ItemMcpToolCall, codex.ItemDynamicToolCall:
		return true
	}
	return false
}

// AgentMessage sends an agentMessage item: started, the text in a few item/agentMessage/delta, and
// completed with the whole text. It returns the item's id (msg_1, msg_2, ...).
func (ft *FakeTurn) AgentMessage(text string) string {
	id := ft.conn.f.nextID("msg")
	ft.StartItem(map[string]any{"type": codex.ItemAgentMessage, "id": id, "text": "", "phase": nil})
	for _, d := range chunks(text) {
		ft.Notify(codex.NotifyAgentMessageDelta, map[string]any{"itemId": id, "delta": d})
	}
	ft.CompleteItem(map[string]any{"type": codex.ItemAgentMessage, "id": id, "text": text, "phase": nil})
	return id
}

// Reasoning sends a reasoning item whose summary streams in item/reasoning/summaryTextDelta. It
// returns the item's id.
func (ft *FakeTurn) Reasoning(summary string) string {
	id := ft.conn.f.nextID("rs")
	ft.StartItem(map[string]any{"type": codex.ItemReasoning, "id": id, "summary": []string{}, "content": []string{}})
	ft.Notify("item/reasoning/summaryPartAdded", map[string]any{"itemId": id, "summaryIndex": 0})
	for _, d := range chunks(summary) {
		ft.Notify(codex.NotifyReasoningSummaryDelta, map[string]any{"itemId": id, "delta": d, "summaryIndex": 0})
	}
	ft.CompleteItem(map[string]any{"type": codex.ItemReasoning, "id": id, "summary": []string{summary}, "content": []string{}})
	return id
}

// chunks splits text into at most three deltas at word boundaries.
func chunks(text string) []string {
	words := strings.SplitAfter(text, " ")
	if text == "" {
		return nil
	}
	per := (len(words) + 2) / 3
	var out []string
	for i := 0; i < len(words); i += per {
		out = append(out, strings.Join(words[i:min(i+per, len(words))], ""))
	}
	return out
}

// Exec sends a commandExecution item that ran command: started, its output in one
// item/commandExecution/outputDelta, and completed (status "failed" for a non-zero exit code). It
// returns the item's id.
func (ft *FakeTurn) Exec(command string, exitCode int, output string) string {
	id := ft.conn.f.nextID("call")
	ft.StartItem(ft.command(id, command))
	ft.finishExec(id, command, exitCode, output)
	return id
}

func (ft *FakeTurn) command(id, command string) map[string]any {
	return map[string]any{
		"type": codex.ItemCommandExecution, "id": id, "command": command, "cwd": ft.Cwd,
		"processId": nil, "source": "agent", "status": codex.ItemInProgress,
		"commandActions":   []map[string]any{{"type": "unknown", "command": command}},
		"aggregatedOutput": nil, "exitCode": nil, "durationMs": nil,
	}
}

func (ft *FakeTurn) finishExec(id, command string, exitCode int, output string) {
	if output != "" {
		ft.Notify(codex.NotifyCommandOutputDelta, map[string]any{"itemId": id, "delta": output})
	}
	it := ft.command(id, command)
	it["status"] = codex.ItemCompleted
	if exitCode != 0 {
		it["status"] = codex.ItemFailed
	}
	it["aggregatedOutput"], it["exitCode"], it["durationMs"] = output, exitCode, 1
	ft.CompleteItem(it)
}

// Usage sends thread/tokenUsage/updated: the last model call's usage, the thread's total, and the
// context window (0 sends null).
func (ft *FakeTurn) Usage(last, total codex.TokenUsage, window int64) {
	var w any
	if window != 0 {
		w = window
	}
	ft.Notify(codex.NotifyTokenUsageUpdated, map[string]any{
		"tokenUsage": map[string]any{"last": last, "total": total, "modelContextWindow": w},
	})
}

// ModelCall reports one model request's usage as codex does: last is the call's own, total the
// thread's running total with it added (kept per thread, across turns and connections).
func (ft *FakeTurn) ModelCall(last codex.TokenUsage, window int64) {
	f := ft.conn.f
	f.mu.Lock()
	var total codex.TokenUsage
	if th := f.threads[ft.ThreadID]; th != nil {
		th.total = addTokens(th.total, last)
		total = th.total
	}
	f.mu.Unlock()
	ft.Usage(last, total, window)
}

// ResendUsage sends the thread's running total again with last, as codex does when a turn starts
// (before any model call of that turn).
func (ft *FakeTurn) ResendUsage(last codex.TokenUsage, window int64) {
	f := ft.conn.f
	f.mu.Lock()
	var total codex.TokenUsage
	if th := f.threads[ft.ThreadID]; th != nil {
		total = th.total
	}
	f.mu.Unlock()
	ft.Usage(last, total, window)
}

func addTokens(a, b codex.TokenUsage) codex.TokenUsage {
	return codex.TokenUsage{
		InputTokens:           a.InputTokens + b.InputTokens,
		CachedInputTokens:     a.CachedInputTokens + b.CachedInputTokens,
		CacheWriteInputTokens: a.CacheWriteInputTokens + b.CacheWriteInputTokens,
		OutputTokens:          a.OutputTokens + b.OutputTokens,
		ReasoningOutputTokens: a.ReasoningOutputTokens + b.ReasoningOutputTokens,
		TotalTokens:           a.TotalTokens + b.TotalTokens,
	}
}

// RequestExecApproval asks the client to approve command, as codex does: the commandExecution
// item/started, then item/commandExecution/requestApproval, then, once answered,
// serverRequest/resolved. An accepted command completes at once (exit code 0, no output); a declined
// or cancelled one completes "declined". It returns the decision (for an object decision, its key).
// See ExecWithApproval for the errors.
func (ft *FakeTurn) RequestExecApproval(command string) (decision string, err error) {
	return ft.ExecWithApproval(command, 0, "")
}

// ExecWithApproval is RequestExecApproval for a command that, once accepted, exits with exitCode and
// prints output. The error is an answer with an error (*codex.Error), ErrInterrupted when the client
// interrupted the turn first (the request is withdrawn with serverRequest/resolved after
// turn/completed, and the item is left open, as codex does), or ErrDisconnected.
func (ft *FakeTurn) ExecWithApproval(command string, exitCode int, output string) (decision string, err error) {
	id := ft.conn.f.nextID("call")
	ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("active", "waitingOnApproval"))
	ft.StartItem(ft.command(id, command))
	decision, err = ft.approval(codex.RequestCommandApproval, map[string]any{
		"kind": "command", "itemId": id, "startedAtMs": time.Now().UnixMilli(), "environmentId": "local",
		"command": command, "cwd": ft.Cwd,
		"commandActions":              []map[string]any{{"type": "unknown", "command": command}},
		"proposedExecpolicyAmendment": strings.Fields(command),
		"availableDecisions":          []string{codex.DecisionAccept, codex.DecisionAcceptForSession, codex.DecisionDecline, codex.DecisionCancel},
	})
	if err != nil {
		return "", err
	}
	if accepted(decision) {
		ft.finishExec(id, command, exitCode, output)
	} else {
		it := ft.command(id, command)
		it["status"] = codex.ItemDeclined
		ft.CompleteItem(it)
	}
	return decision, nil
}

// RequestPatchApproval asks the client to approve a patch, as codex does: the fileChange item/started
// with the changes, then item/fileChange/requestApproval (reason and grantRoot null when empty),
// then, once answered, serverRequest/resolved; the item completes "completed" or "declined". Its
// results are those of ExecWithApproval.
func (ft *FakeTurn) RequestPatchApproval(changes []codex.FileChange, reason, grantRoot string) (string, error) {
	id := ft.conn.f.nextID("call")
	item := map[string]any{"type": codex.ItemFileChange, "id": id, "changes": changes}
	ft.StartItem(item)
	ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("active", "waitingOnApproval"))
	decision, err := ft.approval(codex.RequestFileChangeApproval, map[string]any{
		"itemId": id, "startedAtMs": time.Now().UnixMilli(), "reason": nullIfEmpty(reason), "grantRoot": nullIfEmpty(grantRoot),
	})
	if err != nil {
		return "", err
	}
	item["status"] = codex.ItemDeclined
	if accepted(decision) {
		item["status"] = codex.ItemCompleted
	}
	ft.CompleteItem(item)
	return decision, nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func accepted(decision string) bool {
	return strings.HasPrefix(decision, codex.DecisionAccept)
}

// approval sends an approval request and reads the decision; resolved or withdrawn, as codex does.
func (ft *FakeTurn) approval(method string, params map[string]any) (string, error) {
	id, raw, rpcErr, err := ft.request(method, params, true)
	if err != nil {
		return "", err
	}
	ft.conn.notify(codex.NotifyServerRequestResolved, map[string]any{"threadId": ft.ThreadID, "requestId": id})
	ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("active"))
	if rpcErr != nil {
		return "", rpcErr
	}
	var res struct {
		Decision json.RawMessage `json:"decision"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("codextest: %s answer %s: %w", method, raw, err)
	}
	var s string
	if json.Unmarshal(res.Decision, &s) == nil {
		return s, nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(res.Decision, &obj) == nil && len(obj) == 1 {
		for k := range obj {
			return k, nil
		}
	}
	return "", fmt.Errorf("codextest: %s answer %s has no decision", method, raw)
}

// Request sends any server request (params get threadId and turnId unless they have them) and waits
// for the answer: its result, or its error. The error is ErrInterrupted when the client interrupted
// the turn first, ErrDisconnected when the connection ended. No serverRequest/resolved is sent.
func (ft *FakeTurn) Request(method string, params map[string]any) (json.RawMessage, *codex.Error, error) {
	_, raw, rpcErr, err := ft.request(method, params, false)
	return raw, rpcErr, err
}

func (ft *FakeTurn) request(method string, params map[string]any, withdrawable bool) (int64, json.RawMessage, *codex.Error, error) {
	c := ft.conn
	p := &pendingRequest{answer: make(chan Message, 1)}
	c.mu.Lock()
	id := c.nextReq
	c.nextReq++
	c.pending[id] = p
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}

	c.send(outMessage{ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method, Params: ft.fill(params)})
	select {
	case m := <-p.answer:
		if len(m.Error) > 0 {
			var e codex.Error
			if err := json.Unmarshal(m.Error, &e); err != nil {
				return id, nil, nil, fmt.Errorf("codextest: %s error answer %s: %w", method, m.Error, err)
			}
			return id, nil, &e, nil
		}
		return id, m.Result, nil, nil
	case <-ft.interrupted:
		forget()
		if withdrawable {
			ft.mu.Lock()
			ft.withdraw = append(ft.withdraw, id)
			ft.mu.Unlock()
		}
		return id, nil, nil, ErrInterrupted
	case <-c.done:
		forget()
		return id, nil, nil, ErrDisconnected
	}
}

// Complete ends the turn with status (completed, interrupted or failed): for a failed turn with an
// error, thread/status/changed systemError and the error notification first; then turn/completed,
// whose items are the last agent message for a completed turn; then serverRequest/resolved for
// approvals the interrupt left unanswered. Only the first call counts.
func (ft *FakeTurn) Complete(status string, turnErr *codex.TurnError) {
	ft.mu.Lock()
	if ft.completed {
		ft.mu.Unlock()
		return
	}
	ft.completed = true
	last, withdraw := ft.lastMessage, ft.withdraw
	ft.mu.Unlock()

	// The turn stops running before the client can know, so its next turn/start is a new turn.
	c := ft.conn
	c.mu.Lock()
	if c.running[ft.ThreadID] == ft {
		delete(c.running, ft.ThreadID)
	}
	c.mu.Unlock()

	if status == codex.TurnFailed && turnErr != nil {
		ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("systemError"))
		ft.Notify(codex.NotifyError, map[string]any{"error": turnErr, "willRetry": false})
	} else {
		ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("idle"))
	}
	turn := ft.turnJSON(status, true)
	now := time.Now()
	turn["completedAt"] = now.Unix()
	turn["durationMs"] = now.Sub(ft.started).Milliseconds()
	turn["error"] = turnErr
	if status == codex.TurnCompleted && last != nil {
		turn["items"] = []any{last}
		turn["itemsView"] = "summary"
	}
	c.notify(codex.NotifyTurnCompleted, map[string]any{"threadId": ft.ThreadID, "turn": turn})
	for _, id := range withdraw {
		c.notify(codex.NotifyServerRequestResolved, map[string]any{"threadId": ft.ThreadID, "requestId": id})
	}
}

// turnJSON is the turn as codex sends it while it runs.
func (ft *FakeTurn) turnJSON(status string, started bool) map[string]any {
	var startedAt any
	if started {
		startedAt = ft.started.Unix()
	}
	return map[string]any{
		"id": ft.TurnID, "items": []any{}, "itemsView": "notLoaded", "status": status, "error": nil,
		"startedAt": startedAt, "completedAt": nil, "durationMs": nil,
	}
}

// status is the params of thread/status/changed for the turn's thread.
func (ft *FakeTurn) status(typ string, flags ...string) map[string]any {
	st := map[string]any{"type": typ}
	if typ == "active" {
		st["activeFlags"] = append([]string{}, flags...)
	}
	return map[string]any{"threadId": ft.ThreadID, "status": st}
}
