package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sourcegraph/conc"
)

// Options configure a Client.
type Options struct {
	// Process says how to spawn codex (Start only).
	Process ProcessOptions
	// ClientInfo names the client to codex; a default names this package.
	ClientInfo ClientInfo
	// OnRequest answers server requests (approvals, elicitations). Its ctx ends when codex withdraws
	// the request (serverRequest/resolved before an answer) or the client closes. Nil answers every
	// request with "method not found", so codex never waits forever.
	OnRequest RequestHandler
	// OnNotification, when set, sees every notification (decoded, as subscribers get it) before it is
	// routed, on the read goroutine: it must return quickly. Notifications that name no thread, such
	// as configWarning, arrive before any subscription could exist; this is where they are seen.
	OnNotification func(Event)
	// Logger receives protocol anomalies; nil discards them.
	Logger *slog.Logger
	// StartTimeout, when positive, bounds the start: spawning codex and its answer to initialize. On
	// expiry Start kills and reaps the process and returns a *StartTimeoutError.
	StartTimeout time.Duration
	// InterruptTimeout bounds each turn/interrupt (default InterruptTimeout).
	InterruptTimeout time.Duration
}

// Client speaks to one codex app-server: it owns the process (when it started it), the connection,
// and a goroutine per subscription. All methods are safe for concurrent use.
type Client struct {
	conn *Conn
	proc *Process // nil when the client runs over given pipes
	tail *Tail    // stderr of the process, or non-JSON lines of the connection
	log  *slog.Logger
	info InitializeResult
	// compat is what hermes-lsp makes of the release codex named in its answer to initialize.
	compat Compat
	seen   func(Event) // Options.OnNotification
	// interruptTimeout bounds each turn/interrupt (Options.InterruptTimeout).
	interruptTimeout time.Duration

	routeTo []*Subscription // the read goroutine's, reused by route

	mu    sync.Mutex
	subs  map[*Subscription]struct{}
	ended bool // the subscriptions have been told why the client ended (c.mu)

	inflight sync.Map // server request id (raw JSON) -> context.CancelFunc

	wg     conc.WaitGroup
	done   chan struct{}
	err    error // why the client ended, set before done closes
	closed chan struct{}
	once   sync.Once
}

// Start spawns codex app-server as opts.Process says and completes the initialize handshake. The
// context and opts.StartTimeout bound the start; the process lives until Close or its own end.
func Start(ctx context.Context, opts Options) (*Client, error) {
	initCtx, cancel := withStartTimeout(ctx, opts.StartTimeout)
	defer cancel()
	proc, err := StartProcess(opts.Process)
	if err != nil {
		return nil, err
	}
	c := newClient(proc.Stdout(), proc.Stdin(), proc, opts)
	if err := c.initialize(initCtx, opts.ClientInfo); err != nil {
		var tooOld *TooOldError
		if errors.As(err, &tooOld) {
			_ = c.Close()
			return nil, fmt.Errorf("start codex (%s): %w", proc.Path(), err)
		}
		if startTimedOut(ctx, initCtx) {
			// A codex that never answered initialize has nothing to lose: kill it now rather than
			// after Close's grace periods, which a hung process would wait out in full.
			proc.Kill()
			_ = c.Close()
			return nil, fmt.Errorf("start codex: %w", &StartTimeoutError{Binary: proc.Path(), Timeout: opts.StartTimeout})
		}
		_ = c.Close()
		// Close has reaped codex either way; its exit explains the failure only when it was not the
		// caller who gave up.
		if exitErr := proc.ExitError(); exitErr != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("start codex: %w", exitErr)
		}
		return nil, fmt.Errorf("start codex: %w; codex said:\n%s", err, proc.Stderr().Last(20))
	}
	return c, nil
}

// NewClient runs the protocol over r and w (an in-process fake, or a process started elsewhere) and
// completes the initialize handshake. The client owns r and w.
func NewClient(ctx context.Context, r io.ReadCloser, w io.WriteCloser, opts Options) (*Client, error) {
	initCtx, cancel := withStartTimeout(ctx, opts.StartTimeout)
	defer cancel()
	c := newClient(r, w, nil, opts)
	if err := c.initialize(initCtx, opts.ClientInfo); err != nil {
		_ = c.Close()
		if startTimedOut(ctx, initCtx) {
			return nil, fmt.Errorf("start codex: %w", &StartTimeoutError{Timeout: opts.StartTimeout})
		}
		return nil, fmt.Errorf("start codex: %w", err)
	}
	return c, nil
}

func newClient(r io.ReadCloser, w io.WriteCloser, proc *Process, opts Options) *Client {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		proc:             proc,
		log:              log,
		seen:             opts.OnNotification,
		interruptTimeout: opts.InterruptTimeout,
		subs:             make(map[*Subscription]struct{}),
		done:             make(chan struct{}),
		closed:           make(chan struct{}),
	}
	if c.interruptTimeout <= 0 {
		c.interruptTimeout = InterruptTimeout
	}
	if proc != nil {
		c.tail = proc.Stderr()
	} else {
		c.tail = NewTail(300)
	}
	handler := opts.OnRequest
	c.conn = NewConn(r, w, ConnOptions{
		OnNotification: c.route,
		OnRequest:      c.serveRequest(handler),
		OnBadLine:      c.tail.Add,
		Logger:         log,
	})
	c.wg.Go(c.watch)
	return c
}

func (c *Client) initialize(ctx context.Context, info ClientInfo) error {
	if info.Name == "" {
		info = ClientInfo{Name: "hermes-lsp", Title: "hermes-lsp", Version: "dev"}
	}
	params := InitializeParams{ClientInfo: info}
	if err := c.conn.Call(ctx, MethodInitialize, params, &c.info); err != nil {
		return c.explain(err)
	}
	version := ""
	if v, ok := VersionFromUserAgent(c.info.UserAgent); ok {
		version = v.String()
	}
	c.compat = CompatOf(version)
	if c.compat.Refused() {
		return &TooOldError{Compat: c.compat}
	}
	if err := c.conn.Notify(MethodInitialized, nil); err != nil {
		return c.explain(err)
	}
	return nil
}

// Info is codex's answer to initialize.
func (c *Client) Info() InitializeResult { return c.info }

// Compat is what hermes-lsp makes of the release codex named in its answer to initialize (within
// the supported range, newer, or unknown: an older one is refused at the start).
func (c *Client) Compat() Compat { return c.compat }

// TooOldError is the start's failure for a codex older than MinVersion.
type TooOldError struct {
	Compat Compat
}

func (e *TooOldError) Error() string { return e.Compat.Outside() }

// Pid is the process id of codex, or 0 when the client runs over pipes.
func (c *Client) Pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.Pid()
}

// Done is closed when the client has ended: codex exited, its output closed, or Close was called.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err says why the client ended (nil while it runs). When codex died, it is an *ExitError carrying
// the exit status and the last lines of its stderr.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// StderrTail returns the last n lines codex wrote on stderr (or non-JSON lines on stdout).
func (c *Client) StderrTail(n int) string { return c.tail.Last(n) }

// Close stops codex (see Process.Close) and waits for every goroutine the client started.
func (c *Client) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		if c.proc != nil {
			err = c.proc.Close()
		}
		if cerr := c.conn.Close(); err == nil && cerr != nil && !errors.Is(cerr, ErrClosed) {
			err = cerr
		}
		// Subscriptions nobody reads any more must not hold Close: stop them all.
		<-c.done
		for _, s := range c.subscriptions() {
			s.Close()
		}
	})
	c.wg.Wait()
	return err
}

// watch ends the client when codex exits or its connection ends, whichever comes first, and closes
// every subscription with the reason.
func (c *Client) watch() {
	var procDone <-chan struct{}
	if c.proc != nil {
		procDone = c.proc.Done()
	}
	select {
	case <-c.conn.Done():
	case <-procDone:
		// Let the connection read what codex wrote last, briefly; then stop it.
		select {
		case <-c.conn.Done():
		case <-time.After(200 * time.Millisecond):
			_ = c.conn.Close()
		}
	case <-c.closed:
		<-c.conn.Done()
	}

	err := c.conn.Err()
	select {
	case <-c.closed:
		err = fmt.Errorf("codex %w", ErrClosed)
	default:
		if c.proc != nil {
			select {
			case <-c.proc.Done():
			case <-time.After(200 * time.Millisecond):
				// The output closed but the process lingers: it is of no use any more.
				_ = c.proc.Close()
			}
			if exitErr := c.proc.ExitError(); exitErr != nil {
				err = exitErr
			}
		}
	}
	// Every subscription learns why before Done closes: Close, which waits for Done, abandons
	// subscriptions, and one abandoned first would end with no reason.
	c.mu.Lock()
	c.err, c.ended = err, true
	subs := slices.Collect(maps.Keys(c.subs))
	c.mu.Unlock()
	for _, s := range subs {
		s.end(err)
	}
	close(c.done)
}

// subscriptions returns the open subscriptions.
func (c *Client) subscriptions() []*Subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Collect(maps.Keys(c.subs))
}

// explain adds what codex said on stderr to an error caused by its death.
func (c *Client) explain(err error) error {
	if err == nil {
		return nil
	}
	select {
	case <-c.done:
		if c.err != nil && !errors.Is(err, c.err) {
			return fmt.Errorf("%w: %w", err, c.err)
		}
	default:
	}
	return err
}

// Subscribe returns the notifications of threadID, or of every thread and none when threadID is "".
func (c *Client) Subscribe(threadID string) *Subscription {
	return c.subscribe(threadID, true)
}

func (c *Client) subscribe(threadID string, armed bool) *Subscription {
	s := newSubscription(threadID, armed, c.unsubscribe)
	c.mu.Lock()
	c.subs[s] = struct{}{}
	ended, err := c.ended, c.err
	c.mu.Unlock()
	if ended {
		s.end(err)
	}
	c.wg.Go(s.pump)
	return s
}

func (c *Client) unsubscribe(s *Subscription) {
	c.mu.Lock()
	delete(c.subs, s)
	c.mu.Unlock()
}

// route delivers a notification to the subscriptions it belongs to. It runs on the read goroutine.
func (c *Client) route(n Notification) {
	ev := Event{Method: CanonicalMethod(n.Method), Params: n.Params}
	ev.Value, ev.Err = DecodeNotification(n)
	if ev.Err != nil {
		c.log.Warn("malformed codex notification", "method", n.Method, "err", ev.Err)
	}
	var known bool
	if ev.Err == nil {
		ev.ThreadID, ev.TurnID, known = routingOf(ev.Value)
	}
	if !known { // a method this package does not decode: one more pass, for its ids alone
		ev.ThreadID, ev.TurnID = routingIDs(n.Params)
	}
	if c.seen != nil {
		c.seen(ev)
	}
	if ev.Method == NotifyServerRequestResolved {
		if v, ok := ev.Value.(*ServerRequestResolvedParams); ok {
			c.withdraw(json.RawMessage(v.RequestID))
		}
	}

	c.mu.Lock()
	to := c.routeTo[:0]
	for s := range c.subs {
		if s.threadID == "" || s.threadID == ev.ThreadID {
			to = append(to, s)
		}
	}
	c.mu.Unlock()
	for i, s := range to {
		s.throttle(c.done) // without c.mu: a subscription may be closed meanwhile
		s.push(ev)
		to[i] = nil
	}
	c.routeTo = to
}

// routingOf reads the thread and turn of a decoded notification from its fields, as routingIDs
// would from its params; ok is false for a value it does not know.
func routingOf(v any) (threadID, turnID string, ok bool) {
	switch p := v.(type) {
	case *TurnStartedParams:
		return p.ThreadID, p.Turn.ID, true
	case *TurnCompletedParams:
		return p.ThreadID, p.Turn.ID, true
	case *ItemParams:
		return p.ThreadID, p.TurnID, true
	case *DeltaParams:
		return p.ThreadID, p.TurnID, true
	case *TurnDiffParams:
		return p.ThreadID, p.TurnID, true
	case *TurnPlanParams:
		return p.ThreadID, p.TurnID, true
	case *TokenUsageParams:
		return p.ThreadID, p.TurnID, true
	case *ErrorParams:
		return p.ThreadID, p.TurnID, true
	case *ServerRequestResolvedParams:
		return p.ThreadID, "", true
	case *ThreadStatusParams:
		return p.ThreadID, "", true
	case *ThreadStartedParams:
		return p.Thread.ID, "", true
	}
	return "", "", false
}

// routingIDs reads the thread and turn a notification belongs to, wherever codex put them.
func routingIDs(params json.RawMessage) (threadID, turnID string) {
	var ids struct {
		ThreadID string `json:"threadId"`
		TurnID   string `json:"turnId"`
		Turn     *struct {
			ID string `json:"id"`
		} `json:"turn"`
		Thread *struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if json.Unmarshal(params, &ids) != nil {
		return "", ""
	}
	threadID, turnID = ids.ThreadID, ids.TurnID
	if threadID == "" && ids.Thread != nil {
		threadID = ids.Thread.ID
	}
	if turnID == "" && ids.Turn != nil {
		turnID = ids.Turn.ID
	}
	return threadID, turnID
}

// serveRequest wraps the handler so that codex withdrawing a request cancels its context.
func (c *Client) serveRequest(h RequestHandler) RequestHandler {
	return func(ctx context.Context, req *Request) (any, error) {
		if h == nil {
			return nil, Errorf(CodeMethodNotFound, "method not supported by this client: %s", req.Method)
		}
		ctx, cancel := context.WithCancel(ctx)
		key := string(bytes.TrimSpace(req.ID))
		c.inflight.Store(key, cancel)
		defer func() {
			c.inflight.Delete(key)
			cancel()
		}()
		return h(ctx, req)
	}
}

func (c *Client) withdraw(id json.RawMessage) {
	if cancel, ok := c.inflight.Load(string(bytes.TrimSpace(id))); ok {
		cancel.(context.CancelFunc)()
	}
}
