// Package lsp is the editor face of hermes-lsp: a language server that turns editor commands and
// code actions into agent turns of the agent host, asks the editor about codex's approvals, and
// streams each turn back as work-done progress, messages and hermes/turnEvent notifications. It
// degrades to what each client supports: VS Code, Neovim, Helix, Emacs/eglot.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/stackhint"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/framing"
	"github.com/hermes-lsp/hermes-lsp/lsp/review"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Options configure a server. Every field may be left zero.
type Options struct {
	// Logger receives the server's logs; nil discards them. Never stdout: that is the protocol.
	Logger *slog.Logger
	// CodexPath overrides the configured codex binary (the --codex flag).
	CodexPath string
	// Yolo accepts every approval (the --yolo flag or HERMES_YOLO_MODE).
	Yolo bool
	// YoloSource says where Yolo came from, as hermes.status reports it: "flag" or "env" (default
	// "flag" when Yolo is set).
	YoloSource string
	// Warnings are shown to the user once the client is initialized (for example a HERMES_YOLO_MODE
	// value nobody understands, which leaves auto-approval off).
	Warnings []string
	// Token, when set, must arrive as initializationOptions.hermes.token of the first message, an
	// initialize request (TCP clients); a wrong or missing token closes the connection.
	Token string
	// HandshakeTimeout, when positive, closes the connection unless a good initialize arrives within
	// it. Any message before that initialize also closes it. Sockets set it; stdio does not.
	HandshakeTimeout time.Duration
	// CloseOnOversizedFrame ends the connection on a frame over the size limits (sockets); without it
	// such a frame is skipped with an error reply and the server goes on (stdio).
	CloseOnOversizedFrame bool
	// HandshakeMaxBody, when positive, is the largest frame body read before the good initialize
	// of a connection that must begin with one (HandshakeTimeout or Token set): a larger frame
	// closes the connection before its body is read. After that initialize the usual limits apply.
	HandshakeMaxBody int64
	// OnAdmit, when set, is called once a connection that must begin with a good initialize has
	// sent it, before the initialize is handled (socket servers count the connections not yet
	// admitted).
	OnAdmit func()
	// StartCodex replaces how codex is started (tests use a fake).
	StartCodex func(ctx context.Context, opts codex.Options) (*codex.Client, error)
	// ClientTimeout bounds each request the server makes to the editor (default 10s).
	ClientTimeout time.Duration
	// MinTurnTimeout, when positive, replaces the least turnTimeoutSeconds the settings may set
	// (MinTurnTimeoutSeconds): tests lower it to watch a turn's deadline fire.
	MinTurnTimeout time.Duration
	// Version is reported in initialize's serverInfo.
	Version string
}

// Server is one LSP connection. Create it with NewServer and run it with Serve.
type Server struct {
	opts Options
	log  *slog.Logger

	conn     jsonrpc2.Conn
	notifier framing.Notifier // conn's stream, which writes notifications in one pass
	ctx      context.Context  // cancelled when the connection ends
	wg       conc.WaitGroup   // request handlers and every other goroutine of the connection

	tokenSeq atomic.Int64 // names the progress tokens asked for before a turn has an id

	mu          sync.Mutex
	state       serverState
	caps        clientCaps
	settings    settings.Settings
	host        *agenthost.Host
	folders     *workspace.Set
	docs        *textdoc.Documents
	diagnostics map[string][]protocol.Diagnostic // per document, as code action requests showed them
	turns       map[string]*turnView             // running turns by folder
	origins     annotate.Origins                 // the lines turns were asked from (origins.go)
	inlayKick   chan struct{}                    // asks inlayRefreshLoop for a refresh (inlayhint.go)
	idleKick    chan struct{}                    // a turn ended: memoryLoop waits for idleness (progress.go)
	hints       *hintQueue                       // documents edited since editedDocsLoop last told s.edited
	edited      []editedFeature                  // the diagnostics that follow edits: hints, findings
	threadCache map[string]cachedThreads         // per folder, the past threads code actions offer (threads.go)
	findings    *review.Findings                 // review findings, published as diagnostics (lsp/review)
	diagSets    diagnosticSets                   // the server's own diagnostics (diagnostics.go)
	inflight    map[jsonrpc2.ID]context.CancelFunc
	exitCode    int

	approvals        *approver
	approvalFallback bool // the editor cannot show approval prompts: use messages and code actions

	configMu     sync.Mutex        // held while settings from the workspace are applied, one change at a time
	trustAnswers map[string]bool   // the user's answers about trusted settings, by folder, key and value
	warnedAuto   map[string]string // per folder, the auto-approval source the user was last warned of

	exited chan struct{} // closed when the client sends exit

	admitted   bool          // a strict connection has seen its good initialize (handshake.go)
	admittedCh chan struct{} // closed then

	admitter framing.Admitter // conn's stream, told by admit to lift its handshake limit
}

type serverState int

const (
	stateNew serverState = iota
	stateInitialized
	stateShutdown
	stateExited
)

// NewServer returns a server for one connection.
func NewServer(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.ClientTimeout <= 0 {
		opts.ClientTimeout = 10 * time.Second
	}
	s := &Server{
		opts:        opts,
		log:         log,
		settings:    settings.Default(),
		folders:     &workspace.Set{},
		docs:        textdoc.NewDocuments(),
		diagnostics: make(map[string][]protocol.Diagnostic),
		turns:       make(map[string]*turnView),
		inlayKick:   make(chan struct{}, 1),
		idleKick:    make(chan struct{}, 1),
		hints:       newHintQueue(),
		threadCache: make(map[string]cachedThreads),
		inflight:    make(map[jsonrpc2.ID]context.CancelFunc),
		admittedCh:  make(chan struct{}),
		exited:      make(chan struct{}),

		trustAnswers: make(map[string]bool),
		warnedAuto:   make(map[string]string),
	}
	s.approvals = newApprover(s)
	s.findings = review.New(review.Config{
		Docs: s.docs,
		Publish: func(ctx context.Context, uri string, diags []protocol.Diagnostic) {
			s.publishDiagnostics(ctx, uri, review.Feature, diags)
		},
		Save:    s.saveFindings,
		Enabled: s.reviewEnabled,
		Source:  diagnosticSource,
		Log:     log,
	})
	s.edited = []editedFeature{s.publishInstructionHints, s.findings.Refresh}
	return s
}

// Serve speaks LSP on rwc until the client sends exit, the stream ends, or ctx is cancelled. It stops
// codex and waits for every goroutine it started before it returns. The error is nil after a clean
// shutdown and exit.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	fopts := framing.Options{CloseOnOversized: s.opts.CloseOnOversizedFrame, Logger: s.log}
	if s.strictHandshake() {
		fopts.HandshakeMaxBody = s.opts.HandshakeMaxBody // lifted by admit
	}
	stream := framing.NewStream(rwc, fopts)
	s.conn = jsonrpc2.NewConn(stream)
	s.notifier, _ = stream.(framing.Notifier)
	s.admitter, _ = stream.(framing.Admitter)
	s.conn.Go(ctx, s.handle)
	s.watchHandshake(ctx)

	select {
	case <-s.conn.Done():
	case <-ctx.Done():
		_ = s.conn.Close()
		<-s.conn.Done()
	}
	cancel() // every handler's context ends with the connection
	err := s.stopHost()
	s.wg.Wait()

	s.mu.Lock()
	state, connErr := s.state, s.conn.Err()
	if state != stateExited {
		s.exitCode = 1 // the editor went away without shutdown and exit
	}
	s.mu.Unlock()
	switch {
	case state == stateExited:
		return err
	case connErr != nil && !errors.Is(connErr, io.EOF) && !errors.Is(connErr, io.ErrClosedPipe):
		return fmt.Errorf("connection ended: %w", connErr)
	}
	return err
}

// Exited is closed when the client sends exit: the process should end soon after, whatever is
// still running.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// ExitCode is what the process should exit with: 0 after shutdown then exit, 1 otherwise (as the
// LSP specification asks).
func (s *Server) ExitCode() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

func (s *Server) stopHost() error {
	s.mu.Lock()
	h := s.host
	s.mu.Unlock()
	if h == nil {
		return nil
	}
	return h.Close()
}

// handle is the connection's handler. The library calls it on its read goroutine, in order:
// notifications run here, in order; each request runs on a goroutine of its own so that a long
// request (or one waiting for the editor) never blocks reading. It always returns nil: an error
// would close the connection.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if !s.admit(req) {
		return nil
	}
	call, isCall := req.(*jsonrpc2.Call)
	if !isCall {
		s.notification(ctx, req)
		return nil
	}
	id := call.ID()
	rctx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	s.inflight[id] = cancel
	s.mu.Unlock()
	s.wg.Go(func() {
		stackhint.Grow() // a request may start a turn: deep calls ahead (see stackhint)
		defer func() {
			s.mu.Lock()
			delete(s.inflight, id)
			s.mu.Unlock()
			cancel()
		}()
		result, err := s.safeRequest(rctx, req)
		if err == nil && rctx.Err() != nil && s.ctx.Err() == nil {
			err = jsonrpc2.NewError(requestCancelled, "request cancelled")
		}
		// A reply written with a cancelled context is dropped: always reply on one that is not.
		if rerr := reply(context.WithoutCancel(ctx), result, err); rerr != nil {
			s.log.Debug("could not reply", "method", req.Method(), "err", rerr)
		}
	})
	return nil
}

// requestCancelled is LSP's RequestCancelled error code.
const requestCancelled jsonrpc2.Code = -32800

// safeRequest runs a request handler, turning a panic into an internal error.
func (s *Server) safeRequest(ctx context.Context, req jsonrpc2.Request) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("request handler panicked", "method", req.Method(), "panic", r)
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "hermes-lsp failed handling %s: %v (please report this)", req.Method(), r)
		}
	}()
	return s.request(ctx, req)
}

func (s *Server) notification(ctx context.Context, req jsonrpc2.Request) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("notification handler panicked", "method", req.Method(), "panic", r)
		}
	}()
	params := req.Params()
	switch req.Method() {
	case "$/cancelRequest":
		s.cancelRequest(params)
	case protocol.MethodInitialized:
		s.initialized()
	case protocol.MethodExit:
		s.exit()
	case protocol.MethodTextDocumentDidOpen:
		var p protocol.DidOpenTextDocumentParams
		if s.decode(req, &p) {
			s.docs.Open(string(p.TextDocument.URI), p.TextDocument.Version, p.TextDocument.Text)
			s.hints.add(string(p.TextDocument.URI))
			// What is on disk now is the buffer's saved state: a buffer opened with unsaved edits
			// must count as dirty, so that nothing the agent did replaces them. The editor opened
			// this document, so it may lie outside every folder: it is read wherever it is, but
			// only if it is a regular file, bounded.
			if path, err := workspace.PathFromURI(string(p.TextDocument.URI)); err == nil {
				if disk, err := workspace.ReadAnywhere(ctx, path, maxReloadBytes); err == nil {
					s.docs.Reloaded(path, string(disk))
				}
			}
		}
	case protocol.MethodTextDocumentDidChange:
		var p textdoc.DidChangeParams
		if s.decode(req, &p) {
			if err := s.docs.Change(string(p.TextDocument.URI), p.TextDocument.Version, p.ContentChanges); err != nil {
				s.log.Warn("could not apply a document change", "uri", p.TextDocument.URI, "err", err)
			}
			s.hints.add(string(p.TextDocument.URI))
		}
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if s.decode(req, &p) {
			s.docs.Close(string(p.TextDocument.URI))
			s.hints.add(string(p.TextDocument.URI)) // a closed document's hints are cleared
			s.mu.Lock()
			delete(s.diagnostics, string(p.TextDocument.URI))
			s.mu.Unlock()
		}
	case protocol.MethodTextDocumentDidSave:
		var p struct {
			TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
			Text         *string                         `json:"text"`
		}
		if s.decode(req, &p) {
			s.docs.Saved(string(p.TextDocument.URI), p.Text)
		}
	case protocol.MethodWorkspaceDidChangeConfiguration:
		s.didChangeConfiguration(params)
	case protocol.MethodWorkspaceDidChangeWorkspaceFolders:
		var p protocol.DidChangeWorkspaceFoldersParams
		if s.decode(req, &p) {
			s.didChangeFolders(p)
		}
	case protocol.MethodWorkDoneProgressCancel:
		var p protocol.WorkDoneProgressCancelParams
		if s.decode(req, &p) {
			s.cancelProgress(p.Token)
		}
	default:
		s.log.Debug("ignored notification", "method", req.Method())
	}
}

// decode reads a notification's params; a bad one is logged and skipped.
func (s *Server) decode(req jsonrpc2.Request, v any) bool {
	if err := json.Unmarshal(req.Params(), v); err != nil {
		s.log.Warn("malformed notification params", "method", req.Method(), "err", err)
		return false
	}
	return true
}

// cancelRequest handles $/cancelRequest with a numeric or string id.
func (s *Server) cancelRequest(params json.RawMessage) {
	id, ok := cancelID(params)
	if !ok {
		return
	}
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// request dispatches a request.
func (s *Server) request(ctx context.Context, req jsonrpc2.Request) (any, error) {
	method := req.Method()
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch {
	case method == protocol.MethodInitialize:
		if state != stateNew {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize was already called")
		}
		var p initializeParams
		if err := decodeInitialize(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initialize: %v", err)
		}
		return s.initialize(ctx, &p)
	case state == stateNew:
		return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "the server is not initialized: send initialize first")
	case method == protocol.MethodShutdown:
		return nil, s.shutdown()
	case state == stateShutdown:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the server is shutting down")
	}
	switch method {
	case protocol.MethodWorkspaceExecuteCommand:
		var p commandParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "executeCommand: %v", err)
		}
		return s.executeCommand(ctx, &p)
	case protocol.MethodTextDocumentCodeAction:
		var p codeActionParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "codeAction: %v", err)
		}
		return s.codeActions(ctx, &p)
	case protocol.MethodTextDocumentHover:
		var p protocol.HoverParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "hover: %v", err)
		}
		return s.hover(&p)
	case MethodInlayHint:
		var p inlayHintParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "inlayHint: %v", err)
		}
		return s.inlayHints(&p)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "hermes-lsp does not implement %s", method)
}

// goAsync runs f on a goroutine the connection owns (for work a notification starts).
func (s *Server) goAsync(name string, f func(ctx context.Context)) {
	s.wg.Go(func() {
		stackhint.Grow() // a turn's follower, a review: deep calls ahead (see stackhint)
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("background task panicked", "task", name, "panic", r)
			}
		}()
		f(s.ctx)
	})
}
