// Package acptest is a scripted ACP agent for tests of code built on package acp, as
// codex/codextest is for code built on package codex. It runs in process, over a pair of pipes
// (Agent.Connect), or as a process of its own: the test binary, started by the command line Command
// gives (see Main).
//
// A test scripts what the agent does with each prompt (Agent.OnPrompt): stream the answer and its
// reasoning, tool calls and their updates (kind, title, status, locations, diffs), the plan and the
// usage, ask for a permission and see the outcome, read and write files through the client, wait
// for session/cancel, and answer with a stop reason. Sessions persist across connections, as an
// agent keeps them on disk: session/load replays a session's updates, session/resume does not,
// session/list pages through them. The agent records everything the client sent (Received) and
// answered (Answers), and advertises what its Config says.
package acptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
)

// Config is what the agent advertises and how it behaves. The zero Config advertises nothing
// optional: no session/load, list, resume or close, no sign-in.
type Config struct {
	// Name and Version are the agent's agentInfo; defaults "acptest" and "1.0.0".
	Name, Version string
	// ProtocolVersion is the version initialize answers with; 0 is acp.Version.
	ProtocolVersion int64
	// LoadSession, List, Resume and Close advertise session/load and sessionCapabilities' list,
	// resume and close.
	LoadSession, List, Resume, Close bool
	// AuthMethods are the sign-in methods initialize offers. With RequireAuth, every session method
	// fails with acp.ErrorCodeAuthenticationRequired until authenticate names one of them.
	AuthMethods []acp.AuthMethod
	RequireAuth bool
	// Modes and ConfigOptions are what a new or loaded session offers.
	Modes         *acp.SessionModeState
	ConfigOptions []acp.SessionConfigOption
	// PageSize is the most sessions a page of session/list holds; 0 is no cap.
	PageSize int
}

// Message is a message the client sent: a request (ID set), a notification, or its answer to one
// of the agent's requests (Result or Error set, Method naming the request).
type Message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *acp.Error
}

// Session is what the agent knows of a session.
type Session struct {
	ID  string
	Cwd string
	// MCPServers are those session/new (or the last load or resume) gave.
	MCPServers []acp.MCPServer
	// Title is what session/list shows.
	Title string
	// History holds the session's updates, the user's prompts among them (user_message_chunk), in
	// order: what session/load replays.
	History []acp.SessionUpdate
	// Loads and Resumes count the session's session/load and session/resume.
	Loads, Resumes int

	updated int // when the session was last changed, counting the agent's changes
}

// Errors a Turn's requests return when they end without an answer.
var (
	// ErrDisconnected says the connection ended (Kill, or the client closed) while a request waited.
	ErrDisconnected = errors.New("acptest: connection ended")
)

// Agent is a scripted ACP agent. Every method is safe for concurrent use.
type Agent struct {
	t    testing.TB // nil in a process of its own (Main)
	cfg  Config
	exit func(lines []string) // how Turn.Crash ends the agent

	mu       sync.Mutex
	sessions map[string]*Session
	order    []string // session ids, oldest first
	changes  int      // the agent's clock for Session.updated
	onPrompt func(*Turn) string
	received []Message
	answers  []Message
	arrived  chan struct{} // closed and replaced whenever the client sends something
	conns    []*conn
	clients  []*acp.Client

	wg sync.WaitGroup // connection watchers and turns
}

// NewAgent returns an agent configured by cfg whose prompts play DefaultPrompt. t.Cleanup closes
// every client Connect returned and every connection, and waits for every goroutine the agent
// started: prompt handlers must return once their Turn's Done closes.
func NewAgent(t testing.TB, cfg Config) *Agent {
	a := newAgent(cfg)
	a.t = t
	t.Cleanup(a.close)
	return a
}

func newAgent(cfg Config) *Agent {
	if cfg.Name == "" {
		cfg.Name = "acptest"
	}
	if cfg.Version == "" {
		cfg.Version = "1.0.0"
	}
	if cfg.ProtocolVersion == 0 {
		cfg.ProtocolVersion = int64(acp.Version)
	}
	a := &Agent{cfg: cfg, sessions: map[string]*Session{}, onPrompt: DefaultPrompt, arrived: make(chan struct{})}
	a.exit = func([]string) {} // replaced by Connect's connection and by Main
	return a
}

// DefaultPrompt is the default prompt handler: one agent_message_chunk "ok", and the turn ends
// (end_turn, or cancelled when the client cancelled it).
func DefaultPrompt(t *Turn) string {
	t.Message("ok")
	return t.StopReason(acp.StopReasonEndTurn)
}

// OnPrompt sets what the agent does with each prompt, from the next one on: h runs on a goroutine
// of its own, streams through the Turn and returns the stop reason session/prompt answers with. It
// must return soon after the Turn's Done closes. Nil restores DefaultPrompt.
func (a *Agent) OnPrompt(h func(t *Turn) string) {
	if h == nil {
		h = DefaultPrompt
	}
	a.mu.Lock()
	a.onPrompt = h
	a.mu.Unlock()
}

// Connect connects a new in-process agent and returns a client for it, after the initialize
// handshake (acp.New with opts); the client is closed when the test ends.
func (a *Agent) Connect(ctx context.Context, opts acp.Options) (*acp.Client, error) {
	clientR, serverW := pipe()
	serverR, clientW := pipe()
	c := a.serve(serverR, serverW)
	client, err := acp.New(ctx, clientR, clientW, opts)
	if err != nil {
		c.close()
		return nil, err
	}
	a.mu.Lock()
	a.clients = append(a.clients, client)
	a.mu.Unlock()
	return client, nil
}

// Received returns every request and notification the client sent, in order, across connections.
func (a *Agent) Received() []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.received)
}

// Answers returns the client's answers to the agent's requests, in order.
func (a *Agent) Answers() []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.answers)
}

// WaitReceived blocks until the n-th request or notification (counting from 1) with method has
// arrived, on any connection, and returns it; or until ctx ends.
func (a *Agent) WaitReceived(ctx context.Context, method string, n int) (Message, error) {
	for {
		a.mu.Lock()
		seen := 0
		for _, m := range a.received {
			if m.Method == method {
				if seen++; seen == n {
					a.mu.Unlock()
					return m, nil
				}
			}
		}
		arrived := a.arrived
		a.mu.Unlock()
		select {
		case <-arrived:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("waiting for %s #%d (seen %d): %w", method, n, seen, context.Cause(ctx))
		}
	}
}

// Sessions returns the sessions the agent knows, by id.
func (a *Agent) Sessions() map[string]Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]Session, len(a.sessions))
	for id, s := range a.sessions {
		cp := *s
		cp.History = slices.Clone(s.History)
		cp.MCPServers = slices.Clone(s.MCPServers)
		out[id] = cp
	}
	return out
}

// AddSession makes the agent know a session from an earlier run: in the folder cwd, with the title
// and the updates given (what session/load replays). It returns its id.
func (a *Agent) AddSession(cwd, title string, history ...acp.SessionUpdate) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.newSessionLocked(cwd)
	s.Title, s.History = title, slices.Clone(history)
	return s.ID
}

// Kill ends the current connection (the last one started that is still open): the lines are
// written to the client first as plain text, which it keeps as the agent's last words (see
// acp.Client.StderrTail); then both pipes close. Prompt handlers of the connection see Done close.
func (a *Agent) Kill(lastWords ...string) {
	if c := a.current(); c != nil {
		c.kill(lastWords)
	}
}

func (a *Agent) current() *conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range slices.Backward(a.conns) {
		select {
		case <-c.rpc.Done():
		default:
			return c
		}
	}
	return nil
}

func (a *Agent) record(m Message, answer bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if answer {
		a.answers = append(a.answers, m)
	} else {
		a.received = append(a.received, m)
	}
	close(a.arrived)
	a.arrived = make(chan struct{})
}

func (a *Agent) newSessionLocked(cwd string) *Session {
	a.changes++
	s := &Session{ID: "sess-" + strconv.Itoa(len(a.sessions)+1), Cwd: cwd, updated: a.changes}
	a.sessions[s.ID] = s
	a.order = append(a.order, s.ID)
	return s
}

// close ends everything the agent started and waits for its goroutines.
func (a *Agent) close() {
	a.mu.Lock()
	clients, conns := slices.Clone(a.clients), slices.Clone(a.conns)
	a.mu.Unlock()
	for _, c := range clients {
		_ = c.Close()
	}
	for _, c := range conns {
		c.close()
	}
	a.wg.Wait()
}

// sessionsIn returns the sessions in cwd ("" for all), most recently changed first.
func (a *Agent) sessionsIn(cwd string) []*Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*Session
	for _, id := range a.order {
		if s := a.sessions[id]; cwd == "" || s.Cwd == cwd {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(x, y *Session) int { return y.updated - x.updated })
	return out
}

// sessionIDs returns the ids of the sessions the agent knows, sorted; for error messages.
func (a *Agent) sessionIDs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.sessions))
}
