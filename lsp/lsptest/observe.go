package lsptest

// This file is what a test reads of the editor's state (messages, prompts, progress, notifications)
// and how it changes the editor's answers while it runs.

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// State returns a snapshot of everything recorded so far.
func (e *Editor) State() *State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state.snapshot()
}

// Await blocks until cond holds over what the editor has recorded. cond is evaluated now and again
// after each message from the server, on a snapshot (it must not block or call the editor). Await
// fails when ctx ends, or when the connection has ended and cond still does not hold; the error
// describes what was recorded.
func (e *Editor) Await(ctx context.Context, cond Condition) error {
	for {
		e.mu.Lock()
		s := e.state.snapshot()
		changed := e.changed
		e.mu.Unlock()
		if cond(s) {
			return nil
		}
		if s.Closed {
			return fmt.Errorf("lsptest: await: %w and the condition does not hold\n%s", ErrClosed, s)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("lsptest: await: %w\n%s", ctx.Err(), s)
		}
	}
}

// Messages returns the window/showMessage notifications received so far.
func (e *Editor) Messages() []protocol.ShowMessageParams { return e.State().ShowMessages }

// LogMessages returns the window/logMessage notifications received so far.
func (e *Editor) LogMessages() []protocol.LogMessageParams { return e.State().LogMessages }

// ShowMessageRequests returns the window/showMessageRequest requests received so far, whatever
// the profile answered.
func (e *Editor) ShowMessageRequests() []protocol.ShowMessageRequestParams {
	return e.State().ShowMessageRequests
}

// ShowDocuments returns the window/showDocument requests received so far, whatever the profile
// answered.
func (e *Editor) ShowDocuments() []protocol.ShowDocumentParams { return e.State().ShowDocuments }

// ApplyEdits returns the workspace/applyEdit requests received so far.
func (e *Editor) ApplyEdits() []protocol.ApplyWorkspaceEditParams { return e.State().ApplyEdits }

// CreatedTokens returns the tokens of the window/workDoneProgress/create requests received so far,
// whatever the profile answered.
func (e *Editor) CreatedTokens() []protocol.ProgressToken { return e.State().CreatedTokens }

// Progress returns the $/progress values received so far for token, in order.
func (e *Editor) Progress(token protocol.ProgressToken) []ProgressEvent {
	return e.State().Progress[token]
}

// Notifications returns the params of the notifications of method received so far.
func (e *Editor) Notifications(method string) []json.RawMessage {
	return e.State().Notifications[method]
}

// ---- Hooks ----

// OnShowMessageRequest sets the hook that answers window/showMessageRequest when the profile
// supports it (ShowMessageRequest is AnswerNormal); nil restores Dismiss.
func (e *Editor) OnShowMessageRequest(h ShowMessageRequestHook) {
	if h == nil {
		h = Dismiss
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.smr = h
}

// Handle answers the server requests of method with h instead of the profile (they are still
// recorded); nil restores the profile's answer.
func (e *Editor) Handle(method string, h RequestHandler) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if h == nil {
		delete(e.handlers, method)
		return
	}
	e.handlers[method] = h
}

// SetConfiguration sets the value the editor answers to workspace/configuration items of section
// (when the profile answers them: Helix2501 answers null). Items for a dotted sub-section of a set
// section ("hermes.model" under "hermes") get the matching member; an item without a section gets
// every section.
func (e *Editor) SetConfiguration(section string, value any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.config[section] = value
}

// Forget drops what the editor recorded of finished work: everything but the progress (and the
// acceptance) of tokens whose progress has not ended. A snapshot copies the recorded maps, so a
// driver that runs many turns on one editor (a benchmark) forgets between them to keep each wait
// as cheap as on a fresh editor.
func (e *Editor) Forget() {
	e.mu.Lock()
	defer e.mu.Unlock()
	old := e.state
	s := newState()
	s.Closed = old.Closed
	for tok, evs := range old.Progress {
		if !old.ProgressEnded(tok) {
			s.Progress[tok] = evs
		}
	}
	for tok := range old.acceptedTokens {
		if !old.ProgressEnded(tok) {
			s.acceptedTokens[tok] = true
		}
	}
	e.state = s
}

// AwaitProgressEnd waits until token's progress has more than after values and its last is an end:
// a turn asked with token as its workDoneToken has ended, after the after values of earlier turns.
func (e *Editor) AwaitProgressEnd(ctx context.Context, token protocol.ProgressToken, after int) error {
	return e.Await(ctx, func(s *State) bool {
		evs := s.Progress[token]
		return len(evs) > after && evs[len(evs)-1].Kind == protocol.WorkDoneProgressKindEnd
	})
}
