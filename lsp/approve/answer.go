package approve

import (
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// Answer is hermes.approve: it answers a pending approval. Every error is the request's fault.
func (ap *Approver) Answer(a hermesproto.ApproveArgs) (hermesproto.ApproveResult, error) {
	d, ok := hermesproto.ParseDecision(a.Decision)
	if !ok {
		return hermesproto.ApproveResult{}, fmt.Errorf(`hermes.approve: decision %q: want "once", "session", "deny" or "stop"`, a.Decision)
	}
	h := ap.cfg.Host()
	if h == nil {
		return hermesproto.ApproveResult{}, errors.New("the server is not initialized")
	}
	if err := h.Resolve(a.ApprovalID, agenthost.Reply{Decision: d, Answers: a.Answers}); err != nil {
		return hermesproto.ApproveResult{}, fmt.Errorf("hermes.approve: %w", err)
	}
	return hermesproto.ApproveResult{ApprovalID: a.ApprovalID, Decision: d}, nil
}

// CodeActions are the answers to the folder's pending approvals, each as a code action that runs
// hermes.approve (command makes the command, with the configured prefix). Each approval's Deny
// comes first: eglot pre-selects the first action and Helix's picker highlights it, and an
// accidental Enter must never grant.
func (ap *Approver) CodeActions(folder string, command func(title, name string, arg any) *protocol.Command) []protocol.CodeAction {
	h := ap.cfg.Host()
	if h == nil {
		return nil
	}
	sess, err := h.Session(folder)
	if err != nil {
		return nil
	}
	var out []protocol.CodeAction
	for _, a := range sess.Pending() {
		if a.Kind.Asks() {
			out = append(out, questionActions(a, command)...)
			continue
		}
		for _, choice := range []struct {
			title    string
			decision hermesproto.Decision
		}{{hermesproto.CodeActionTitleDeny, hermesproto.DecisionDeny}, {hermesproto.CodeActionTitleAllowOnce, hermesproto.DecisionOnce}, {hermesproto.CodeActionTitleAllowSession, hermesproto.DecisionSession}} {
			title := choice.title + a.Summary
			out = append(out, protocol.CodeAction{
				Title: title, Kind: protocol.QuickFix,
				Command: command(title, hermesproto.CmdApprove, hermesproto.ApproveArgs{ApprovalID: a.ID, Decision: string(choice.decision)}),
			})
		}
	}
	return out
}
