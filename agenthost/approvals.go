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

// Approver asks a person about an approval. It returns the reply (for questions, with the answers),
// or a zero Reply when the person dismissed the question. It must return when ctx ends (the approval
// timed out, was answered another way, or codex withdrew it). Any error declines the request: the
// host fails closed, and so it does for answers that do not fit the questions (CheckAnswers).
type Approver interface {
	Approve(ctx context.Context, a hermesproto.Approval) (Reply, error)
}

// ApproverFunc adapts a function to the Approver interface.
type ApproverFunc func(ctx context.Context, a hermesproto.Approval) (Reply, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, a hermesproto.Approval) (Reply, error) {
	return f(ctx, a)
}

// ErrNoApproval is returned by Resolve for an approval that is not pending.
var ErrNoApproval = errors.New("no such pending approval")

// pendingApproval is an approval waiting for its answer.
type pendingApproval struct {
	approval hermesproto.Approval
	answer   chan Reply // Resolve's answer; buffered
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

// handleRequest answers codex's server requests: approvals, permissions and questions by policy or
// by a person; anything else refused with a JSON-RPC error so codex never waits.
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
		_, r := h.decide(ctx, a)
		return codex.ApprovalResponse{Decision: codexDecision(r.Decision)}, nil
	case *codex.FileChangeApprovalParams:
		a := hermesproto.Approval{
			Kind: hermesproto.ApprovalKindPatch, ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID,
			Reason: p.Reason, GrantRoot: p.GrantRoot,
		}
		_, r := h.decide(ctx, a)
		return codex.ApprovalResponse{Decision: codexDecision(r.Decision)}, nil
	case *codex.PermissionsApprovalParams:
		_, r := h.decide(ctx, permissionsApproval(p))
		h.stopIf(r, p.ThreadID)
		return permissionsResponse(p, r.Decision), nil
	case *codex.McpElicitationParams:
		a, err := elicitationApproval(p)
		if err != nil {
			h.log.Warn("declining an MCP elicitation the host cannot ask", "server", clean(p.ServerName, labelChars), "err", err)
			return declineFor(req.Method), nil
		}
		a, r := h.decide(ctx, a)
		h.stopIf(r, p.ThreadID)
		return elicitationResponse(a, r), nil
	case *codex.UserInputParams:
		a, err := userInputApproval(p)
		if err != nil {
			h.log.Warn("answering no questions the host cannot ask", "thread", p.ThreadID, "err", err)
			return declineFor(req.Method), nil
		}
		_, r := h.decide(ctx, a)
		h.stopIf(r, p.ThreadID)
		return userInputResponse(r), nil
	}
	return nil, codex.Errorf(codex.CodeMethodNotFound, "hermes-lsp does not handle %s", req.Method)
}

// declineFor is the answer that refuses a request of method.
func declineFor(method string) any {
	switch method {
	case codex.RequestPermissionsApproval:
		return codex.PermissionsResponse{Scope: codex.ScopeTurn}
	case codex.RequestMcpElicitation:
		return codex.ElicitationResponse{Action: codex.ElicitationDecline}
	case codex.RequestToolUserInput:
		return codex.UserInputResponse{Answers: codex.ToolRequestUserInputResponseAnswers{}}
	}
	return codex.ApprovalResponse{Decision: codex.DecisionDecline}
}

// stopIf stops the thread's running turn when the person chose Stop turn on a request whose answer
// cannot say so itself (permissions and questions: only commands and patches have "cancel"). The
// interrupt runs beside the answer, owned by the host: it may reach codex first, which then
// withdraws the request; either way nothing is granted and the turn stops.
func (h *Host) stopIf(r Reply, threadID string) {
	if r.Decision != hermesproto.DecisionStop {
		return
	}
	s := h.sessionByThread(threadID)
	if s == nil {
		return
	}
	h.wg.Go(func() {
		ctx, cancel := context.WithTimeout(h.closed, h.config().ApprovalTimeout)
		defer cancel()
		if err := s.Interrupt(ctx); err != nil {
			h.log.Warn("could not stop the turn after Stop turn", "folder", s.folder, "err", err)
		}
	})
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

// decide settles one approval and returns it (as recorded) with the person's reply. It records the
// approval on its session and turn, whatever the outcome. It runs on the codex client's handler
// goroutine: the session's goroutine only registers and records the approval, the waiting happens
// here. A reply that stops the host is Stop; one for an unknown thread Deny.
func (h *Host) decide(ctx context.Context, a hermesproto.Approval) (hermesproto.Approval, Reply) {
	stop := Reply{Decision: hermesproto.DecisionStop}
	s := h.sessionByThread(a.ThreadID)
	if s == nil {
		h.log.Warn("approval for an unknown thread; declining", "thread", a.ThreadID)
		return a, Reply{Decision: hermesproto.DecisionDeny}
	}
	// Codex may ask as soon as the turn has started, before Run has told the session the turn's id:
	// wait for that (the turn is registered before codex is asked to start it), so the approval is
	// emitted and recorded on its turn. The wait selects on the request's context.
	cur, err := s.currentTurn()
	if err != nil {
		return a, stop // the host is shutting down
	}
	if cur != nil {
		_ = waitFor(ctx, cur.startedCh, "")
	}
	a.ID = h.nextApprovalID()
	a.Folder = s.folder
	a.Asked = time.Now()
	cfg := h.config()
	p := &pendingApproval{answer: make(chan Reply, 1)}
	a, err = s.askApproval(a, cfg, p)
	if err != nil {
		return a, stop
	}
	if a.Decision != "" {
		return a, Reply{Decision: a.Decision}
	}
	r, by := h.ask(ctx, cfg, a, p)
	a.Decision, a.DecidedBy = r.Decision, by
	// What is recorded and shown never holds a secret answer: only codex gets it.
	a.Answers = publicAnswers(a.Questions, r.Answers)
	if err := s.settleApproval(a); err != nil {
		return a, stop
	}
	return a, r
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
// approval timeout, codex withdrawing the request (ctx) or shutdown; it returns the reply and who
// made it. Answers that do not fit a's questions decline it.
func (h *Host) ask(ctx context.Context, cfg Config, a hermesproto.Approval, p *pendingApproval) (Reply, string) {
	actx, cancel := context.WithTimeout(ctx, cfg.ApprovalTimeout)
	defer cancel()
	deny := func(by string) (Reply, string) { return Reply{Decision: hermesproto.DecisionDeny}, by }
	type answer struct {
		r   Reply
		err error
	}
	asked := make(chan answer, 1)
	// The Approver's goroutine belongs to the host: codex gets its answer as soon as there is one,
	// while Close still waits for the Approver to notice actx ended. Close waits for it after codex's
	// handlers (this one among them) have returned, so it is never started after Close has waited.
	h.wg.Go(func() {
		r, err := cfg.Approver.Approve(actx, a)
		asked <- answer{r, err}
	})
	select {
	case got := <-asked:
		switch {
		case got.err != nil:
			h.log.Warn("approver failed; declining", "approval", a.ID, "err", got.err)
			return deny("error")
		case got.r.Decision == "":
			return deny("dismissed")
		}
		if err := checkReply(a, got.r); err != nil {
			h.log.Warn("answers that do not fit the questions; declining", "approval", a.ID, "err", err)
			return deny("error")
		}
		return got.r, "user"
	case r := <-p.answer:
		return r, "user" // checked by Resolve
	case <-h.closing:
		return Reply{Decision: hermesproto.DecisionStop}, "shutdown"
	case <-actx.Done():
		if ctx.Err() != nil {
			return deny("withdrawn")
		}
		return deny("timeout")
	}
}

// checkReply checks the answers of a reply that answers a's questions.
func checkReply(a hermesproto.Approval, r Reply) error {
	if !a.Kind.Asks() || (r.Decision != hermesproto.DecisionOnce && r.Decision != hermesproto.DecisionSession) {
		return nil
	}
	return CheckAnswers(a.Questions, r.Answers)
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
