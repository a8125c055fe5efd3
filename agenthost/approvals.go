package agenthost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Approver asks a person about an approval. It returns the decision, or "" when the person dismissed
// the question. It must return when ctx ends (the approval timed out, was answered another way, or
// codex withdrew it). Any error declines the request: the host fails closed.
type Approver interface {
	Approve(ctx context.Context, a Approval) (Decision, error)
}

// ApproverFunc adapts a function to the Approver interface.
type ApproverFunc func(ctx context.Context, a Approval) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, a Approval) (Decision, error) { return f(ctx, a) }

// ErrNoApproval is returned by Resolve for an approval that is not pending.
var ErrNoApproval = errors.New("no such pending approval")

// pendingApproval is an approval waiting for its answer.
type pendingApproval struct {
	approval Approval
	answer   chan Decision // Resolve's answer; buffered
}

// codexDecision maps a person's decision to codex's.
func codexDecision(d Decision) string {
	switch d {
	case DecisionOnce:
		return codex.DecisionAccept
	case DecisionSession:
		return codex.DecisionAcceptForSession
	case DecisionStop:
		return codex.DecisionCancel
	}
	return codex.DecisionDecline
}

// handleRequest answers codex's server requests: approvals by policy or by a person, permission
// escalations and MCP elicitations declined, anything else refused with a JSON-RPC error so codex
// never waits.
func (h *Host) handleRequest(ctx context.Context, req *codex.Request) (any, error) {
	params, err := codex.DecodeRequest(req)
	if err != nil {
		h.log.Warn("malformed codex request; declining", "method", req.Method, "err", err)
		return declineFor(req.Method), nil
	}
	switch p := params.(type) {
	case *codex.CommandApprovalParams:
		a := Approval{
			Kind: ApprovalExec, ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID,
			Command: p.Command, Cwd: p.Cwd, Reason: p.Reason,
			Summary: Truncate(oneLine(p.Command), previewMax),
		}
		return codex.ApprovalResponse{Decision: h.decide(ctx, a)}, nil
	case *codex.FileChangeApprovalParams:
		a := Approval{
			Kind: ApprovalPatch, ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID,
			Reason: p.Reason, GrantRoot: p.GrantRoot,
			Changes: h.takeFileChanges(p.ItemID),
		}
		return codex.ApprovalResponse{Decision: h.decide(ctx, a)}, nil
	case *codex.PermissionsApprovalParams:
		h.log.Info("declined a permission escalation", "thread", p.ThreadID, "reason", p.Reason)
		return declineFor(req.Method), nil
	case *codex.McpElicitationParams:
		h.log.Info("declined an MCP elicitation", "server", p.ServerName, "message", p.Message)
		return declineFor(req.Method), nil
	}
	return nil, codex.Errorf(codex.CodeMethodNotFound, "hermes-lsp does not handle %s", req.Method)
}

func declineFor(method string) any {
	switch method {
	case codex.RequestPermissionsApproval:
		return codex.PermissionsResponse{Permissions: map[string]any{}, Scope: "turn"}
	case codex.RequestMcpElicitation:
		return codex.ElicitationResponse{Action: "decline"}
	}
	return codex.ApprovalResponse{Decision: codex.DecisionDecline}
}

// patchSummary says what a patch does in one line: "add a.go, update b.go, +2 more".
// Paths inside folder are shown relative to it.
func patchSummary(changes []codex.FileChange, grantRoot, folder string) string {
	var parts []string
	for i, c := range changes {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("+%d more", len(changes)-3))
			break
		}
		kind := c.Kind.Type
		if kind == "" {
			kind = "change"
		}
		path, _ := workspace.Rel(folder, c.Path)
		parts = append(parts, kind+" "+path)
	}
	s := strings.Join(parts, ", ")
	if s == "" {
		s = "apply a patch"
	}
	if grantRoot != "" {
		s += " (write access under " + grantRoot + ")"
	}
	return Truncate(s, previewMax)
}

// decide settles one approval and returns codex's decision. It records the approval on its session
// and turn, whatever the outcome.
func (h *Host) decide(ctx context.Context, a Approval) string {
	s := h.sessionByThread(a.ThreadID)
	if s == nil {
		h.log.Warn("approval for an unknown thread; declining", "thread", a.ThreadID)
		return codex.DecisionDecline
	}
	// Codex may ask as soon as the turn has started, before Run has attached the turn's id: wait for
	// that (the turn is registered before codex is asked to start it), so the approval is emitted and
	// recorded on its turn. The wait selects on the request's context: nothing here waits on a lock
	// that starting or steering a turn holds.
	if ts := s.currentTurn(); ts != nil {
		ts.waitStarted(ctx)
	}
	a.ID = h.nextApprovalID()
	a.Folder = s.folder
	if a.Kind == ApprovalPatch {
		a.Summary = patchSummary(a.Changes, a.GrantRoot, s.folder)
	}
	a.Asked = time.Now()
	cfg := h.config()

	if auto := autoApprove(cfg, s.Yolo()); auto.Effective {
		a.Decision, a.DecidedBy = DecisionOnce, "policy"
		a.AutoSource = auto.Source
		s.recordApproval(a)
		// Auto-approval is never silent: the editor shows each one as it happens.
		s.emitApproval(EventApprovalResolved, a)
		return codex.DecisionAccept
	}

	if cfg.Approver == nil {
		// Nobody can be asked: fail closed at once rather than after the approval timeout.
		a.Decision, a.DecidedBy = DecisionDeny, "no approver"
		s.recordApproval(a)
		s.emitApproval(EventApprovalResolved, a)
		return codexDecision(a.Decision)
	}
	p := &pendingApproval{approval: a, answer: make(chan Decision, 1)}
	s.addPending(p)
	defer s.removePending(a.ID)
	s.emitApproval(EventApprovalWaiting, a)

	actx, cancel := context.WithTimeout(ctx, cfg.ApprovalTimeout)
	defer cancel()
	type answer struct {
		d   Decision
		err error
	}
	asked := make(chan answer, 1)
	// The Approver's goroutine belongs to the host: codex gets its answer as soon as there is one,
	// while Close still waits for the Approver to notice actx ended. It gets its own copy of the
	// approval: a is written below while the goroutine may still run.
	question := a
	h.wg.Go(func() {
		d, err := cfg.Approver.Approve(actx, question)
		asked <- answer{d, err}
	})

	select {
	case got := <-asked:
		switch {
		case got.err != nil:
			h.log.Warn("approver failed; declining", "approval", a.ID, "err", got.err)
			a.Decision, a.DecidedBy = DecisionDeny, "error"
		case got.d == "":
			a.Decision, a.DecidedBy = DecisionDeny, "dismissed"
		default:
			a.Decision, a.DecidedBy = got.d, "user"
		}
	case d := <-p.answer:
		a.Decision, a.DecidedBy = d, "user"
	case <-h.closing:
		a.Decision, a.DecidedBy = DecisionStop, "shutdown"
	case <-actx.Done():
		switch {
		case ctx.Err() != nil:
			a.Decision, a.DecidedBy = DecisionDeny, "withdrawn"
		default:
			a.Decision, a.DecidedBy = DecisionDeny, "timeout"
		}
	}
	s.recordApproval(a)
	s.emitApproval(EventApprovalResolved, a)
	return codexDecision(a.Decision)
}

// rememberFileChange keeps the changes of a fileChange item codex announced, for the approval
// request about it that follows. It runs on the client's read goroutine.
func (h *Host) rememberFileChange(ev codex.Event) {
	v, ok := ev.Value.(*codex.ItemParams)
	if !ok || v.Item.Type != codex.ItemFileChange {
		return
	}
	h.fileMu.Lock()
	defer h.fileMu.Unlock()
	if ev.Method == codex.NotifyItemCompleted {
		delete(h.fileChanges, v.Item.ID)
		return
	}
	if len(h.fileChanges) > 256 {
		clear(h.fileChanges) // approvals come right after their item: old entries are dead
	}
	h.fileChanges[v.Item.ID] = v.Item.Changes
}

func (h *Host) takeFileChanges(itemID string) []codex.FileChange {
	h.fileMu.Lock()
	defer h.fileMu.Unlock()
	return h.fileChanges[itemID]
}

// Diff renders a patch approval's changes as one unified diff, for a person to read.
func (a Approval) Diff() string {
	var b strings.Builder
	for _, c := range a.Changes {
		fmt.Fprintf(&b, "--- %s\n+++ %s (%s)\n", c.Path, c.Path, c.Kind.Type)
		diff := c.Diff
		if c.Kind.Type == "add" && !strings.HasPrefix(diff, "@@") {
			diff = prefixLines(diff, "+")
		} else if c.Kind.Type == "delete" && !strings.HasPrefix(diff, "@@") {
			diff = prefixLines(diff, "-")
		}
		b.WriteString(diff)
		if !strings.HasSuffix(diff, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func prefixLines(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}
