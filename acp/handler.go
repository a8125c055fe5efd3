package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/hermes-lsp/hermes-lsp/internal/jsonrpc"
)

// Handler receives what the agent sends on its own: session updates, and requests for a permission
// or a file. What it is given is the agent's, as the agent wrote it: hostile text, paths that may
// lead anywhere. Its methods may be called concurrently, but for SessionUpdate.
//
// Ordering: the updates reach SessionUpdate one at a time, in the order the agent sent them, and
// every update the agent sent before a request reaches the Handler before that request does. Every
// update sent before the agent's answer to session/prompt (or session/load) has been delivered
// before Prompt (or LoadSession) returns; so SessionUpdate must not wait for Prompt, nor call it.
type Handler interface {
	// SessionUpdate receives a session/update notification: a chunk of the answer or of the
	// reasoning, a tool call or its update, the plan, the usage, ... Its ctx ends when the client
	// closes.
	SessionUpdate(ctx context.Context, n *SessionNotification)
	// RequestPermission asks the user whether the agent may go on (session/request_permission),
	// and answers with one of the request's options or with Cancelled(). Its ctx ends when the
	// client cancels the session's prompt (Cancel), the agent withdraws the request
	// ($/cancel_request: context.Cause says ErrWithdrawn), or the connection ends; in the first two
	// cases the client answers "cancelled", whatever RequestPermission returns, as session/cancel
	// requires.
	RequestPermission(ctx context.Context, req *RequestPermissionRequest) (*RequestPermissionResponse, error)
	// ReadTextFile reads a text file for the agent (fs/read_text_file): the editor's unsaved buffer
	// when the file is open. Its ctx ends as RequestPermission's does.
	ReadTextFile(ctx context.Context, req *ReadTextFileRequest) (*ReadTextFileResponse, error)
	// WriteTextFile writes a text file for the agent (fs/write_text_file).
	WriteTextFile(ctx context.Context, req *WriteTextFileRequest) (*WriteTextFileResponse, error)
}

// Why the context of a Handler's call ended, besides the end of the connection (context.Cause).
var (
	// ErrCancelled says the client cancelled the session's prompt (Cancel).
	ErrCancelled = errors.New("the prompt was cancelled (session/cancel)")
	// ErrWithdrawn says the agent withdrew its request ($/cancel_request).
	ErrWithdrawn = errors.New("the agent withdrew its request ($/cancel_request)")
)

// Cancelled is the answer to a permission request that the prompt's cancellation ended.
func Cancelled() *RequestPermissionResponse {
	return &RequestPermissionResponse{Outcome: RequestPermissionOutcome{Kind: RequestPermissionOutcomeKindCancelled}}
}

// Selected is the answer to a permission request that picks the option optionID.
func Selected(optionID string) *RequestPermissionResponse {
	return &RequestPermissionResponse{Outcome: RequestPermissionOutcome{
		Kind:                      RequestPermissionOutcomeKindSelected,
		SelectedPermissionOutcome: &SelectedPermissionOutcome{OptionID: optionID},
	}}
}

// notified takes a notification of the agent's, on the read goroutine: a session update is queued
// for deliver, a withdrawn request cancelled at once.
func (c *Client) notified(n jsonrpc.Notification) {
	switch n.Method {
	case MethodSessionUpdate:
		c.pushed.Add(1)
		c.updates.Push(n.Params)
	case MethodCancelRequest:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if decode(n.Params, &p) == nil {
			c.inflight.cancel(string(bytes.TrimSpace(p.RequestID)), ErrWithdrawn)
		}
	default:
		c.log.Debug("notification of "+c.name+" ignored", "method", n.Method)
	}
}

// deliver hands the queued updates to the Handler, one at a time, until the queue ends.
func (c *Client) deliver() {
	defer c.delivered.stop()
	for params := range c.updates.Out() {
		if c.handler != nil {
			var n SessionNotification
			if err := decode(params, &n); err != nil {
				c.log.Warn("malformed session/update of "+c.name, "err", err)
			} else {
				c.handler.SessionUpdate(c.ctx, &n)
			}
		}
		c.delivered.add()
	}
}

// caughtUp waits until every update queued so far has been delivered, or ctx ends, or delivery
// stops (Close), after a call of method that ended with err: it returns err, or why it could not
// wait.
func (c *Client) caughtUp(ctx context.Context, method string, err error) error {
	if werr := c.delivered.wait(ctx, c.pushed.Load()); err == nil && werr != nil {
		return fmt.Errorf("%s: %w", method, werr)
	}
	return err
}

// serve answers a request of the agent's, on a goroutine of its own (the connection's): once every
// update sent before it has been delivered, it goes to the Handler; terminal/* and anything
// unknown is answered "method not found".
func (c *Client) serve(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if err := c.caughtUp(ctx, req.Method, nil); err != nil {
		return nil, err
	}
	switch req.Method {
	case MethodSessionRequestPermission:
		return c.requestPermission(ctx, req)
	case MethodFsReadTextFile:
		if c.handler != nil {
			return c.readTextFile(ctx, req)
		}
	case MethodFsWriteTextFile:
		if c.handler != nil {
			return c.writeTextFile(ctx, req)
		}
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s is not supported by this client", req.Method)
}

// requestPermission asks the Handler, and answers "cancelled" when the prompt was cancelled or the
// agent withdrew the request meanwhile, or when there is no Handler to ask.
func (c *Client) requestPermission(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if c.handler == nil {
		return Cancelled(), nil
	}
	var params RequestPermissionRequest
	if err := decode(req.Params, &params); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: %v", req.Method, err)
	}
	ctx, done := c.inflight.add(ctx, req.ID, params.SessionID)
	defer done()
	res, err := c.handler.RequestPermission(ctx, &params)
	if cause := context.Cause(ctx); errors.Is(cause, ErrCancelled) || errors.Is(cause, ErrWithdrawn) {
		return Cancelled(), nil
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		return Cancelled(), nil
	}
	return res, nil
}

func (c *Client) readTextFile(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var params ReadTextFileRequest
	if err := decode(req.Params, &params); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: %v", req.Method, err)
	}
	ctx, done := c.inflight.add(ctx, req.ID, params.SessionID)
	defer done()
	res, err := c.handler.ReadTextFile(ctx, &params)
	if err == nil && res == nil {
		err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "%s: no answer", req.Method)
	}
	return res, err
}

func (c *Client) writeTextFile(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var params WriteTextFileRequest
	if err := decode(req.Params, &params); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: %v", req.Method, err)
	}
	ctx, done := c.inflight.add(ctx, req.ID, params.SessionID)
	defer done()
	res, err := c.handler.WriteTextFile(ctx, &params)
	if err == nil && res == nil {
		res = &WriteTextFileResponse{}
	}
	return res, err
}

// inflight are the agent's requests being answered, each with the function that ends its context,
// and the sessions whose prompt was cancelled (until their next prompt): a request of theirs that
// comes after Cancel is cancelled as it comes.
type inflight struct {
	mu        sync.Mutex
	byID      map[string]*request
	cancelled map[string]bool
}

type request struct {
	session string
	cancel  context.CancelCauseFunc
}

// add registers the request id of session and returns its context, and the function that
// unregisters it once answered.
func (f *inflight) add(ctx context.Context, id json.RawMessage, session string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := string(bytes.TrimSpace(id))
	r := &request{session: session, cancel: cancel}
	f.mu.Lock()
	f.byID[key] = r
	if f.cancelled[session] {
		cancel(ErrCancelled)
	}
	f.mu.Unlock()
	return ctx, func() {
		f.mu.Lock()
		if f.byID[key] == r {
			delete(f.byID, key)
		}
		f.mu.Unlock()
		cancel(nil)
	}
}

// cancel ends the context of the request id, if it is being answered.
func (f *inflight) cancel(id string, cause error) {
	f.mu.Lock()
	r := f.byID[id]
	f.mu.Unlock()
	if r != nil {
		r.cancel(cause)
	}
}

// cancelSession tells the agent with notify, then ends the context of every request of session
// being answered, and of those to come until uncancel. A request that comes meanwhile waits (add
// takes the lock notify runs under): no "cancelled" answer reaches the agent before notify's
// message, so that it cannot take one for the user's refusal. It returns notify's error.
func (f *inflight) cancelSession(session string, cause error, notify func() error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := notify()
	f.cancelled[session] = true
	for _, r := range f.byID {
		if r.session == session {
			r.cancel(cause)
		}
	}
	return err
}

// uncancel says the session runs a new prompt: its requests are no longer cancelled as they come.
func (f *inflight) uncancel(session string) {
	f.mu.Lock()
	delete(f.cancelled, session)
	f.mu.Unlock()
}

// counter counts the updates delivered, for those who wait for a count.
type counter struct {
	mu      sync.Mutex
	n       uint64
	changed chan struct{} // closed and replaced at each change
	stopped bool          // no more will be delivered
}

func newCounter() *counter { return &counter{changed: make(chan struct{})} }

func (k *counter) add() {
	k.mu.Lock()
	k.n++
	close(k.changed)
	k.changed = make(chan struct{})
	k.mu.Unlock()
}

func (k *counter) stop() {
	k.mu.Lock()
	k.stopped = true
	close(k.changed)
	k.changed = make(chan struct{})
	k.mu.Unlock()
}

// wait waits until the count reaches n, ctx ends or counting stops with the count short of n.
func (k *counter) wait(ctx context.Context, n uint64) error {
	for {
		k.mu.Lock()
		reached, stopped, changed := k.n >= n, k.stopped, k.changed
		k.mu.Unlock()
		switch {
		case reached:
			return nil
		case stopped:
			return fmt.Errorf("the updates before it were not all delivered: %w", ErrClosed)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
