// Package lsp is the editor face of hermes-lsp: a language server that turns editor commands and
// code actions into agent turns of the agent host, asks the editor about codex's approvals, and
// streams each turn back as work-done progress, messages and hermes/turnEvent notifications. It
// degrades to what each client supports: VS Code, Neovim, Helix, Emacs/eglot.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	// segmentio's decoder reads the editor's messages. Its make bench rows (docs/benchmarks.md,
	// 2026-12-04): idle RSS after 103 turns 18.8 MiB with it, 19.3 MiB with encoding/json; the LSP
	// round trip 0.13 ms, 0.15 ms.
	fastjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/stackhint"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/approve"
	"github.com/hermes-lsp/hermes-lsp/lsp/buffers"
	"github.com/hermes-lsp/hermes-lsp/lsp/changes"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/framing"
	"github.com/hermes-lsp/hermes-lsp/lsp/gate"
	"github.com/hermes-lsp/hermes-lsp/lsp/instruct"
	"github.com/hermes-lsp/hermes-lsp/lsp/review"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/lsp/threads"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Options configure a server. Every field may be left zero.
type Options struct {
	// Logger receives the server's logs; nil discards them. Never stdout: that is the protocol.
	Logger *slog.Logger
	// CodexPath overrides the configured codex binary (the --codex flag).
	CodexPath string
	// Agent, when its Kind is set, overrides the agent settings (the --agent flags and
	// HERMES_AGENT_KIND / HERMES_AGENT_COMMAND).
	Agent agenthost.AgentConfig
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
	// StartAgent starts an agent of a kind other than codex (agent.kind); nil runs an ACP agent
	// with agenthost/acpagent, the editor's open buffers its Editor. Tests connect a fake.
	StartAgent func(ctx context.Context, agent agenthost.AgentConfig, opts codex.Options) (agenthost.Agent, error)
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

	editor *editor.Client // the server's requests and notifications to the editor, and its caps

	settings *settings.Current              // the settings in force, replaced whole on a change
	host     atomic.Pointer[agenthost.Host] // set once, at initialize

	conn *connection // the client's connection: its goroutines, handshake, state and requests

	folders      *workspace.Set
	docs         *textdoc.Documents
	turns        *runningTurns          // the turns being followed, by folder
	lines        *annotate.Lines        // the lines turns were asked from: inlay hints, hover
	edits        *textdoc.Edits         // tells the features that follow edits which documents changed
	instructions *instruct.Instructions // `hermes:` lines: the one to run, and hints on the others
	reviews      *review.Reviews        // hermes.review and the automatic review
	changes      *changes.Changes       // the agent's edits, hunk by hunk, under review

	approvals *approve.Approver // the host's Approver, auto-approval and trusted settings
	threads   *threads.Threads  // threads, models, rate limits and transcripts

	codexTold atomic.Bool // the user was told their codex is outside the supported releases (codexStarted)
}

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
		opts:     opts,
		log:      log,
		editor:   editor.New(log, opts.ClientTimeout),
		settings: settings.NewCurrent(settings.Default()),
		folders:  &workspace.Set{},
		docs:     textdoc.NewDocuments(),
		turns:    newRunningTurns(),
		conn:     newConnection(gate.New(gate.Config{Token: opts.Token, Timeout: opts.HandshakeTimeout, OnAdmit: opts.OnAdmit, Log: log})),
	}
	s.approvals = approve.New(approve.Config{
		Editor: s.editor, Log: log, Host: s.host.Load, Settings: s.settings.Load,
		Folders: s.folders, Docs: s.docs, StateDir: s.stateDir,
	})
	s.threads = threads.New(threads.Config{
		Editor: s.editor, Log: log, Host: s.host.Load, Settings: s.settings.Load,
		Folders: s.folders, StateDir: s.stateDir,
	})
	findings := review.New(review.Config{
		Docs: s.docs,
		Publish: func(ctx context.Context, uri string, diags []protocol.Diagnostic) {
			s.editor.Diagnostics().Publish(ctx, uri, review.Feature, diags)
		},
		Save:    func(folder string, data []byte) error { return s.reviews.Save(folder, data) },
		Enabled: func() bool { return s.settings.Load().Review.Enabled },
		Source:  diagnosticSource,
		Log:     log,
	})
	s.reviews = review.NewReviews(findings, review.ReviewsConfig{
		Editor:   s.editor,
		Log:      log,
		Settings: s.settings.Load,
		Session:  s.session,
		Follow: func(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, run *review.Run, token *protocol.ProgressToken) {
			s.watch(ctx, folder, turn, "review "+run.Label, run, token, nil)
		},
	})
	s.lines = annotate.NewLines(s.docs, s.editor, log, func() bool { return s.settings.Load().InlineStatus })
	s.changes = changes.New(changes.Config{
		Docs: s.docs, Editor: s.editor,
		Publish: func(ctx context.Context, uri string, diags []protocol.Diagnostic) {
			s.editor.Diagnostics().Publish(ctx, uri, changes.Feature, diags)
		},
		RefreshHints: s.lines.Refresh,
		SyncBuffers:  buffers.New(s.docs, s.editor, log).Sync,
		Session:      s.changesSession,
		Busy:         func(folder string) bool { return s.turns.in(folder) != nil },
		Enabled:      func() bool { return s.settings.Load().Edits.Review },
		Source:       diagnosticSource,
		Log:          log,
	})
	s.instructions = instruct.New(instruct.Config{
		Docs: s.docs, Origins: s.lines.Origins(), Kind: s.instructionDocument, IsTranscript: s.threads.IsTranscript,
		Enabled: func() bool { return s.settings.Load().InstructionHints },
		Publish: func(ctx context.Context, uri string, diags []protocol.Diagnostic) {
			s.editor.Diagnostics().Publish(ctx, uri, instruct.Feature, diags)
		},
		Published: func() []string { return s.editor.Diagnostics().URIs(instruct.Feature) },
		Source:    diagnosticSource,
	})
	// editDelay gathers a burst of edits into one pass.
	const editDelay = 150 * time.Millisecond
	s.edits = textdoc.NewEdits(s.docs, editDelay, s.instructions.Refresh, findings.Refresh, s.changes.Refresh)
	return s
}

// Serve speaks LSP on rwc until the client sends exit, the stream ends, or ctx is cancelled. It stops
// codex and waits for every goroutine it started before it returns. The error is nil after a clean
// shutdown and exit.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.conn.ctx = ctx
	fopts := framing.Options{CloseOnOversized: s.opts.CloseOnOversizedFrame, Logger: s.log}
	if s.conn.gate.Strict() {
		fopts.HandshakeMaxBody = s.opts.HandshakeMaxBody // lifted once the gate admits the connection
	}
	stream := framing.NewStream(rwc, fopts)
	s.conn.rpc = jsonrpc2.NewConn(stream)
	notifier, _ := stream.(framing.Notifier)
	s.editor.Attach(s.conn.rpc, notifier)
	admitter, _ := stream.(framing.Admitter)
	s.conn.gate.Attach(s.conn.rpc.Close, admitter)
	s.conn.rpc.Go(ctx, s.handle)
	s.conn.wg.Go(func() { s.conn.gate.Watch(ctx) })

	select {
	case <-s.conn.rpc.Done():
	case <-ctx.Done():
		_ = s.conn.rpc.Close()
		<-s.conn.rpc.Done()
	}
	cancel() // every handler's context ends with the connection
	var err error
	if h := s.host.Load(); h != nil {
		err = h.Close()
	}
	s.conn.wg.Wait()

	exited, connErr := s.conn.end(), s.conn.rpc.Err()
	switch {
	case exited:
		return err
	case connErr != nil && !errors.Is(connErr, io.EOF) && !errors.Is(connErr, io.ErrClosedPipe):
		return fmt.Errorf("connection ended: %w", connErr)
	}
	return err
}

// Exited is closed when the client sends exit: the process should end soon after, whatever is
// still running.
func (s *Server) Exited() <-chan struct{} { return s.conn.exited }

// ExitCode is what the process should exit with: 0 after shutdown then exit, 1 otherwise (as the
// LSP specification asks).
func (s *Server) ExitCode() int { return s.conn.code() }

// handle is the connection's handler. The library calls it on its read goroutine, in order:
// notifications run here, in order; each request runs on a goroutine of its own so that a long
// request (or one waiting for the editor) never blocks reading. It always returns nil: an error
// would close the connection.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if !s.conn.gate.Admit(req) {
		return nil
	}
	call, isCall := req.(*jsonrpc2.Call)
	if !isCall {
		s.notification(ctx, req)
		return nil
	}
	id := call.ID()
	rctx, cancel := context.WithCancel(s.conn.ctx)
	s.conn.track(id, cancel)
	s.conn.wg.Go(func() {
		stackhint.Grow() // a request may start a turn: deep calls ahead (see stackhint)
		defer func() {
			s.conn.untrack(id)
			cancel()
		}()
		result, err := s.safeRequest(rctx, req)
		if err == nil && rctx.Err() != nil && s.conn.ctx.Err() == nil {
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
		if id, ok := cancelID(params); ok {
			s.conn.cancel(id)
		}
	case protocol.MethodInitialized:
		s.initialized()
	case protocol.MethodExit:
		s.conn.exit()
		_ = s.conn.rpc.Close()
	case protocol.MethodTextDocumentDidOpen:
		var p protocol.DidOpenTextDocumentParams
		if decode(s.log, req, &p) {
			s.docs.Open(string(p.TextDocument.URI), p.TextDocument.Version, p.TextDocument.Text)
			s.edits.Add(string(p.TextDocument.URI))
			s.editor.Diagnostics().Resend(ctx, string(p.TextDocument.URI))
			// What is on disk now is the buffer's saved state: a buffer opened with unsaved edits
			// must count as dirty, so that nothing the agent did replaces them. The editor opened
			// this document, so it may lie outside every folder: it is read wherever it is, but
			// only if it is a regular file, bounded.
			if path, err := workspace.PathFromURI(string(p.TextDocument.URI)); err == nil {
				if disk, err := workspace.ReadAnywhere(ctx, path, buffers.MaxReloadBytes); err == nil {
					s.docs.Reloaded(path, string(disk))
				}
			}
		}
	case protocol.MethodTextDocumentDidChange:
		var p textdoc.DidChangeParams
		if decode(s.log, req, &p) {
			if err := s.docs.Change(string(p.TextDocument.URI), p.TextDocument.Version, p.ContentChanges); err != nil {
				s.log.Warn("could not apply a document change", "uri", p.TextDocument.URI, "err", err)
			}
			s.edits.Add(string(p.TextDocument.URI))
		}
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if decode(s.log, req, &p) {
			s.docs.Close(string(p.TextDocument.URI))
			s.edits.Add(string(p.TextDocument.URI)) // a closed document's hints are cleared
			s.editor.Diagnostics().Forget(string(p.TextDocument.URI))
		}
	case protocol.MethodTextDocumentDidSave:
		var p struct {
			TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
			Text         *string                         `json:"text"`
		}
		if decode(s.log, req, &p) {
			s.docs.Saved(string(p.TextDocument.URI), p.Text)
		}
	case protocol.MethodWorkspaceDidChangeConfiguration:
		s.didChangeConfiguration(params)
	case protocol.MethodWorkspaceDidChangeWorkspaceFolders:
		var p protocol.DidChangeWorkspaceFoldersParams
		if decode(s.log, req, &p) {
			s.didChangeFolders(p)
		}
	case protocol.MethodWorkDoneProgressCancel:
		var p protocol.WorkDoneProgressCancelParams
		if decode(s.log, req, &p) {
			s.cancelProgress(p.Token)
		}
	default:
		s.log.Debug("ignored notification", "method", req.Method())
	}
}

// decode reads a notification's params; a bad one is logged and skipped.
func decode(log *slog.Logger, req jsonrpc2.Request, v any) bool {
	if err := fastjson.Unmarshal(req.Params(), v); err != nil {
		log.Warn("malformed notification params", "method", req.Method(), "err", err)
		return false
	}
	return true
}

// request dispatches a request.
func (s *Server) request(ctx context.Context, req jsonrpc2.Request) (any, error) {
	method := req.Method()
	state := s.conn.now()
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
		s.conn.move(stateShutdown)
		if h := s.host.Load(); h != nil {
			// Interrupt running turns and stop codex now; Serve waits for the rest.
			if err := h.Close(); err != nil {
				s.log.Debug("closing the host", "err", err)
			}
		}
		return nil, nil
	case state == stateShutdown:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the server is shutting down")
	}
	switch method {
	case protocol.MethodWorkspaceExecuteCommand:
		var p commandParams
		if err := fastjson.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "executeCommand: %v", err)
		}
		return s.executeCommand(ctx, &p)
	case protocol.MethodTextDocumentCodeAction:
		var p protocol.CodeActionParams
		if err := fastjson.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "codeAction: %v", err)
		}
		return s.codeActions(ctx, &p)
	case protocol.MethodTextDocumentHover:
		var p protocol.HoverParams
		if err := fastjson.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "hover: %v", err)
		}
		return s.hover(&p), nil
	case annotate.MethodInlayHint:
		var p annotate.InlayHintParams
		if err := fastjson.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "inlayHint: %v", err)
		}
		return s.inlayHints(&p), nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "hermes-lsp does not implement %s", method)
}

// goAsync runs f on a goroutine the connection owns (for work a notification starts).
func (s *Server) goAsync(name string, f func(ctx context.Context)) {
	s.conn.wg.Go(func() {
		stackhint.Grow() // a turn's follower, a review: deep calls ahead (see stackhint)
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("background task panicked", "task", name, "panic", r)
			}
		}()
		f(s.conn.ctx)
	})
}
