package agenthost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Approver asks a person about an approval. It returns the decision, or "" when the person dismissed
// the question. It must return when ctx ends (the approval timed out, was answered another way, or
// codex withdrew it). Any error declines the request: the host fails closed.
type Approver interface {
	Approve(ctx context.Context, a hermesproto.Approval) (hermesproto.Decision, error)
}

// ApproverFunc adapts a function to the Approver interface.
type ApproverFunc func(ctx context.Context, a hermesproto.Approval) (hermesproto.Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, a hermesproto.Approval) (hermesproto.Decision, error) {
	return f(ctx, a)
}

// ErrNoApproval is returned by Resolve for an approval that is not pending.
var ErrNoApproval = errors.New("no such pending approval")

// pendingApproval is an approval waiting for its answer.
type pendingApproval struct {
	approval hermesproto.Approval
	answer   chan hermesproto.Decision // Resolve's answer; buffered
}

// codexDecision maps a person's decision to codex's.
func codexDecision(d hermesproto.Decision) string {
	switch d {
	case hermesproto.DecisionOnce:
		return codex.DecisionAccept
	case hermesproto.DecisionSession:
		return codex.DecisionAcceptForSession
	case hermesproto.DecisionStop:
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
		a := hermesproto.Approval{
			Kind: hermesproto.ApprovalKindExec, ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID,
			Command: p.Command, Cwd: p.Cwd, Reason: p.Reason,
			Summary: Truncate(oneLine(p.Command), previewMax),
		}
		return codex.ApprovalResponse{Decision: h.decide(ctx, a)}, nil
	case *codex.FileChangeApprovalParams:
		a := hermesproto.Approval{
			Kind: hermesproto.ApprovalKindPatch, ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID,
			Reason: p.Reason, GrantRoot: p.GrantRoot,
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

// PatchSummary names the files a patch changes, each with its kind: "add a.go, update b.go". Paths
// inside folder are shown relative to it. With limit > 0 it names the first limit files and counts
// the rest ("+2 more"); "apply a patch" when there are none.
func PatchSummary(changes []hermesproto.FileChange, folder string, limit int) string {
	var parts []string
	for i, c := range changes {
		if limit > 0 && i == limit {
			parts = append(parts, fmt.Sprintf("+%d more", len(changes)-limit))
			break
		}
		kind := c.Kind.Type
		if kind == "" {
			kind = "change"
		}
		path, _ := workspace.Rel(folder, c.Path)
		parts = append(parts, kind+" "+path)
	}
	if len(parts) == 0 {
		return "apply a patch"
	}
	return strings.Join(parts, ", ")
}

// patchSummary is a patch approval's Summary: at most three files, the write access it asks for,
// in one line of at most previewMax characters.
func patchSummary(changes []hermesproto.FileChange, grantRoot, folder string) string {
	s := PatchSummary(changes, folder, 3)
	if grantRoot != "" {
		s += " (write access under " + grantRoot + ")"
	}
	return Truncate(s, previewMax)
}

// decide settles one approval and returns codex's decision. It records the approval on its session
// and turn, whatever the outcome. It runs on the codex client's handler goroutine: the session's
// goroutine only registers and records the approval, the waiting happens here.
func (h *Host) decide(ctx context.Context, a hermesproto.Approval) string {
	s := h.sessionByThread(a.ThreadID)
	if s == nil {
		h.log.Warn("approval for an unknown thread; declining", "thread", a.ThreadID)
		return codex.DecisionDecline
	}
	// Codex may ask as soon as the turn has started, before Run has told the session the turn's id:
	// wait for that (the turn is registered before codex is asked to start it), so the approval is
	// emitted and recorded on its turn. The wait selects on the request's context.
	cur, err := s.currentTurn()
	if err != nil {
		return codex.DecisionCancel // the host is shutting down
	}
	if cur != nil {
		_ = waitFor(ctx, cur.startedCh, "")
	}
	a.ID = h.nextApprovalID()
	a.Folder = s.folder
	a.Asked = time.Now()
	cfg := h.config()
	p := &pendingApproval{answer: make(chan hermesproto.Decision, 1)}
	a, err = s.askApproval(a, cfg, p)
	if err != nil {
		return codex.DecisionCancel
	}
	if a.Decision != "" {
		return codexDecision(a.Decision)
	}
	a.Decision, a.DecidedBy = h.ask(ctx, cfg, a, p)
	if err := s.settleApproval(a); err != nil {
		return codex.DecisionCancel
	}
	return codexDecision(a.Decision)
}

// settle records a decided approval on its turn and tells the editor. On the session's goroutine.
func (st *sessionState) settle(a hermesproto.Approval) {
	if ts := st.turnFor(a.TurnID); ts != nil {
		ts.approvals = append(ts.approvals, a)
		ts.settled.Store(int64(len(ts.approvals)))
		ts.emitShared(hermesproto.Event{Kind: hermesproto.EventKindApprovalResolved, Approval: &a})
	}
}

// ask asks the Approver about a, whichever comes first of its answer, a Resolve (p.answer), the
// approval timeout, codex withdrawing the request (ctx) or shutdown; it returns the decision and who
// made it.
func (h *Host) ask(ctx context.Context, cfg Config, a hermesproto.Approval, p *pendingApproval) (hermesproto.Decision, string) {
	actx, cancel := context.WithTimeout(ctx, cfg.ApprovalTimeout)
	defer cancel()
	type answer struct {
		d   hermesproto.Decision
		err error
	}
	asked := make(chan answer, 1)
	// The Approver's goroutine belongs to the host: codex gets its answer as soon as there is one,
	// while Close still waits for the Approver to notice actx ended. Close waits for it after codex's
	// handlers (this one among them) have returned, so it is never started after Close has waited.
	h.wg.Go(func() {
		d, err := cfg.Approver.Approve(actx, a)
		asked <- answer{d, err}
	})
	select {
	case got := <-asked:
		switch {
		case got.err != nil:
			h.log.Warn("approver failed; declining", "approval", a.ID, "err", got.err)
			return hermesproto.DecisionDeny, "error"
		case got.d == "":
			return hermesproto.DecisionDeny, "dismissed"
		default:
			return got.d, "user"
		}
	case d := <-p.answer:
		return d, "user"
	case <-h.closing:
		return hermesproto.DecisionStop, "shutdown"
	case <-actx.Done():
		if ctx.Err() != nil {
			return hermesproto.DecisionDeny, "withdrawn"
		}
		return hermesproto.DecisionDeny, "timeout"
	}
}

// rememberFileChange keeps the changes of a fileChange item codex announced, for the approval
// request about it that follows, and records the files it touches for undoing the turn: as they
// are when the item starts (before codex applies it: codex asks for the approval first) and when
// it completes. It runs on the client's read goroutine, in order; the item's session keeps them.
func (h *Host) rememberFileChange(ev codex.Event) {
	v, ok := ev.Value.(*codex.ItemParams)
	if !ok || v.Item.Type != codex.ItemFileChange {
		return
	}
	s := h.sessionByThread(ev.ThreadID)
	if s == nil {
		return
	}
	completed := ev.Method == codex.NotifyItemCompleted
	var images map[string]FileImage
	if !completed || v.Item.Status == codex.ItemCompleted {
		images = make(map[string]FileImage)
		for _, c := range v.Item.Changes {
			for _, path := range []string{c.Path, c.Kind.MovePath} {
				if path == "" {
					continue
				}
				// Only the folder's own files are recorded: undoing the turn writes them back.
				if _, err := workspace.Inside(s.folder, path); err != nil {
					h.log.Warn("not recording a patched file for undo", "folder", s.folder, "path", Truncate(path, 300), "err", err)
					continue
				}
				images[path] = ReadImage(context.Background(), s.folder, path)
			}
		}
	}
	var changes []hermesproto.FileChange
	if !completed {
		changes = fileChangesOf(v.Item.Changes)
	}
	s.noteFileChange(ev.TurnID, v.Item.ID, completed, changes, images)
}
