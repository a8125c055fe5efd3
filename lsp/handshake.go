package lsp

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// This file guards a socket connection until its client has proved itself: a good initialize (with
// the token, when there is one) must be the first message and must come within the handshake
// timeout. Anything else closes the connection before the server acts on it, and until then a frame
// may be no larger than Options.HandshakeMaxBody. Stdio needs none of this: whoever holds our stdin
// started us.

// strictHandshake reports whether the connection must begin with a good initialize.
func (s *Server) strictHandshake() bool {
	return s.opts.Token != "" || s.opts.HandshakeTimeout > 0
}

// admit decides, on the read goroutine and before any handler runs, whether req may be handled. On a
// strict connection the first message must be an initialize request that carries the token; any
// other first message, or a wrong token, closes the connection.
func (s *Server) admit(req jsonrpc2.Request) bool {
	if !s.strictHandshake() {
		return true
	}
	s.mu.Lock()
	admitted := s.admitted
	s.mu.Unlock()
	if admitted {
		return true
	}
	reason := ""
	switch _, isCall := req.(*jsonrpc2.Call); {
	case !isCall || req.Method() != protocol.MethodInitialize:
		reason = "the first message was " + req.Method() + ", not initialize"
	case s.opts.Token != "" && !tokenMatches(req.Params(), s.opts.Token):
		reason = "initialize carried no valid initializationOptions.hermes.token"
	}
	if reason != "" {
		s.log.Warn("closing an unauthenticated connection", "reason", reason)
		_ = s.conn.Close()
		return false
	}
	s.mu.Lock()
	s.admitted = true
	s.mu.Unlock()
	close(s.admittedCh)
	if s.admitter != nil {
		s.admitter.Admit()
	}
	if s.opts.OnAdmit != nil {
		s.opts.OnAdmit()
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

// watchHandshake closes the connection unless a good initialize arrives within the handshake
// timeout, so that an idle client cannot hold a connection (and its goroutines) forever.
func (s *Server) watchHandshake(ctx context.Context) {
	if s.opts.HandshakeTimeout <= 0 {
		return
	}
	s.wg.Go(func() {
		t := time.NewTimer(s.opts.HandshakeTimeout)
		defer t.Stop()
		select {
		case <-s.admittedCh:
		case <-ctx.Done():
		case <-t.C:
			s.log.Warn("closing a connection that sent no initialize in time", "timeout", s.opts.HandshakeTimeout)
			_ = s.conn.Close()
		}
	})
}

// withoutToken removes the token from initializationOptions so that it is neither parsed as a
// setting nor logged.
func withoutToken(raw json.RawMessage) json.RawMessage {
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
