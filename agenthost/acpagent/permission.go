package acpagent

// This file answers the agent's permission requests (session/request_permission) by the host's
// approvals: each becomes the codex approval request that fits its tool call, and the host's
// decision picks the option of the matching kind. What does not fit fails closed.

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/codex"
)

// permissionSeq numbers the approval requests made of permission requests, for their ids.
var permissionSeq atomic.Uint64

// RequestPermission asks the host about a tool call of the session's running turn: a command
// (kind execute) as codex's command approval, an edit as its patch approval (its fileChange item
// started before, so that the host shows the diff and keeps the files as they are), anything else
// as a command approval of the call's title. The request's context ends when the agent withdraws
// it, the prompt is cancelled, or the turn ends: the host then closes its question.
func (h handler) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	a := h.a
	s, err := a.session(req.SessionID)
	if err != nil {
		return acp.Cancelled(), nil
	}
	s.mu.Lock()
	t := s.turn
	if t == nil {
		s.mu.Unlock()
		return acp.Cancelled(), nil // no turn to ask for: nothing is granted
	}
	s.toolCallUpdate(t, &req.ToolCall)
	tc := t.tools[req.ToolCall.ToolCallID]
	method, params := s.approvalRequest(t, tc)
	turnCtx := t.ctx
	s.mu.Unlock()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(turnCtx, cancel)
	defer stop()
	decision := a.decide(ctx, method, params)
	if decision == codex.DecisionCancel {
		// Stop turn: the prompt is cancelled, and with it this request ("cancelled").
		if err := a.client.Cancel(s.id); err != nil {
			a.log.Warn("could not cancel the prompt after Stop turn", "agent", a.name, "err", err)
		}
		s.mu.Lock()
		t.cancelled = true
		s.mu.Unlock()
		return acp.Cancelled(), nil
	}
	if ctx.Err() != nil {
		return acp.Cancelled(), nil // withdrawn, or the turn is over: the question is closed
	}
	if id, ok := pickOption(req.Options, decision); ok {
		return acp.Selected(id), nil
	}
	return acp.Cancelled(), nil
}

// approvalRequest is the codex request that asks about tc. s.mu is held.
func (s *session) approvalRequest(t *turn, tc *tool) (method string, params any) {
	switch tc.typ {
	case codex.ItemFileChange:
		return codex.RequestFileChangeApproval, &codex.FileChangeApprovalParams{
			ThreadID: s.id, TurnID: t.id, ItemID: tc.itemID,
		}
	case codex.ItemCommandExecution:
		return codex.RequestCommandApproval, &codex.CommandApprovalParams{
			ThreadID: s.id, TurnID: t.id, ItemID: tc.itemID, Command: tc.command(), Cwd: s.folder,
		}
	}
	// What the call does is its title ("Read src/a.go", "Fetch https://…").
	title := tc.name()
	if tc.title != "" {
		title = tc.title
	}
	return codex.RequestCommandApproval, &codex.CommandApprovalParams{
		ThreadID: s.id, TurnID: t.id, ItemID: tc.itemID, Command: safeCommand(title), Cwd: s.folder,
	}
}

// decide asks the host's request handler and returns its decision: accept, acceptForSession,
// decline or cancel; "" when it gave none that reads as one (its error, no handler, an answer of
// another shape), which the caller takes as a refusal.
func (a *Agent) decide(ctx context.Context, method string, params any) string {
	if a.opts.OnRequest == nil {
		return ""
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return ""
	}
	id := strconv.Quote("acp-permission-" + strconv.FormatUint(permissionSeq.Add(1), 10))
	res, err := a.opts.OnRequest(ctx, &codex.Request{ID: json.RawMessage(id), Method: method, Params: raw})
	if err != nil {
		a.log.Warn("the host did not answer a permission request; refusing it", "agent", a.name, "err", err)
		return ""
	}
	b, err := json.Marshal(res)
	if err != nil {
		return ""
	}
	var answer codex.ApprovalResponse
	if json.Unmarshal(b, &answer) != nil {
		return ""
	}
	return answer.Decision
}

// pickOption picks the option that means decision: allow_once for accept; allow_always for
// acceptForSession (else allow_once); reject_once for decline (else reject_always). A decision
// without such an option, or one that is none of these, refuses: the reject option, if there is
// one; else false, which answers "cancelled".
func pickOption(options []acp.PermissionOption, decision string) (string, bool) {
	var kinds []string
	switch decision {
	case codex.DecisionAccept:
		kinds = []string{acp.PermissionOptionKindAllowOnce}
	case codex.DecisionAcceptForSession:
		kinds = []string{acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindAllowOnce}
	}
	kinds = append(kinds, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways)
	for _, kind := range kinds {
		for _, o := range options {
			if o.Kind == kind && o.OptionID != "" {
				return o.OptionID, true
			}
		}
	}
	return "", false
}
