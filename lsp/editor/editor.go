// Package editor is the server's side of its conversation with the editor: the requests and
// notifications it sends, each request bounded (nothing the editor does or fails to do blocks a turn
// forever), and what the editor said it can do at initialize.
//
// A Client is safe for concurrent use. Its capabilities are set once, when the server handles
// initialize, and never change after that.
package editor

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Caps is what the editor said at initialize it can do, read once from its capabilities, its name
// and its experimental.hermes flags.
type Caps struct {
	Name             string
	WorkDoneProgress bool
	// ShowMessage is window.showMessage: showMessageRequest with action items.
	ShowMessage bool
	// ActionProps: the editor keeps an action item's own properties (window.showMessage.
	// messageActionItem.additionalPropertiesSupport): approval prompts carry their approvalId.
	ActionProps      bool
	ShowDocument     bool
	ApplyEdit        bool
	WorkspaceFolders bool
	Configuration    bool
	// ReloadsBuffers: the editor reloads a clean buffer whose file changed on disk by itself (VS
	// Code; Neovim with the hermes plugin, which says so in experimental.hermes.reloadsBuffers).
	ReloadsBuffers bool
	// ReloadByHand: the editor takes the new text of a file the agent changed, sent as an edit, as
	// unsaved changes, and then refuses to save them over the newer file (Helix: the buffer shows
	// "[+]", ":w" fails with "file modified by an external process" and ":q" with unsaved changes),
	// and it has no way to be told to reload. The server sends it no edit: a message tells the
	// person to reload (":reload-all"), which leaves the buffer clean.
	ReloadByHand bool
	// SavesUndoEdits: the editor saves the files an undo's workspace/applyEdit restored that had no
	// unsaved edits (Neovim with the hermes plugin: experimental.hermes.savesUndoEdits).
	SavesUndoEdits bool
	// ThreadPicker: the editor picks past threads itself (VS Code's extension; Neovim's plugin says
	// so in experimental.hermes.threadPicker): no code action per thread.
	ThreadPicker bool
	// ShowsTurns: the editor shows turns itself, from hermes/turnEvent (VS Code's chat view says so
	// in experimental.hermes.showsTurns): with the turnEvents setting on, a turn's end shows no
	// answer message and opens no transcript unless the user chose openTranscript.
	ShowsTurns bool
	// PlainMessages: the editor shows window/showMessage as plain text on one line (Helix's
	// statusline, Emacs's echo area, Neovim's command line, where a longer message asks the person
	// to press Enter): every editor but VS Code, whose notifications take several lines. Messages to
	// it are one-line summaries, without markdown; the whole text is in hover and the transcript.
	PlainMessages bool
	// ShowsResults: the editor shows what the commands it runs answer, and their errors, itself (VS
	// Code's extension, Neovim's plugin: experimental.hermes.showsResults or threadPicker). Another
	// editor runs a command by hand (Helix's :lsp-workspace-command) and shows neither: the server
	// says them in a message.
	ShowsResults bool
	// InlayHintRefresh: the editor takes workspace/inlayHint/refresh.
	InlayHintRefresh bool
	// PlainHover: the editor's hovers take plain text only (textDocument.hover.contentFormat names
	// formats, and not markdown).
	PlainHover bool
	// ResourceOps are the resource operations workspace/applyEdit takes (create, rename, delete).
	ResourceOps []string
	// EditMetadata: workspace/applyEdit takes the metadata member (LSP 3.18,
	// workspace.workspaceEdit.metadataSupport). Editors that predate it may refuse the whole edit
	// over the unknown member (eglot 1.9 answers "Internal error").
	EditMetadata bool
	// Emacs: the client is Emacs (lsp-mode's clientInfo "emacs", or hermes-lsp.el's
	// experimental.hermes.emacs under eglot, which sends no clientInfo): messages name its
	// commands (M-x hermes-lsp-approve).
	Emacs bool
	// AsksQuestions says the client asks codex's questions (elicitations, the agent's userInput)
	// itself, from the approvalWaiting turn event, and answers with hermes.approve: the server
	// neither prompts nor messages about them (VS Code's extension, hermes.nvim:
	// experimental.hermes.asksQuestions).
	AsksQuestions bool
}

// Notifier writes a notification in one encoding pass (lsp/framing's stream does).
type Notifier interface {
	Notify(ctx context.Context, method string, params any) error
}

// Client sends the server's requests and notifications to one editor.
type Client struct {
	conn     jsonrpc2.Conn
	notifier Notifier // nil: conn's own Notify
	log      *slog.Logger
	timeout  time.Duration // bounds each request but the ones that wait for a person

	diags     *Diagnostics         // the server's diagnostics, published through this client
	caps      atomic.Pointer[Caps] // set once, at initialize
	noPrompts atomic.Bool          // the editor answered showMessageRequest "method not found"
}

// New returns a client that waits at most timeout for the answer to each request. It sends nothing
// until Attach gives it its connection.
func New(log *slog.Logger, timeout time.Duration) *Client {
	c := &Client{log: log, timeout: timeout}
	c.diags = newDiagnostics(c)
	return c
}

// Diagnostics are the diagnostics the server publishes to the editor, and the editor's as code
// action requests show them.
func (c *Client) Diagnostics() *Diagnostics { return c.diags }

// Attach gives the client the connection it writes to (notifications through notifier when it is
// not nil). The server calls it once, before the connection reads its first message.
func (c *Client) Attach(conn jsonrpc2.Conn, notifier Notifier) {
	c.conn, c.notifier = conn, notifier
}

// SetCaps records what the editor can do; the server calls it once, at initialize.
func (c *Client) SetCaps(caps Caps) { c.caps.Store(&caps) }

// Caps is what the editor can do: the zero Caps before initialize.
func (c *Client) Caps() Caps {
	if p := c.caps.Load(); p != nil {
		return *p
	}
	return Caps{}
}

// CanPrompt reports whether an approval prompt (window/showMessageRequest) is worth sending: the
// editor has not answered one "method not found". It is tried whatever window.showMessage says:
// lsp-mode 8 and eglot 1.9 answer prompts without advertising them.
func (c *Client) CanPrompt() bool {
	return !c.noPrompts.Load()
}

// CannotPrompt records that the editor answered a prompt "method not found" (Helix 25.01): no
// prompt is sent to it again.
func (c *Client) CannotPrompt() { c.noPrompts.Store(true) }

// Call sends a request and waits at most the client's timeout for its answer.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.Ask(ctx, method, params, result)
}

// Ask sends a request that waits for a person (a prompt) and so is bounded by ctx alone.
func (c *Client) Ask(ctx context.Context, method string, params, result any) error {
	if _, err := c.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// Notify sends a notification; a failure is logged (the editor may be gone).
func (c *Client) Notify(ctx context.Context, method string, params any) {
	notify := c.conn.Notify
	if c.notifier != nil {
		notify = c.notifier.Notify // one encoding pass, not jsonrpc2's two
	}
	if err := notify(context.WithoutCancel(ctx), method, params); err != nil {
		c.log.Debug("notification not sent", "method", method, "err", err)
	}
}

// ShowMessage shows msg to the user.
func (c *Client) ShowMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	c.Notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg})
}

// LogMessage writes msg to the editor's log of the server.
func (c *Client) LogMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	c.Notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg})
}

// showDocumentParams are window/showDocument's params. protocol.ShowDocumentParams drops takeFocus
// when false (omitempty), and editors that default a missing takeFocus to true would steal the
// focus: this sends it always. (protocol v0.12.0 also has no ShowDocument in its Client interface:
// the method is called by name.)
type showDocumentParams struct {
	URI       protocol.URI `json:"uri"`
	External  bool         `json:"external,omitempty"`
	TakeFocus bool         `json:"takeFocus"`
}

// ShowDocument asks the editor to open a file; it reports whether the editor did.
func (c *Client) ShowDocument(ctx context.Context, path string, takeFocus bool) bool {
	if !c.Caps().ShowDocument {
		return false
	}
	params := &showDocumentParams{URI: protocol.URI(workspace.URIFromPath(path)), TakeFocus: takeFocus}
	var res protocol.ShowDocumentResult
	if err := c.Call(ctx, protocol.MethodShowDocument, params, &res); err != nil {
		c.log.Info("showDocument failed", "path", path, "err", err)
		return false
	}
	return res.Success
}

// OpenExternal asks the editor to open uri outside itself (a browser): window/showDocument with
// external set. It reports whether the editor did.
func (c *Client) OpenExternal(ctx context.Context, uri string) bool {
	if !c.Caps().ShowDocument {
		return false
	}
	var res protocol.ShowDocumentResult
	if err := c.Call(ctx, protocol.MethodShowDocument, &showDocumentParams{URI: protocol.URI(uri), External: true}, &res); err != nil {
		c.log.Info("showDocument (external) failed", "err", err)
		return false
	}
	return res.Success
}

// CreateProgress asks the editor for a work-done progress token named name
// (window/workDoneProgress/create), and returns it, or nil when the editor has no progress or
// refused it (the caller then reports with messages).
func (c *Client) CreateProgress(ctx context.Context, name string) *protocol.ProgressToken {
	if !c.Caps().WorkDoneProgress {
		return nil
	}
	token := protocol.NewProgressToken(name)
	if err := c.Call(ctx, protocol.MethodWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: *token}, nil); err != nil {
		c.log.Info("the editor refused a progress token; using messages", "err", err)
		return nil
	}
	return token
}

// ApplyEdit asks the editor to apply a workspace edit (workspace/applyEdit) and returns its answer.
func (c *Client) ApplyEdit(ctx context.Context, params any) (res protocol.ApplyWorkspaceEditResponse, err error) {
	err = c.Call(ctx, protocol.MethodWorkspaceApplyEdit, params, &res)
	return res, err
}
