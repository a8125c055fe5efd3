package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// approver is the host's Approver for one editor: it asks with window/showMessageRequest, one
// request at a time (Helix replaces an open prompt with a new one), and falls back to a message
// plus code actions and hermes.approve when the editor cannot ask.
type approver struct {
	s    *Server
	turn chan struct{} // a one-slot semaphore: the prompt on screen
}

func newApprover(s *Server) *approver {
	return &approver{s: s, turn: make(chan struct{}, 1)}
}

// Approve asks the editor about a. It returns when the person answered, or ctx ended (timeout, or
// the approval was answered another way, or withdrawn).
func (ap *approver) Approve(ctx context.Context, a hermesproto.Approval) (hermesproto.Decision, error) {
	if ap.s.editor.CanPrompt() {
		d, err, unsupported := ap.ask(ctx, a)
		if !unsupported {
			return d, err
		}
	}
	return ap.waitForAnswer(ctx, a)
}

// ask shows the prompt, one at a time. unsupported says the editor cannot show it.
func (ap *approver) ask(ctx context.Context, a hermesproto.Approval) (d hermesproto.Decision, err error, unsupported bool) {
	s := ap.s
	select {
	case ap.turn <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err(), false
	}
	defer func() { <-ap.turn }()
	var diffs []string // written for "Show diff", removed once the person decided
	defer func() {
		for _, path := range diffs {
			_ = agenthost.RemoveDiff(path)
		}
	}()
	if !s.editor.CanPrompt() {
		return "", nil, true // an earlier prompt found out while this one queued
	}
	for {
		// Deny comes first: eglot pre-selects the first action and Helix's picker highlights it, and an
		// accidental Enter must never grant.
		titles := []string{hermesproto.ApprovalActionDeny, hermesproto.ApprovalActionAllowOnce, hermesproto.ApprovalActionAllowSession, hermesproto.ApprovalActionStop}
		if a.Kind == hermesproto.ApprovalKindPatch && len(a.Changes) > 0 {
			titles = append(titles, hermesproto.ApprovalActionShowDiff)
		}
		withID := s.editor.Caps().ActionProps
		actions := make([]approvalAction, len(titles))
		for i, t := range titles {
			actions[i].Title = t
			if withID {
				actions[i].ApprovalID = a.ID // which approval, for a client that reads it (VS Code's)
			}
		}
		params := &approvalPromptParams{Type: protocol.MessageTypeWarning, Message: approvalMessage(a, s.unsaved(a)), Actions: actions}
		var choice *approvalAction
		// The prompt waits for a person: bounded by the approval's own timeout, not the client's.
		if err := s.editor.Ask(ctx, protocol.MethodWindowShowMessageRequest, params, &choice); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err(), false
			}
			// Only "method not found" (Helix 25.01) says the editor cannot ask: use the fallback for
			// the rest of the session. Any other error declines this approval (the host fails
			// closed) and the next one is asked again.
			var rpcErr *jsonrpc2.Error
			if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.MethodNotFound {
				s.log.Info("the editor cannot show approval prompts; approvals fall back to messages and code actions", "err", err)
				s.editor.CannotPrompt()
				return "", nil, true
			}
			return "", fmt.Errorf("approval prompt: %w", err), false
		}
		if choice == nil {
			return hermesproto.DecisionDeny, nil, false // dismissed: a null answer is Deny
		}
		switch choice.Title {
		case hermesproto.ApprovalActionAllowOnce:
			return hermesproto.DecisionOnce, nil, false
		case hermesproto.ApprovalActionAllowSession:
			return hermesproto.DecisionSession, nil, false
		case hermesproto.ApprovalActionStop:
			return hermesproto.DecisionStop, nil, false
		case hermesproto.ApprovalActionShowDiff:
			if path := ap.showDiff(ctx, a); path != "" {
				diffs = append(diffs, path)
			}
			continue // and ask again
		}
		return hermesproto.DecisionDeny, nil, false
	}
}

// waitForAnswer tells the person how to answer and waits for hermes.approve or a code action
// (which resolve the approval in the host, ending ctx) until the approval times out.
func (ap *approver) waitForAnswer(ctx context.Context, a hermesproto.Approval) (hermesproto.Decision, error) {
	msg := fmt.Sprintf("%s\nAnswer with a code action (\"Hermes: allow once / allow for session / deny\") in any file of %s, "+
		"or run the command hermes.approve with {\"approvalId\": %q, \"decision\": \"once\" | \"session\" | \"deny\" | \"stop\"}.",
		approvalMessage(a, ap.s.unsaved(a)), filepath.Base(a.Folder), a.ID)
	ap.s.editor.ShowMessage(ctx, protocol.MessageTypeWarning, msg)
	<-ctx.Done()
	return "", ctx.Err()
}

// approvalMessage says what codex wants to do, where, and why. What reaches outside the workspace
// folder (a command's cwd, a patched path, a write grant) is called out on a line of its own, and
// so are the patched files with unsaved changes in the editor (unsaved, from Server.unsaved).
func approvalMessage(a hermesproto.Approval, unsaved []string) string {
	var b strings.Builder
	switch a.Kind {
	case hermesproto.ApprovalKindExec:
		fmt.Fprintf(&b, "Hermes wants to run a command (approval %s):\n%s\nin %s", a.ID, a.Command, a.Cwd)
		if a.Cwd != "" && !inFolder(a.Folder, a.Cwd) {
			b.WriteString("\n⚠ OUTSIDE THE WORKSPACE FOLDER: it runs in " + a.Cwd + ", not under " + a.Folder)
		}
	default:
		list := a.Summary
		if len(a.Changes) > 0 {
			list = agenthost.PatchSummary(a.Changes, a.Folder, 0)
		}
		fmt.Fprintf(&b, "Hermes wants to apply a patch (approval %s): %s", a.ID, list)
		var outside []string
		for _, c := range a.Changes {
			if !inFolder(a.Folder, c.Path) {
				outside = append(outside, c.Path)
			}
		}
		if len(outside) > 0 {
			b.WriteString("\n⚠ OUTSIDE THE WORKSPACE FOLDER: it changes " + strings.Join(outside, ", "))
		}
		if len(unsaved) > 0 {
			b.WriteString("\n⚠ " + unsavedSentence(unsaved))
		}
		if a.GrantRoot != "" {
			b.WriteString("\n⚠ It also asks for write access to everything under " + a.GrantRoot + " for the rest of the session")
			if !inFolder(a.Folder, a.GrantRoot) {
				b.WriteString(", OUTSIDE THE WORKSPACE FOLDER")
			}
		}
	}
	if a.Reason != "" {
		b.WriteString("\nReason: " + a.Reason)
	}
	return b.String()
}

// inFolder reports whether path lies inside folder (links resolved); an unknown folder counts as
// outside.
func inFolder(folder, path string) bool {
	if folder == "" || !filepath.IsAbs(path) {
		return false
	}
	ok, err := workspace.Contains(folder, path)
	return err == nil && ok
}

// showDiff writes the patch to a new file under a random name in the state dir's private diffs
// folder (agenthost.WriteDiff) and opens it when the editor can. It returns the file's path (""
// when none was written).
func (ap *approver) showDiff(ctx context.Context, a hermesproto.Approval) string {
	s := ap.s
	path, err := agenthost.WriteDiff(s.stateDir(), []byte(a.Diff()))
	if err != nil {
		s.log.Warn("could not write the diff", "err", err)
		s.editor.ShowMessage(ctx, protocol.MessageTypeError, "Hermes could not show the diff of approval "+a.ID+": "+err.Error())
		return ""
	}
	if !s.editor.ShowDocument(ctx, path, true) {
		s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes: the patch of approval "+a.ID+" is in "+path)
	}
	return path
}
