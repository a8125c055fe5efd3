package codextest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
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
// The fake speaks the protocol as codex 0.171.0 does in the recorded transcripts (but for thread/list,
// which pages as every supported release does and ignores includedThreadIds, as releases before
// 0.171.0 do), and checks what the client sends against the oldest supported release's schema (see
// CheckMinSchema): turn/start is
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
	counters    map[string]int     // id prefix -> last number used
	rateLimits  map[string]any     // account/rateLimits/read's answer; nil: it fails
	account     *codex.AccountInfo // account/read's account; nil: signed out
	logins      []string           // the ids of the sign-ins account/login/start began
	loginURL    string             // the page account/login/start answers with; "": FakeAuthURL or FakeVerificationURL
	configModel string             // config/read's model (codex's config.toml); "": none set
	threadPage  int                // the most threads a page of thread/list holds (ThreadPageSize); 0: no cap
	version     string             // the release the fake's userAgent names (SetVersion); "": fakeVersion
	deafToStop  bool               // turn/interrupt is never answered (IgnoreInterrupts)
	answers     []Message          // the client's answers to the fake's requests: the request's method, the result
	unknown     map[string]bool    // methods the fake answered "unknown method": not checked against the schema

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
	// Reverted holds the ids of the turns thread/revert took out of Turns, in order.
	Reverted []string
	// Name is the thread's title (thread/name/set).
	Name string

	updated time.Time            // thread/start, then each turn/start
	preview string               // the first turn's prompt
	played  map[string]*FakeTurn // the turns of Turns (and Reverted) by id, for thread/turns/list

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
	Watchdog(t, WatchdogAfter)
	return f
}

// Start connects a new in-process server and returns a client for it, after the initialize
// handshake; it has the signature of codex.Start, so it can stand in for it. opts are recorded (see
// Starts) and passed to codex.NewClient; opts.Process only feeds what codex would report (its Home
// becomes codexHome, its Dir the default cwd of new threads).
func (f *Fake) Start(ctx context.Context, opts codex.Options) (*codex.Client, error) {
	clientR, clientW, serverR, serverW := Pipes()
	f.mu.Lock()
	f.starts = append(f.starts, opts)
	c := newFakeConn(f, opts, serverR, serverW, f.stallNext)
	f.stallNext = false
	f.conns = append(f.conns, c)
	f.mu.Unlock()
	// codex exits when its input ends: so does the fake's connection.
	f.wg.Go(func() {
		<-c.done()
		c.close()
	})
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
func (f *Fake) OnTurn(h func(ft *FakeTurn)) { f.setHandler(&f.onTurn, h, DefaultTurn) }

// OnCompact sets the handler of compaction turns (thread/compact/start), with the same rules as
// OnTurn. Nil restores DefaultCompaction.
func (f *Fake) OnCompact(h func(ft *FakeTurn)) { f.setHandler(&f.onCompact, h, DefaultCompaction) }

// setHandler sets *slot to h, or to def when h is nil.
func (f *Fake) setHandler(slot *func(*FakeTurn), h, def func(*FakeTurn)) {
	if h == nil {
		h = def
	}
	f.mu.Lock()
	*slot = h
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
	c.out.last(stderr)
	c.close()
}

// Stall makes the current connection stop answering anything: requests are still read and recorded
// (see Requests) but nothing more is written, so calls run into their deadlines. With no open
// connection, the next Start's connection stalls from the beginning, so Start itself times out.
func (f *Fake) Stall() {
	if c := f.current(); c != nil {
		c.out.stall()
		return
	}
	f.mu.Lock()
	f.stallNext = true
	f.mu.Unlock()
}

// SetVersion makes the fake name release version in its answer to initialize (from the next Start
// on), as that codex release would; "" restores the default, 0.171.0.
func (f *Fake) SetVersion(version string) {
	f.mu.Lock()
	f.version = version
	f.mu.Unlock()
}

// IgnoreInterrupts makes the fake record every turn/interrupt from now on and answer none, nor stop
// the turn: as codex up to 0.168.0 treats an interrupt of a turn that has just ended
// (codex.ProblemInterruptUnanswered), whether the turn has ended or not.
func (f *Fake) IgnoreInterrupts() {
	f.mu.Lock()
	f.deafToStop = true
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
		cp.Reverted = slices.Clone(th.Reverted)
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
		case <-c.done():
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
	f.checkSchema()
}

// checkSchema fails the test when the client sent a field (in a request, or an answer to the
// fake's) that the oldest supported codex release does not define: that release would ignore it.
func (f *Fake) checkSchema() {
	schema, err := MinSchema()
	if err != nil {
		f.t.Errorf("codextest: the oldest supported codex's schema: %v", err)
		return
	}
	f.mu.Lock()
	requests, answers := slices.Clone(f.requests), slices.Clone(f.answers)
	unknown := maps.Clone(f.unknown)
	f.mu.Unlock()
	var bad []string
	seen := map[string]bool{}
	report := func(what string, fields []string) {
		for _, field := range fields {
			if line := what + ": " + field; !seen[line] {
				seen[line] = true
				bad = append(bad, line)
			}
		}
	}
	for _, m := range requests {
		if m.IsRequest() && !unknown[m.Method] { // a request, of a method codex has
			report(m.Method, schema.CheckRequest(m.Method, m.Params))
		}
	}
	for _, m := range answers {
		report("the answer to "+m.Method, schema.CheckAnswer(m.Method, m.Result))
	}
	if len(bad) > 0 {
		f.t.Errorf("codextest: the client sent what codex %s, the oldest release hermes-lsp supports, does not define (it would ignore it):\n  %s",
			schema.Version, strings.Join(bad, "\n  "))
	}
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
