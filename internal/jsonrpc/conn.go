// Package jsonrpc is a JSON-RPC endpoint over JSON lines (one message a line) on any reader and
// writer: requests with a context, notifications in the order they were read, and the peer's
// requests always answered. It speaks codex app-server's dialect (no "jsonrpc" member) and, with
// ConnOptions.JSONRPC, JSON-RPC 2.0 as ACP agents do. Packages codex and acp are built on it.
package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	// segmentio's decoder reads what codex writes (here, and in package codex's protocol.go and
	// protocol_lenient.go); what the host sends is encoded by encoding/json. Its make bench row:
	// "Host CPU time for the turn (codex excluded), per codex event" of the flood is 3.0 µs with
	// it, 4.0 µs with encoding/json (9.5 against 6.25 µs for the tools alone; docs/benchmarks.md,
	// 2026-12-04).
	fastjson "github.com/segmentio/encoding/json"
	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/panics"

	"github.com/hermes-lsp/hermes-lsp/internal/lines"
)

// JSON-RPC error codes that this package produces or recognises.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600 // codex also answers unknown methods and early requests with it
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// ErrClosed is returned by calls on a connection that has ended; the error wraps it with the peer's
// name and the cause ("codex connection closed: codex closed its output").
var ErrClosed = errors.New("connection closed")

// Error is a JSON-RPC error answer from the peer.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`

	peer string // who answered with it (ConnOptions.Peer), for its text; "" for the errors we send
}

func (e *Error) Error() string {
	who := "error"
	if e.peer != "" {
		who = e.peer + " error"
	}
	if len(e.Data) > 0 && string(e.Data) != "null" {
		return fmt.Sprintf("%s %d: %s (%s)", who, e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("%s %d: %s", who, e.Code, e.Message)
}

// Errorf returns an *Error with the given code, for request handlers that want a specific code.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// wireMessage is every JSON-RPC message, as codex writes it and JSON-RPC 2.0 peers do. Codex omits
// "jsonrpc" (a peer that sends it is tolerated because unknown members are ignored) and stamps its
// notifications with emittedAtMs.
type wireMessage struct {
	JSONRPC     string          `json:"jsonrpc,omitempty"`
	ID          json.RawMessage `json:"id,omitempty"`
	Method      string          `json:"method,omitempty"`
	Params      json.RawMessage `json:"params,omitempty"`
	Result      json.RawMessage `json:"result,omitempty"`
	Error       *Error          `json:"error,omitempty"`
	EmittedAtMs int64           `json:"emittedAtMs,omitempty"`
}

// Request is a request the server sent to the client (an approval, an elicitation, a tool call).
type Request struct {
	// ID is the request id exactly as the server sent it.
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// Notification is a message from the server that expects no answer.
type Notification struct {
	Method string
	Params json.RawMessage
}

// RequestHandler answers a server request. It runs in its own goroutine, so it may block (an approval
// waits for a person) until ctx ends. The returned value is the result; a returned error is sent as a
// JSON-RPC error (an *Error keeps its code, anything else is an internal error).
type RequestHandler func(ctx context.Context, req *Request) (any, error)

// ConnOptions configure a Conn. Every field may be left zero.
type ConnOptions struct {
	// Peer names the other side in errors and logs ("codex", "the agent"); default "the peer".
	Peer string
	// OnNotification receives notifications in the order they were read, on the read goroutine:
	// it must return quickly (queue the work elsewhere), or the connection stalls.
	OnNotification func(Notification)
	// OnRequest answers the peer's requests, each on a goroutine of its own; nil answers every
	// request with "method not found".
	OnRequest RequestHandler
	// OnRequestInOrder, when set, takes the peer's requests instead of OnRequest: on the read
	// goroutine, in the order they were read, so it must return quickly; it answers (now, later, or
	// never) with Reply. A server that must handle requests in order (the codextest fake) uses it.
	OnRequestInOrder func(req *Request)
	// OnBadLine receives lines that are not JSON-RPC messages (codex sometimes prints plain text), and
	// lines longer than MaxLine, cut.
	OnBadLine func(line string)
	// Logger receives protocol anomalies at debug and warn levels; nil discards them.
	Logger *slog.Logger
	// MaxLine is the longest line accepted, in bytes (default 64 MiB); a longer line is dropped.
	MaxLine int
	// JSONRPC is written as every message's "jsonrpc" member ("2.0" for peers that need it, such as
	// ACP agents); empty omits it, as codex does.
	JSONRPC string
	// StampNotifications adds emittedAtMs to the notifications sent, as codex does.
	StampNotifications bool
}

// Conn is a JSON-RPC connection: one JSON object per line, requests carrying integer ids. It reads on one goroutine that it owns; server requests are answered on goroutines that
// it owns too. Close stops them all.
type Conn struct {
	r    io.ReadCloser
	w    io.WriteCloser
	opts ConnOptions
	log  *slog.Logger

	wmu sync.Mutex // serialises writes: one line at a time

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan *wireMessage
	err     error // why the connection ended; set once before done closes
	closed  error // ErrClosed with the peer's name: what every reason the connection ended wraps

	ctx      context.Context // cancelled when the connection ends; parent of request handler contexts
	cancel   context.CancelFunc
	handlers conc.WaitGroup
	done     chan struct{}
	closing  sync.Once
}

// NewConn starts a connection reading r and writing w. The connection owns both: Close closes them.
func NewConn(r io.ReadCloser, w io.WriteCloser, opts ConnOptions) *Conn {
	if opts.MaxLine <= 0 {
		opts.MaxLine = 64 << 20
	}
	if opts.Peer == "" {
		opts.Peer = "the peer"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		r: r, w: w, opts: opts, log: log,
		pending: make(map[string]chan *wireMessage),
		closed:  fmt.Errorf("%s %w", opts.Peer, ErrClosed),
		ctx:     ctx, cancel: cancel,
		done: make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// Done is closed when the connection has ended: the peer closed its side, a read failed, or Close
// was called.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended, or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Call sends a request and decodes its result into result (which may be nil). It returns when the
// answer arrives, ctx ends, or the connection ends. A JSON-RPC error answer is returned as *Error.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	p, err := c.Send(method, params)
	if err != nil {
		return err
	}
	return p.Wait(ctx, result)
}

// Pending is a request sent and not answered yet.
type Pending struct {
	// ID is the request's id on the wire.
	ID     json.RawMessage
	c      *Conn
	method string
	answer chan *wireMessage
}

// Send sends a request; Wait then waits for its answer. Call does both.
func (c *Conn) Send(method string, params any) (*Pending, error) {
	key := strconv.FormatInt(c.nextID.Add(1), 10)
	p := &Pending{ID: json.RawMessage(key), c: c, method: method, answer: make(chan *wireMessage, 1)}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	c.pending[key] = p.answer
	c.mu.Unlock()

	rawParams, err := marshalParams(params)
	if err == nil {
		err = c.write(&wireMessage{ID: p.ID, Method: method, Params: rawParams})
	}
	if err != nil {
		p.forget()
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return p, nil
}

// Wait waits for the answer and decodes its result into result (which may be nil); see Call.
func (p *Pending) Wait(ctx context.Context, result any) error {
	defer p.forget()
	select {
	case msg := <-p.answer:
		if msg.Error != nil {
			return msg.Error
		}
		if result == nil {
			return nil
		}
		if err := fastjson.Unmarshal(msg.Result, result); err != nil {
			return fmt.Errorf("%s: decode result: %w", p.method, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", p.method, context.Cause(ctx))
	case <-p.c.done:
		return fmt.Errorf("%s: %w", p.method, p.c.Err())
	}
}

func (p *Pending) forget() {
	p.c.mu.Lock()
	delete(p.c.pending, string(p.ID))
	p.c.mu.Unlock()
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	rawParams, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	msg := &wireMessage{Method: method, Params: rawParams}
	if c.opts.StampNotifications {
		msg.EmittedAtMs = time.Now().UnixMilli()
	}
	if err := c.write(msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// Close ends the connection: it closes the writer (the peer sees the end of its input), the reader, cancels
// running request handlers and waits for every goroutine the connection started.
func (c *Conn) Close() error {
	var err error
	c.closing.Do(func() {
		c.fail(c.closed)
		c.wmu.Lock()
		err = c.w.Close()
		c.wmu.Unlock()
		if rerr := c.r.Close(); err == nil {
			err = rerr
		}
		if errors.Is(err, os.ErrClosed) {
			err = nil // the process closed its pipes first: nothing is wrong
		}
	})
	<-c.done
	c.handlers.Wait()
	return err
}

// CloseWrite closes only the writer, so the peer sees the end of its input while its remaining
// output can still be read.
func (c *Conn) CloseWrite() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.w.Close()
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(params) // not segmentio's: the generated types' omitzero needs encoding/json
}

func (c *Conn) write(msg *wireMessage) error {
	msg.JSONRPC = c.opts.JSONRPC
	line, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	line = append(line, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.Err(); err != nil {
		return err
	}
	if _, err := c.w.Write(line); err != nil {
		return fmt.Errorf("write to %s: %w", c.opts.Peer, err)
	}
	return nil
}

// fail records why the connection ended (the first reason wins) and cancels handler contexts.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.cancel()
}

func (c *Conn) readLoop() {
	defer close(c.done)
	lr := lines.NewReader(c.r, c.opts.MaxLine)
	for {
		line, size, err := lr.Next()
		if size > 0 {
			c.dispatch(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.fail(fmt.Errorf("%w: %s closed its output", c.closed, c.opts.Peer))
			} else {
				c.fail(fmt.Errorf("%w: read: %v", c.closed, err))
			}
			return
		}
	}
}

func (c *Conn) dispatch(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var msg wireMessage
	if line[0] != '{' || bytes.HasSuffix(line, []byte(lines.TooLongMarker)) || fastjson.Unmarshal(line, &msg) != nil {
		c.badLine(line)
		return
	}
	switch {
	case msg.Method != "" && len(msg.ID) > 0 && string(msg.ID) != "null":
		req := &Request{ID: msg.ID, Method: msg.Method, Params: msg.Params}
		if c.opts.OnRequestInOrder != nil {
			c.opts.OnRequestInOrder(req)
			return
		}
		c.handlers.Go(func() { c.answer(req) })
	case msg.Method != "":
		if c.opts.OnNotification != nil {
			c.opts.OnNotification(Notification{Method: msg.Method, Params: msg.Params})
		}
	case len(msg.ID) > 0 && (msg.Result != nil || msg.Error != nil):
		key := string(bytes.TrimSpace(msg.ID))
		c.mu.Lock()
		ch, ok := c.pending[key]
		c.mu.Unlock()
		if !ok {
			c.log.Warn(c.opts.Peer+" answered an unknown request", "id", key)
			return
		}
		if msg.Error != nil {
			msg.Error.peer = c.opts.Peer
		}
		ch <- &msg
	default:
		c.badLine(line)
	}
}

func (c *Conn) badLine(line []byte) {
	const show = 2000
	s := string(line)
	if len(s) > show {
		s = s[:show] + "…"
	}
	c.log.Debug(c.opts.Peer+" wrote a line that is not JSON-RPC", "line", s)
	if c.opts.OnBadLine != nil {
		c.opts.OnBadLine(s)
	}
}

// answer runs the request handler and always replies, even when the handler panics.
func (c *Conn) answer(req *Request) {
	var (
		result any
		err    error
	)
	if c.opts.OnRequest == nil {
		err = Errorf(CodeMethodNotFound, "method not supported by this client: %s", req.Method)
	} else {
		recovered := panics.Try(func() { result, err = c.opts.OnRequest(c.ctx, req) })
		if recovered != nil {
			c.log.Error(c.opts.Peer+" request handler panicked", "method", req.Method, "panic", recovered.String())
			err = Errorf(CodeInternalError, "client failed to handle %s", req.Method)
		}
	}
	if werr := c.Reply(req, result, err); werr != nil {
		c.log.Debug("could not answer a request of "+c.opts.Peer, "method", req.Method, "err", werr)
	}
}

// Reply answers req: with err as a JSON-RPC error when it is not nil (an *Error keeps its code,
// anything else is an internal error), else with result.
func (c *Conn) Reply(req *Request, result any, err error) error {
	reply := &wireMessage{ID: req.ID}
	if err != nil {
		var rpcErr *Error
		if !errors.As(err, &rpcErr) {
			rpcErr = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		reply.Error = rpcErr
	} else {
		raw, merr := json.Marshal(result)
		if merr != nil {
			reply.Error = &Error{Code: CodeInternalError, Message: "encode result: " + merr.Error()}
		} else {
			reply.Result = raw
		}
	}
	return c.write(reply)
}
