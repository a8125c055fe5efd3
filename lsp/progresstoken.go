package lsp

// This file asks the editor for a turn's progress token (window/workDoneProgress/create).

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// turnRunning reports whether a turn of folder is being followed.
func (s *Server) turnRunning(folder string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns[folder] != nil
}

// createToken asks the editor for a progress token named name, and returns it, or nil when the
// editor has no progress or refused it (the turn is then reported with messages).
func (s *Server) createToken(ctx context.Context, name string) *protocol.ProgressToken {
	canProgress := s.editor.Caps().WorkDoneProgress
	if !canProgress {
		return nil
	}
	token := protocol.NewProgressToken(name)
	if err := s.editor.Call(ctx, protocol.MethodWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: *token}, nil); err != nil {
		s.log.Info("the editor refused a progress token; using messages", "err", err)
		return nil
	}
	return token
}

// earlyToken is a progress token asked of the editor while the turn starts in codex, so that the
// editor's round trip and codex's overlap rather than add up.
type earlyToken struct {
	done  chan struct{}
	token *protocol.ProgressToken // set before done closes
}

// createTokenEarly starts asking the editor for a progress token.
func (s *Server) createTokenEarly() *earlyToken {
	e := &earlyToken{done: make(chan struct{})}
	name := fmt.Sprintf("hermes/ask-%d", s.tokenSeq.Add(1))
	s.goAsync("progress token", func(sctx context.Context) {
		defer close(e.done)
		// The connection's context, not the request's: the ask is answered before the editor is.
		e.token = s.createToken(sctx, name)
	})
	return e
}

// wait returns the token, or nil when the editor refused it or ctx ended first.
func (e *earlyToken) wait(ctx context.Context) *protocol.ProgressToken {
	select {
	case <-e.done:
		return e.token
	case <-ctx.Done():
		return nil
	}
}
