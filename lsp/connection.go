package lsp

import (
	"context"
	"sync"

	"github.com/hermes-lsp/hermes-lsp/lsp/gate"
	"github.com/sourcegraph/conc"
	"go.lsp.dev/jsonrpc2"
)

type serverState int

const (
	stateNew serverState = iota
	stateInitialized
	stateShutdown
	stateExited
)

// connection is one client's connection: the JSON-RPC connection, the goroutines that serve it,
// its handshake, its LSP state (new, initialized, shut down, exited), the exit code it leads to,
// and its requests in flight, which $/cancelRequest cancels.
type connection struct {
	rpc  jsonrpc2.Conn   // set by Serve
	ctx  context.Context // set by Serve: cancelled when the connection ends
	wg   conc.WaitGroup  // request handlers and every other goroutine of the connection
	gate *gate.Gate      // a socket connection's handshake: initialize (and its token) first

	mu       sync.Mutex
	state    serverState
	exitCode int
	inflight map[jsonrpc2.ID]context.CancelFunc
	exited   chan struct{} // closed when the client sends exit
}

func newConnection(g *gate.Gate) *connection {
	return &connection{gate: g, inflight: make(map[jsonrpc2.ID]context.CancelFunc), exited: make(chan struct{})}
}

// now is the connection's state.
func (l *connection) now() serverState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// move sets the state (initialize, shutdown).
func (l *connection) move(to serverState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.state = to
}

// exit is the client's exit: the exit code is 1 unless shutdown came first, as the LSP
// specification asks.
func (l *connection) exit() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == stateExited {
		return
	}
	if l.state != stateShutdown {
		l.exitCode = 1
	}
	l.state = stateExited
	close(l.exited)
}

// end is the connection's end: whether the client exited; the exit code is 1 when it did not (the
// editor went away without shutdown and exit).
func (l *connection) end() (exited bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != stateExited {
		l.exitCode = 1
	}
	return l.state == stateExited
}

// code is the exit code.
func (l *connection) code() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.exitCode
}

// track records a request in flight until its handler returns (untrack).
func (l *connection) track(id jsonrpc2.ID, cancel context.CancelFunc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight[id] = cancel
}

func (l *connection) untrack(id jsonrpc2.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.inflight, id)
}

// cancel cancels the request id, if it is in flight.
func (l *connection) cancel(id jsonrpc2.ID) {
	l.mu.Lock()
	cancel := l.inflight[id]
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
