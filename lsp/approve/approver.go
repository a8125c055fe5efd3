// Package approve is the person's say over what codex does, in the editor: the host's Approver
// (agenthost.Approver) that asks about each command and patch with window/showMessageRequest, or
// falls back to a message plus code actions and hermes.approve when the editor cannot ask; the
// answers given that way (Answer, CodeActions); auto-approval, never silent (Auto, WarnAuto,
// ToggleYolo); and the questions about trusted settings a workspace's own settings change
// (GateTrusted).
package approve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Config is what an Approver needs of the server.
type Config struct {
	// Editor asks the person and shows messages.
	Editor *editor.Client
	Log    *slog.Logger
	// Host returns the agent host, nil before initialize.
	Host func() *agenthost.Host
	// Settings returns the settings in force.
	Settings func() *settings.Settings
	// Folders are the workspace folders: auto-approval is warned of in each, and trusted
	// settings are remembered per set of folders.
	Folders *workspace.Set
	// Docs are the documents open in the editor: a patch's files with unsaved edits are named.
	Docs *textdoc.Documents
	// StateDir returns the host's state directory, where "Show diff" writes the patch.
	StateDir func() string
}

// Approver is the host's Approver for one editor: it asks with window/showMessageRequest, one
// request at a time (Helix replaces an open prompt with a new one), and falls back to a message
// plus code actions and hermes.approve when the editor cannot ask. It also remembers what the
// user was told and answered: auto-approval warned of, trusted settings allowed or kept.
type Approver struct {
	cfg  Config
	turn chan struct{} // a one-slot semaphore: the prompt on screen

	mu           sync.Mutex
	trustAnswers map[string]bool   // the user's answers about trusted settings, by folders, key and value
	warnedAuto   map[string]string // per folder, the auto-approval source the user was last warned of
}

// New returns an Approver that asks through cfg.Editor.
func New(cfg Config) *Approver {
	return &Approver{
		cfg:          cfg,
		turn:         make(chan struct{}, 1),
		trustAnswers: make(map[string]bool),
		warnedAuto:   make(map[string]string),
	}
}

// Approve asks the editor about a. It returns when the person answered, or ctx ended (timeout, or
// the approval was answered another way, or withdrawn). The prompt is tried whatever the editor's
// capabilities say (lsp-mode and eglot 1.9 answer it without advertising window.showMessage); an
// editor that cannot show it, and a person who dismissed it, get the fallback: the approval waits
// for a code action or hermes.approve. Questions go their own way (askQuestions).
func (ap *Approver) Approve(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, error) {
	if a.Kind.Asks() {
		return ap.askQuestions(ctx, a)
	}
	if ap.cfg.Editor.CanPrompt() {
		d, err, outcome := ap.ask(ctx, a)
		if outcome == answered {
			return agenthost.Reply{Decision: d}, err
		}
	}
	return ap.waitForAnswer(ctx, a)
}

// outcome is how a prompt ended.
type outcome int

const (
	// answered: a decision, or an error that declines the approval (the host fails closed).
	answered outcome = iota
	// unsupported: the editor cannot show prompts (it answered "method not found").
	unsupported
	// dismissed: the person closed the prompt without choosing (Escape, a stray key: a null answer).
	// Only Deny denies: the approval stays pending, for a code action or hermes.approve.
	dismissed
)

// promptParams are an approval's window/showMessageRequest params: go.lsp.dev/protocol v0.12.0's
// MessageActionItem has no room for the approvalId its items carry for editors that keep an item's
// own properties (additionalPropertiesSupport). Like the workarounds in lsp's compat.go, it goes
// when the protocol types are replaced.
type promptParams struct {
	Type    protocol.MessageType `json:"type"`
	Message string               `json:"message"`
	Actions []promptAction       `json:"actions"`
}

// promptAction is an approval prompt's action item.
type promptAction struct {
	Title      string `json:"title"`
	ApprovalID string `json:"approvalId,omitempty"`
}

// hold waits for the prompt slot: one prompt on screen at a time (Helix replaces an open prompt
// with a new one). The caller releases it.
func (ap *Approver) hold(ctx context.Context) (release func(), err error) {
	select {
	case ap.turn <- struct{}{}:
		return func() { <-ap.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// prompt shows one prompt about a, with the slot held, and returns the title chosen.
func (ap *Approver) prompt(ctx context.Context, a hermesproto.Approval, msg string, titles []string) (string, outcome, error) {
	ed := ap.cfg.Editor
	if !ed.CanPrompt() {
		return "", unsupported, nil // an earlier prompt found out while this one queued
	}
	withID := ed.Caps().ActionProps
	actions := make([]promptAction, len(titles))
	for i, t := range titles {
		actions[i].Title = t
		if withID {
			actions[i].ApprovalID = a.ID // which approval, for a client that reads it (VS Code's)
		}
	}
	params := &promptParams{Type: protocol.MessageTypeWarning, Message: msg, Actions: actions}
	var choice *promptAction
	// The prompt waits for a person: bounded by the approval's own timeout, not the client's.
	if err := ed.Ask(ctx, protocol.MethodWindowShowMessageRequest, params, &choice); err != nil {
		if ctx.Err() != nil {
			return "", answered, ctx.Err()
		}
		// Only "method not found" (Helix 25.01) says the editor cannot ask: use the fallback for
		// the rest of the session. Any other error declines this approval (the host fails
		// closed) and the next one is asked again.
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.MethodNotFound {
			ap.cfg.Log.Info("the editor cannot show approval prompts; approvals fall back to messages and code actions", "err", err)
			ed.CannotPrompt()
			return "", unsupported, nil
		}
		return "", answered, fmt.Errorf("approval prompt: %w", err)
	}
	if choice == nil {
		return "", dismissed, nil
	}
	return choice.Title, answered, nil
}

// ask shows the prompt about a command, a patch or permissions, one at a time, and says how it
// ended.
func (ap *Approver) ask(ctx context.Context, a hermesproto.Approval) (hermesproto.Decision, error, outcome) {
	release, err := ap.hold(ctx)
	if err != nil {
		return "", err, answered
	}
	defer release()
	var diffs []string // written for "Show diff", removed once the person decided
	defer func() {
		for _, path := range diffs {
			_ = agenthost.RemoveDiff(path)
		}
	}()
	for {
		// Deny comes first: eglot pre-selects the first action and Helix's picker highlights it, and an
		// accidental Enter must never grant.
		titles := []string{hermesproto.ApprovalActionDeny, hermesproto.ApprovalActionAllowOnce, hermesproto.ApprovalActionAllowSession, hermesproto.ApprovalActionStop}
		if a.Kind == hermesproto.ApprovalKindPatch && len(a.Changes) > 0 {
			titles = append(titles, hermesproto.ApprovalActionShowDiff)
		}
		title, how, err := ap.prompt(ctx, a, message(a, Unsaved(ap.cfg.Docs, a)), titles)
		if how != answered || err != nil {
			return "", err, how
		}
		switch title {
		case hermesproto.ApprovalActionAllowOnce:
			return hermesproto.DecisionOnce, nil, answered
		case hermesproto.ApprovalActionAllowSession:
			return hermesproto.DecisionSession, nil, answered
		case hermesproto.ApprovalActionStop:
			return hermesproto.DecisionStop, nil, answered
		case hermesproto.ApprovalActionShowDiff:
			if path := ap.showDiff(ctx, a); path != "" {
				diffs = append(diffs, path)
			}
			continue // and ask again
		}
		return hermesproto.DecisionDeny, nil, answered // Deny, and a title we did not offer: fail closed
	}
}

// waitForAnswer tells the person how to answer and waits for hermes.approve or a code action
// (which resolve the approval in the host, ending ctx) until the approval times out.
func (ap *Approver) waitForAnswer(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, error) {
	msg := fallbackMessage(a, Unsaved(ap.cfg.Docs, a), ap.cfg.Editor.Caps().Emacs)
	ap.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeWarning, msg)
	<-ctx.Done()
	return agenthost.Reply{}, ctx.Err()
}

// showDiff writes the patch to a new file under a random name in the state dir's private diffs
// folder (agenthost.WriteDiff) and opens it when the editor can. It returns the file's path (""
// when none was written).
func (ap *Approver) showDiff(ctx context.Context, a hermesproto.Approval) string {
	ed := ap.cfg.Editor
	path, err := agenthost.WriteDiff(ap.cfg.StateDir(), []byte(a.Diff()))
	if err != nil {
		ap.cfg.Log.Warn("could not write the diff", "err", err)
		ed.ShowMessage(ctx, protocol.MessageTypeError, "Hermes could not show the diff of approval "+a.ID+": "+err.Error())
		return ""
	}
	if !ed.ShowDocument(ctx, path, true) {
		ed.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes: the patch of approval "+a.ID+" is in "+path)
	}
	return path
}
