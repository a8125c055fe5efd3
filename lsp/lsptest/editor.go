package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	fastjson "github.com/segmentio/encoding/json"
	"github.com/sourcegraph/conc"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/lsp/framing"
)

// Editor is the client end of an LSP connection that behaves like the editor of its Profile: it
// sends what the test asks (initialize, commands, file changes, cancellations), answers the
// server's requests as that editor does, and records everything the server sends (see State and
// Await).
//
// The read loop only records and never writes: every answer to a server request is written from a
// goroutine the Editor owns, so a server that writes to the editor while it waits for an answer
// cannot deadlock the pipe. Close ends the connection and waits for every goroutine.
//
// Every method is safe for concurrent use.
type Editor struct {
	profile Profile
	conn    jsonrpc2.Conn
	stream  *idStream // conn's: it keeps the raw results of Start's requests

	// ctx is cancelled when the connection ends; request handlers and pending calls derive from it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     conc.WaitGroup // the watcher, request handlers and pending calls

	closeOnce sync.Once
	closeErr  error

	docMu sync.Mutex // held while a document notification is built and sent, to keep versions in order

	mu       sync.Mutex
	closing  bool // set by Close: no goroutine may start any more
	state    *State
	changed  chan struct{}                      // closed and replaced whenever state changes
	inflight map[jsonrpc2.ID]context.CancelFunc // server requests not answered yet
	smr      ShowMessageRequestHook             // answers window/showMessageRequest
	notified NotificationHook                   // sees each notification; nil: none
	handlers map[string]RequestHandler          // overrides, by method
	config   map[string]any                     // what workspace/configuration answers, by section
	folders  []string                           // the workspace folders, as paths
	buffers  map[string]*buffer                 // open documents, by cleaned path
	sync     *syncOptions                       // the server's textDocumentSync; nil before initialize
	panics   []string                           // hooks and handlers that panicked
}

// ShowMessageRequestHook decides the answer to a window/showMessageRequest: the chosen action, nil
// for a dismissed message, or an error to answer with (a *jsonrpc2.Error or *ResponseError keeps its
// code; any other error is answered as -32603). ctx ends when the server cancels the request or
// the editor closes; a hook that blocks must return when it does. A hook runs on a goroutine of
// its own and may call the server, but not Close (which waits for it).
type ShowMessageRequestHook func(ctx context.Context, params protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error)

// NotificationHook sees each notification of the server as it is read, after the editor recorded
// it: on the read goroutine, in order, so it must return quickly and not call the server.
type NotificationHook func(method string, params json.RawMessage)

// RequestHandler answers a server->client request in place of the profile: its result is
// marshalled as the answer; its error is answered as ShowMessageRequestHook describes. ctx ends
// when the server cancels the request or the editor closes.
type RequestHandler func(ctx context.Context, params json.RawMessage) (any, error)

// Dismiss is the default ShowMessageRequestHook: the user closes the message without choosing.
func Dismiss(context.Context, protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}

// ChooseAction returns a hook that chooses the action titled title, and answers -32603 when the
// request offers no such action.
func ChooseAction(title string) ShowMessageRequestHook {
	return func(_ context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		for _, a := range p.Actions {
			if a.Title == title {
				return &a, nil
			}
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "lsptest: no action titled %q", title)
	}
}

// Option configures Connect.
type Option func(*Editor)

// WithConfiguration sets what the editor answers to workspace/configuration for section from the
// start, as SetConfiguration does later.
func WithConfiguration(section string, value any) Option {
	return func(e *Editor) { e.config[section] = value }
}

// WithHandler answers the server requests of method with h instead of the profile, from the start,
// as Handle does later.
func WithHandler(method string, h RequestHandler) Option {
	return func(e *Editor) { e.handlers[method] = h }
}

// WithNotificationHook has h see every notification of the server (a client that shows them as
// they come, such as the demo's terminal).
func WithNotificationHook(h NotificationHook) Option {
	return func(e *Editor) { e.notified = h }
}

// WithShowMessageRequestHook sets the hook from the start, as OnShowMessageRequest does later.
func WithShowMessageRequestHook(h ShowMessageRequestHook) Option {
	return func(e *Editor) {
		if h != nil {
			e.smr = h
		}
	}
}

// Connect starts an LSP connection over rwc, the client end of a pipe or socket whose other end
// the server serves, and returns the editor at its end. It does not initialize: call Initialize.
//
// The connection lives until Close, until the server closes its end, or until ctx ends, whichever
// comes first; Close must be called in every case to release the editor's goroutines.
func Connect(ctx context.Context, rwc io.ReadWriteCloser, p Profile, opts ...Option) (*Editor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e := &Editor{
		profile:  p.Clone(),
		state:    newState(),
		changed:  make(chan struct{}),
		inflight: map[jsonrpc2.ID]context.CancelFunc{},
		smr:      Dismiss,
		handlers: map[string]RequestHandler{},
		config:   map[string]any{},
		buffers:  map[string]*buffer{},
	}
	for _, o := range opts {
		o(e)
	}
	e.ctx, e.cancel = context.WithCancel(context.WithoutCancel(ctx))
	// The server's own framing: jsonrpc2's stream reads each message through a decoder with a buffer
	// of 32 KiB of its own, a cost per message no real editor has, which the benchmarks would count
	// as the server's.
	e.stream = &idStream{Stream: framing.NewStream(rwc, framing.Options{}), calls: make(map[jsonrpc2.ID]*written)}
	e.conn = jsonrpc2.NewConn(e.stream)
	e.conn.Go(e.ctx, e.handle)
	e.wg.Go(func() {
		select {
		case <-e.conn.Done():
		case <-ctx.Done():
			_ = e.conn.Close()
			<-e.conn.Done()
		}
		e.markClosed()
	})
	return e, nil
}

// markClosed records that the connection ended and cancels everything derived from e.ctx.
func (e *Editor) markClosed() {
	e.cancel()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.state.Closed {
		e.state.Closed = true
		e.changedLocked()
	}
}

// Close ends the connection and waits for every goroutine of the editor: hooks and handlers see
// their ctx end, pending calls return ErrClosed. It returns the error closing the connection gave,
// joined with one per hook or handler that panicked. Calling it again returns the same error.
func (e *Editor) Close() error {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		e.closing = true
		e.mu.Unlock()
		err := e.conn.Close()
		if errors.Is(err, io.ErrClosedPipe) {
			err = nil // the server closed first
		}
		<-e.conn.Done()
		e.cancel()
		e.wg.Wait()
		e.mu.Lock()
		errs := []error{err}
		for _, p := range e.panics {
			errs = append(errs, errors.New(p))
		}
		e.mu.Unlock()
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// Done is closed when the connection has ended.
func (e *Editor) Done() <-chan struct{} { return e.ctx.Done() }

// spawn runs f on a goroutine of e.wg, unless Close has started. The check and the start happen
// under e.mu, so no goroutine starts once Close waits for them.
func (e *Editor) spawn(f func()) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing {
		return false
	}
	e.wg.Go(f)
	return true
}

// changedLocked wakes every Await. e.mu must be held.
func (e *Editor) changedLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// Profile returns the editor's profile.
func (e *Editor) Profile() Profile { return e.profile.Clone() }

// ---- Calls to the server ----

// Pending is a request the editor sent and whose answer may not have arrived yet.
type Pending struct {
	e      *Editor
	method string
	id     int32
	done   chan struct{} // closed when the answer arrived or the connection ended
	result json.RawMessage
	err    error
}

// ID returns the request's id: a number, as editors send.
func (p *Pending) ID() int32 { return p.id }

// Cancel sends $/cancelRequest for the request, with its numeric id. It does not wait for the
// answer: Wait still returns what the server answers (protocol.CodeRequestCancelled, or a result).
// It fails when the profile never sends $/cancelRequest (Helix2501).
func (p *Pending) Cancel(ctx context.Context) error {
	if p.e.profile.NoCancelRequest {
		return fmt.Errorf("%s: profile %s never sends $/cancelRequest", p.method, p.e.profile.Name)
	}
	return p.e.Notify(ctx, protocol.MethodCancelRequest, &struct {
		ID int32 `json:"id"`
	}{p.id})
}

// Done is closed when the answer has arrived or the connection ended.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Wait waits for the answer and decodes its result into result (unless result is nil). An error
// answer comes back as a *ResponseError; an answer cut off by the end of the connection as
// ErrClosed.
func (p *Pending) Wait(ctx context.Context, result any) error {
	select {
	case <-p.done:
	default:
		select {
		case <-p.done:
		case <-ctx.Done():
			return fmt.Errorf("%s (id %d): waiting for the answer: %w", p.method, p.id, ctx.Err())
		}
	}
	if p.err != nil {
		return p.err
	}
	if result == nil || len(p.result) == 0 {
		return nil
	}
	if err := fastjson.Unmarshal(p.result, result); err != nil {
		return fmt.Errorf("%s: decoding the result %s: %w", p.method, p.result, err)
	}
	return nil
}

// Start sends a request and returns once it is written, without waiting for the answer. ctx bounds
// the write only: the answer is awaited by Wait, until the connection ends.
func (e *Editor) Start(ctx context.Context, method string, params any) (*Pending, error) {
	if e.ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", method, ErrClosed)
	}
	p := &Pending{e: e, method: method, done: make(chan struct{})}
	w := &written{done: make(chan error, 1)}
	callCtx := context.WithValue(e.ctx, writtenKey{}, w)
	ok := e.spawn(func() {
		defer close(p.done)
		// No result for jsonrpc2 to decode: its decoder takes 32 KiB a call, a cost no editor has.
		// The stream keeps the raw result instead.
		id, err := e.conn.Call(callCtx, method, params, nil)
		raw := e.stream.result(id)
		switch {
		case err != nil && e.ctx.Err() != nil:
			p.err = fmt.Errorf("%s: %w", method, ErrClosed)
		case err != nil:
			p.err = toResponseError(method, err)
		default:
			p.result = raw
		}
	})
	if !ok {
		return nil, fmt.Errorf("%s: %w", method, ErrClosed)
	}
	sent := func(err error) (*Pending, error) {
		switch {
		case err != nil && e.ctx.Err() != nil:
			return nil, fmt.Errorf("%s: %w", method, ErrClosed)
		case err != nil:
			return nil, fmt.Errorf("%s: sending: %w", method, err)
		}
		p.id = w.id
		return p, nil
	}
	select {
	case err := <-w.done:
		return sent(err)
	case <-p.done:
		select {
		case err := <-w.done: // written, and answered already
			return sent(err)
		default: // failed before writing (params that do not marshal, a closed connection)
			return nil, p.err
		}
	case <-ctx.Done():
		select {
		case err := <-w.done: // out already: the caller sees ctx ended, and may cancel
			return sent(err)
		default:
		}
		// The request may still go out: cancel it once it is, as an editor that gave up on it does.
		e.spawn(func() {
			select {
			case err := <-w.done:
				if err == nil {
					p.id = w.id
					_ = p.Cancel(e.ctx) // fails for NoCancelRequest: nothing is sent
				}
			case <-p.done: // never written
			}
		})
		return nil, fmt.Errorf("%s: sending: %w", method, ctx.Err())
	}
}

// Call sends a request and decodes the answer's result into result (unless result is nil). If ctx
// ends first, Call sends $/cancelRequest with the request's numeric id, as an editor does (unless
// the profile has NoCancelRequest), and returns ctx's error without waiting for the server's
// answer (use Start, Cancel and Wait to see it). An error answer comes back as a *ResponseError.
func (e *Editor) Call(ctx context.Context, method string, params, result any) error {
	p, err := e.Start(ctx, method, params)
	if err != nil {
		return err
	}
	select {
	case <-p.done:
		return p.Wait(ctx, result)
	case <-ctx.Done():
		_ = p.Cancel(e.ctx) // fails when the connection has ended, or for NoCancelRequest
		return fmt.Errorf("%s (id %d): cancelled: %w", method, p.id, ctx.Err())
	}
}

// Notify sends a notification.
func (e *Editor) Notify(ctx context.Context, method string, params any) error {
	if e.ctx.Err() != nil {
		return fmt.Errorf("%s: %w", method, ErrClosed)
	}
	if err := e.conn.Notify(ctx, method, params); err != nil {
		if e.ctx.Err() != nil {
			return fmt.Errorf("%s: %w", method, ErrClosed)
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// writtenKey is the context key under which Start asks idStream for the id of its request.
type writtenKey struct{}

// written receives the id of a request and the result of writing it, then the request's raw result.
type written struct {
	id     int32
	done   chan error      // buffered: receives the write's error once
	result json.RawMessage // the answer's result (idStream.mu)
}

// idStream is a jsonrpc2.Stream that tells Start the id jsonrpc2 gave its request (jsonrpc2.Conn
// only returns it with the answer, and the id is needed to cancel the request before that), and
// keeps the raw result of the answer.
type idStream struct {
	jsonrpc2.Stream

	mu    sync.Mutex
	calls map[jsonrpc2.ID]*written // Start's requests not answered yet
}

// Read implements jsonrpc2.Stream: an answer to one of Start's requests leaves its result with it.
func (s *idStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	msg, n, err := s.Stream.Read(ctx)
	if resp, ok := msg.(*jsonrpc2.Response); ok {
		s.mu.Lock()
		if w, ok := s.calls[resp.ID()]; ok {
			w.result = append(json.RawMessage(nil), resp.Result()...)
		}
		s.mu.Unlock()
	}
	return msg, n, err
}

// result takes the raw result of Start's request id (nil when it had none) and forgets the request.
func (s *idStream) result(id jsonrpc2.ID) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.calls[id]
	delete(s.calls, id)
	if w == nil {
		return nil
	}
	return w.result
}

// Write implements jsonrpc2.Stream.
func (s *idStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	w, _ := ctx.Value(writtenKey{}).(*written)
	call, isCall := msg.(*jsonrpc2.Call)
	if w == nil || !isCall {
		return s.Stream.Write(ctx, msg)
	}
	id, err := numericID(call.ID())
	if err != nil {
		w.done <- err
		return 0, err
	}
	w.id = id
	s.mu.Lock()
	s.calls[call.ID()] = w
	s.mu.Unlock()
	n, err := s.Stream.Write(ctx, msg)
	w.done <- err
	return n, err
}

// numericID returns the number of a numeric jsonrpc2.ID (which keeps it unexported).
func numericID(id jsonrpc2.ID) (int32, error) {
	data, err := id.MarshalJSON()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(data), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("lsptest: request id %s is not a number", data)
	}
	return int32(n), nil
}

// ---- Recordings ----
