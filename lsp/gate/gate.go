// Package gate guards a socket connection until its client has proved itself: a good initialize
// (with the token, when there is one) must be the first message and must come within the handshake
// timeout. Anything else closes the connection before the server acts on it, and until then a frame
// may be no larger than the handshake's limit (lsp/framing). Stdio needs none of this: whoever holds
// our stdin started us.
package gate

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/lsp/framing"
)

// Config says what a connection must show before it is admitted.
type Config struct {
	// Token, when set, must arrive as initializationOptions.hermes.token of the first message.
	Token string
	// Timeout, when positive, closes the connection unless a good initialize arrives within it.
	Timeout time.Duration
	// OnAdmit, when set, is called once the connection is admitted.
	OnAdmit func()
	Log     *slog.Logger
}

// Gate admits one connection.
type Gate struct {
	cfg      Config
	close    func() error     // closes the connection
	admitter framing.Admitter // the connection's stream, told to lift its handshake limit; may be nil

	mu       sync.Mutex
	admitted bool
	done     chan struct{} // closed once admitted
}

// New returns the gate of a connection.
func New(cfg Config) *Gate {
	return &Gate{cfg: cfg, done: make(chan struct{})}
}

// Strict reports whether the connection must begin with a good initialize.
func (g *Gate) Strict() bool {
	return g.cfg.Token != "" || g.cfg.Timeout > 0
}

// Attach gives the gate its connection: close closes it, admitter (nil for none) is told when the
// connection is admitted. The server calls it once, before the connection reads a message.
func (g *Gate) Attach(close func() error, admitter framing.Admitter) {
	g.close, g.admitter = close, admitter
}

// Admit decides, on the read goroutine and before any handler runs, whether req may be handled. On
// a strict connection the first message must be an initialize request that carries the token; any
// other first message, or a wrong token, closes the connection.
func (g *Gate) Admit(req jsonrpc2.Request) bool {
	if !g.Strict() {
		return true
	}
	g.mu.Lock()
	admitted := g.admitted
	g.mu.Unlock()
	if admitted {
		return true
	}
	reason := ""
	switch _, isCall := req.(*jsonrpc2.Call); {
	case !isCall || req.Method() != protocol.MethodInitialize:
		reason = "the first message was " + req.Method() + ", not initialize"
	case g.cfg.Token != "" && !tokenMatches(req.Params(), g.cfg.Token):
		reason = "initialize carried no valid initializationOptions.hermes.token"
	}
	if reason != "" {
		g.cfg.Log.Warn("closing an unauthenticated connection", "reason", reason)
		_ = g.close()
		return false
	}
	g.mu.Lock()
	g.admitted = true
	g.mu.Unlock()
	close(g.done)
	if g.admitter != nil {
		g.admitter.Admit()
	}
	if g.cfg.OnAdmit != nil {
		g.cfg.OnAdmit()
	}
	return true
}

// tokenMatches reports whether initialize's params carry want as initializationOptions.hermes.token
// (or initializationOptions.token), compared in constant time.
func tokenMatches(params json.RawMessage, want string) bool {
	var p struct {
		InitializationOptions struct {
			Token  *string `json:"token"`
			Hermes *struct {
				Token *string `json:"token"`
			} `json:"hermes"`
		} `json:"initializationOptions"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	got := p.InitializationOptions.Token
	if h := p.InitializationOptions.Hermes; h != nil && h.Token != nil {
		got = h.Token
	}
	if got == nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(*got), []byte(want)) == 1
}

// Watch closes the connection unless a good initialize arrives within the timeout, so that an idle
// client cannot hold a connection (and its goroutines) forever. It returns when the connection is
// admitted, ctx ends or the timeout closed it; without a timeout at once.
func (g *Gate) Watch(ctx context.Context) {
	if g.cfg.Timeout <= 0 {
		return
	}
	t := time.NewTimer(g.cfg.Timeout)
	defer t.Stop()
	select {
	case <-g.done:
	case <-ctx.Done():
	case <-t.C:
		g.cfg.Log.Warn("closing a connection that sent no initialize in time", "timeout", g.cfg.Timeout)
		_ = g.close()
	}
}

// WithoutToken removes the token from initializationOptions so that it is neither parsed as a
// setting nor logged.
func WithoutToken(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`"token"`)) {
		return raw
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return raw
	}
	delete(top, "token")
	if inner, ok := top["hermes"]; ok {
		var h map[string]json.RawMessage
		if json.Unmarshal(inner, &h) == nil {
			delete(h, "token")
			top["hermes"], _ = json.Marshal(h)
		}
	}
	out, err := json.Marshal(top)
	if err != nil {
		return raw
	}
	return out
}
