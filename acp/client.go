package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/internal/agentproc"
	"github.com/hermes-lsp/hermes-lsp/internal/jsonrpc"
	"github.com/hermes-lsp/hermes-lsp/internal/queue"
)

// Version is the version of ACP this package speaks: stable v1.
const Version ProtocolVersion = 1

// ErrClosed is wrapped by the errors of calls on a client whose connection has ended.
var ErrClosed = jsonrpc.ErrClosed

// Error is a JSON-RPC error answer from the agent (ErrorCodeAuthenticationRequired, ...).
type Error = jsonrpc.Error

// Options configure a Client. Every field may be left zero but Command, which Start needs.
type Options struct {
	// Command is the agent's executable (a path, or a name looked up on PATH), Args its arguments,
	// Env extra environment entries ("KEY=value") on top of this process's, and Dir its working
	// directory (empty: this process's). Start only.
	Command string
	Args    []string
	Env     []string
	Dir     string
	// Name names the agent in errors ("codex-acp"); default the command's base name, or "the agent".
	Name string
	// StderrLines is how many lines of the agent's stderr to keep for error messages (default 300).
	StderrLines int
	// Grace bounds each step of Close: the wait after closing the agent's stdin, then after SIGTERM
	// (default 2s). Some agents do not exit at the end of their input.
	Grace time.Duration
	// StartTimeout, when positive, bounds the start: spawning the agent and its answer to
	// initialize.
	StartTimeout time.Duration
	// ClientInfo names the client to the agent; a default names hermes-lsp.
	ClientInfo Implementation
	// Handler answers the agent's requests and receives its session updates. Nil advertises no file
	// system, drops the updates and answers every permission request "cancelled".
	Handler Handler
	// MaxLine is the longest message accepted, in bytes (default 64 MiB, as codex's); a longer one
	// is dropped.
	MaxLine int
	// Logger receives protocol anomalies; nil discards them.
	Logger *slog.Logger
}

// Client speaks ACP to one agent: it owns the process (when Start spawned it), the connection, and
// the goroutines that deliver the agent's updates and requests to the Handler. All methods are safe
// for concurrent use.
type Client struct {
	name    string
	conn    *jsonrpc.Conn
	proc    *agentproc.Process // nil when the client runs over given pipes
	tail    *agentproc.Tail    // the agent's stderr, or the lines of its output that are not JSON-RPC
	log     *slog.Logger
	handler Handler
	info    InitializeResponse

	// The agent's session updates, in the order they were read: the read goroutine pushes them
	// (counting them in pushed), one goroutine delivers them to the Handler (counting delivered).
	updates   *queue.Unbounded[json.RawMessage]
	pushed    atomic.Uint64
	delivered *counter

	inflight inflight // the agent's requests being answered, to cancel

	// ctx is the context of the Handler's SessionUpdate calls: cancelled by Close.
	ctx    context.Context
	cancel context.CancelFunc
	wg     conc.WaitGroup
	done   chan struct{}
	err    error // why the client ended, set before done closes
	// lastWords are the lines an agent on pipes wrote that were not JSON-RPC, when it ended of its
	// own accord (as an *agentproc.ExitError has them for an agent Start spawned); set before done
	// closes.
	lastWords string
	closed    chan struct{}
	once      sync.Once
}

// Start spawns the agent as opts say and completes the initialize handshake. The context and
// opts.StartTimeout bound the start; the agent lives until Close or its own end.
func Start(ctx context.Context, opts Options) (*Client, error) {
	name := agentName(opts)
	initCtx, cancel := startContext(ctx, opts.StartTimeout)
	defer cancel()
	proc, err := agentproc.Start(agentproc.Options{
		Name: name, Command: opts.Command, Args: opts.Args, Env: opts.Env, Dir: opts.Dir,
		StderrLines: opts.StderrLines, Grace: opts.Grace,
	})
	if err != nil {
		return nil, err
	}
	c := newClient(proc.Stdout(), proc.Stdin(), proc, name, opts)
	if err := c.initialize(initCtx, opts.ClientInfo); err != nil {
		if ctx.Err() == nil && initCtx.Err() != nil {
			// An agent that never answered initialize has nothing to lose: no grace periods.
			proc.Kill()
			_ = c.Close()
			return nil, fmt.Errorf("start %s: it did not answer initialize within %v (is %s an ACP agent? is it hung?)",
				name, opts.StartTimeout, proc.Path())
		}
		_ = c.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	return c, nil
}

// New runs the protocol over r and w (an in-process agent, or one started elsewhere) and completes
// the initialize handshake; ctx and opts.StartTimeout bound it. The client owns r and w.
func New(ctx context.Context, r io.ReadCloser, w io.WriteCloser, opts Options) (*Client, error) {
	name := agentName(opts)
	initCtx, cancel := startContext(ctx, opts.StartTimeout)
	defer cancel()
	c := newClient(r, w, nil, name, opts)
	if err := c.initialize(initCtx, opts.ClientInfo); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	return c, nil
}

func agentName(opts Options) string {
	switch {
	case opts.Name != "":
		return opts.Name
	case opts.Command != "":
		return filepath.Base(opts.Command)
	}
	return "the agent"
}

func startContext(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

func newClient(r io.ReadCloser, w io.WriteCloser, proc *agentproc.Process, name string, opts Options) *Client {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		name: name, proc: proc, log: log, handler: opts.Handler,
		ctx: ctx, cancel: cancel,
		updates:   queue.New[json.RawMessage](),
		delivered: newCounter(),
		inflight:  inflight{byID: map[string]*request{}, cancelled: map[string]bool{}},
		done:      make(chan struct{}),
		closed:    make(chan struct{}),
	}
	if proc != nil {
		c.tail = proc.Stderr()
	} else {
		c.tail = agentproc.NewTail(max(opts.StderrLines, 300))
	}
	c.conn = jsonrpc.NewConn(r, w, jsonrpc.ConnOptions{
		Peer:           name,
		JSONRPC:        "2.0",
		OnNotification: c.notified,
		OnRequest:      c.serve,
		OnBadLine:      c.tail.Add,
		Logger:         log,
		MaxLine:        opts.MaxLine,
	})
	c.wg.Go(c.updates.Run)
	c.wg.Go(c.deliver)
	c.wg.Go(c.watch)
	return c
}

// initialize sends initialize and checks the agent's answer: it must speak protocol version 1.
func (c *Client) initialize(ctx context.Context, info Implementation) error {
	if info.Name == "" {
		info = Implementation{Name: "hermes-lsp", Title: "hermes-lsp", Version: "dev"}
	}
	fs := c.handler != nil
	params := InitializeRequest{
		ProtocolVersion:    Version,
		ClientCapabilities: ClientCapabilities{Fs: FileSystemCapabilities{ReadTextFile: fs, WriteTextFile: fs}, Terminal: false},
		ClientInfo:         &info,
	}
	if err := c.call(ctx, MethodInitialize, params, &c.info); err != nil {
		return err
	}
	if c.info.ProtocolVersion != Version {
		return fmt.Errorf("%s speaks ACP version %d; this client speaks version %d only", c.name, c.info.ProtocolVersion, Version)
	}
	return nil
}

// Info is the agent's answer to initialize: its name and version (AgentInfo), what it can do
// (AgentCapabilities: loadSession, promptCapabilities, mcpCapabilities, sessionCapabilities) and
// how it signs in (AuthMethods).
func (c *Client) Info() InitializeResponse { return c.info }

// Pid is the agent's process id, or 0 when the client runs over pipes.
func (c *Client) Pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.Pid()
}

// Done is closed when the client has ended: the agent exited, its output closed, or Close was
// called.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err says why the client ended (nil while it runs). When the agent died, it is an
// *agentproc.ExitError carrying the exit status and the last lines of its stderr.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// StderrTail returns the last n lines the agent wrote on stderr (or, over pipes, the lines of its
// output that were not JSON-RPC).
func (c *Client) StderrTail(n int) string { return c.tail.Last(n) }

// Close stops the agent (its stdin closed, then SIGTERM, then SIGKILL to its process group; a job
// object on Windows), drops the updates not yet delivered, and waits for every goroutine the client
// started, the Handler's calls among them: their contexts end first.
func (c *Client) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		c.cancel()
		if c.proc != nil {
			err = c.proc.Close()
		}
		if cerr := c.conn.Close(); err == nil && cerr != nil && !errors.Is(cerr, ErrClosed) {
			err = cerr
		}
		c.updates.Abandon()
	})
	c.wg.Wait()
	return err
}

// watch ends the client when the agent exits or its connection ends, whichever comes first, and
// records why.
func (c *Client) watch() {
	var procDone <-chan struct{}
	if c.proc != nil {
		procDone = c.proc.Done()
	}
	select {
	case <-c.conn.Done():
	case <-procDone:
		// Let the connection read what the agent wrote last, briefly; then stop it.
		select {
		case <-c.conn.Done():
		case <-time.After(200 * time.Millisecond):
			_ = c.conn.Close()
		}
	case <-c.closed:
		<-c.conn.Done()
	}
	c.updates.Close() // nothing more is read: what was is still delivered

	err := c.conn.Err()
	select {
	case <-c.closed:
	default:
		if c.proc != nil {
			select {
			case <-c.proc.Done():
			case <-time.After(200 * time.Millisecond):
				_ = c.proc.Close() // its output closed but it lingers: it is of no use any more
			}
			if exitErr := c.proc.ExitError(); exitErr != nil {
				err = exitErr
			}
		} else if c.lastWords = c.tail.Last(20); c.lastWords != "" {
			err = fmt.Errorf("%w; its last output:\n%s", err, c.lastWords)
		}
	}
	c.err = err
	close(c.done)
}

// call sends a request and decodes its answer leniently into result (which may be nil). An error
// caused by the agent's end says how it ended.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	if err := c.conn.Call(ctx, method, params, &raw); err != nil {
		return c.explain(ctx, err)
	}
	if result == nil {
		return nil
	}
	if err := decode(raw, result); err != nil {
		return fmt.Errorf("%s: decode the answer of %s: %w", method, c.name, err)
	}
	return nil
}

// explain adds how the agent ended to an error caused by its end: its exit status and last words.
// It waits (briefly: watch bounds it) for the client to record them.
func (c *Client) explain(ctx context.Context, err error) error {
	if !errors.Is(err, ErrClosed) {
		return err
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		return err
	}
	var exit *agentproc.ExitError
	switch {
	case errors.As(c.err, &exit):
		return fmt.Errorf("%w: %w", err, exit)
	case c.lastWords != "":
		return fmt.Errorf("%w; its last output:\n%s", err, c.lastWords)
	}
	return err
}
