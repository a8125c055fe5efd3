package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// reportInterval is the least time between two progress reports: about ten a second at most.
const reportInterval = 100 * time.Millisecond

// turnView is a running turn as the editor sees it: its folder, its progress token, and its record
// for the lines it was asked from.
type turnView struct {
	folder workspace.Folder
	turn   *agenthost.Turn
	token  *protocol.ProgressToken // nil when the client shows no progress
	rec    *turnRecord
	review *reviewRun // set when the turn is a review
}

// MethodTurnEvent is the notification that streams a turn's events to clients that ask for them.
const MethodTurnEvent = hermesproto.MethodTurnEvent

// watchTurn gives a turn its progress and follows it to its end.
func (s *Server) watchTurn(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, prompt string, clientToken *protocol.ProgressToken) *turnView {
	tv := &turnView{folder: folder, turn: turn, rec: newTurnRecord(folder.Path, prompt, turn.ThreadID(), turn.TurnID())}
	return s.watch(ctx, tv, prompt, clientToken)
}

// watchReview is watchTurn for a review.
func (s *Server) watchReview(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, run *reviewRun, clientToken *protocol.ProgressToken) *turnView {
	prompt := "review " + run.label
	tv := &turnView{folder: folder, turn: turn, rec: newTurnRecord(folder.Path, prompt, turn.ThreadID(), turn.TurnID()), review: run}
	return s.watch(ctx, tv, prompt, clientToken)
}

func (s *Server) watch(ctx context.Context, tv *turnView, prompt string, clientToken *protocol.ProgressToken) *turnView {
	folder, turn := tv.folder, tv.turn
	s.mu.Lock()
	canProgress := s.caps.workDoneProgress
	s.mu.Unlock()
	switch {
	case clientToken != nil:
		tv.token = clientToken
	case canProgress:
		token := protocol.NewProgressToken("hermes/" + turn.TurnID())
		if err := s.callClient(ctx, protocol.MethodWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: *token}, nil); err != nil {
			s.log.Info("the editor refused a progress token; using messages", "err", err)
		} else {
			tv.token = token
		}
	}
	s.mu.Lock()
	s.turns[folder.Path] = tv
	s.mu.Unlock()
	s.goAsync("turn", func(ctx context.Context) { s.follow(ctx, tv, prompt) })
	return tv
}

// follow reports a turn's events until it ends: coalesced progress, hermes/turnEvent notifications,
// and the final answer.
func (s *Server) follow(ctx context.Context, tv *turnView, prompt string) {
	title := firstWords(prompt, 8)
	p := &progress{s: s, token: tv.token, auto: func() bool { return s.autoApproveOf(tv.folder.Path).Effective }, title: "Hermes"}
	if tv.review != nil {
		p.title = "Hermes review"
	}
	p.begin(ctx, title)
	if tv.token == nil {
		msg := "Hermes is working in " + tv.folder.Name + ": " + title
		if p.auto() {
			msg += " (" + autoApproving + ": commands and patches run without asking)"
		}
		s.showMessage(ctx, protocol.MessageTypeInfo, msg)
	}

	var (
		result  *agenthost.Result
		state   = turnProgress{}
		pending string // the newest report not yet sent
		last    time.Time
		timer   *time.Timer
		timerC  <-chan time.Time
	)
	events := tv.turn.Events()
	for events != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if tv.rec.apply(ev) && s.origins.has(tv.rec) {
				s.refreshInlayHints()
			}
			conflict := s.agentEdits(ctx, tv.folder.Path, ev)
			if s.currentSettings().TurnEvents {
				wev := wireEvent(ev)
				if wev.Approval != nil {
					wev.Approval.Warning = conflict
				}
				s.notify(ctx, MethodTurnEvent, &hermesproto.TurnEventParams{Folder: tv.folder.Path, ThreadID: ev.ThreadID, TurnID: ev.TurnID, Event: wev})
			}
			if ev.Kind == agenthost.EventTurnCompleted {
				result = ev.Result
				continue
			}
			if tv.token == nil {
				if line := logLine(ev); line != "" {
					s.logMessage(ctx, protocol.MessageTypeLog, "Hermes: "+line)
				}
			}
			msg, changed := state.apply(ev)
			if !changed {
				continue
			}
			if conflict != "" {
				msg += " · ⚠ " + conflict
			}
			msg += s.rateLimitNote()
			pending = msg
			if timer != nil {
				continue // a report is due when the timer fires; it takes the newest line
			}
			if wait := reportInterval - time.Since(last); wait > 0 {
				timer = time.NewTimer(wait)
				timerC = timer.C
				continue
			}
			p.report(ctx, pending)
			pending, last = "", time.Now()
		case <-timerC:
			timer, timerC = nil, nil
			if pending != "" {
				p.report(ctx, pending)
				pending, last = "", time.Now()
			}
		}
	}
	if timer != nil {
		timer.Stop()
	}
	if pending != "" {
		p.report(ctx, pending) // the last state is never lost
	}

	s.mu.Lock()
	if s.turns[tv.folder.Path] == tv {
		delete(s.turns, tv.folder.Path)
	}
	s.mu.Unlock()
	s.syncBuffers(ctx, tv.folder.Path) // every file the turn changed, patches or commands
	if result == nil {
		p.end(ctx, "ended")
		return
	}
	p.end(ctx, endLine(result))
	defer s.turnEndedIdle()
	if tv.review != nil {
		s.finishReview(ctx, tv, result)
		return
	}
	s.announce(ctx, tv, result)
	s.afterTurn(ctx, tv, result)
}

// idleRelease is how long the server waits, with no turn running, before it gives the memory of
// its turns back to the system: not after each turn, since a forced collection costs a
// millisecond, and turns often follow each other.
const idleRelease = 2 * time.Second

// turnEndedIdle tells memoryLoop a turn has ended.
func (s *Server) turnEndedIdle() {
	select {
	case s.idleKick <- struct{}{}:
	default:
	}
}

// memoryLoop gives the memory turns used back to the system once the server has been idle for
// idleRelease: a turn's events and transcript come and go, and an idle server should not keep their
// pages.
func (s *Server) memoryLoop(ctx context.Context) {
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.idleKick:
			timer = time.After(idleRelease) // a later turn's end starts the wait again
		case <-timer:
			timer = nil
			s.mu.Lock()
			idle := len(s.turns) == 0
			s.mu.Unlock()
			if idle {
				debug.FreeOSMemory()
			}
		}
	}
}

// announce shows the final answer, shortened, with the transcript's path, and opens the transcript
// when the user wants it.
func (s *Server) announce(ctx context.Context, tv *turnView, res *agenthost.Result) {
	typ := protocol.MessageTypeInfo
	text := res.FinalText
	if !res.Completed {
		typ = protocol.MessageTypeWarning
		if res.Error != "" && !strings.Contains(text, res.Error) {
			text = strings.TrimSpace(text + " (" + firstLineOf(res.Error) + ")")
		}
	}
	msg := "Hermes (" + tv.folder.Name + "): " + agenthost.Truncate(strings.TrimSpace(text), 400)
	if key, line, ok := s.origins.where(tv.rec); ok {
		msg += fmt.Sprintf("\nThe whole answer: hover line %d of %s", line+1, filepath.Base(key))
		if res.TranscriptPath != "" {
			msg += ", or read the transcript"
		}
	}
	if res.TranscriptPath != "" {
		msg += "\nTranscript: " + res.TranscriptPath
	}
	s.showMessage(ctx, typ, msg)
	if s.currentSettings().OpenTranscript && res.TranscriptPath != "" {
		s.showDocument(ctx, res.TranscriptPath, false)
	}
}

// progress sends one turn's work-done progress.
type progress struct {
	s     *Server
	token *protocol.ProgressToken
	auto  func() bool // whether the turn's approvals are auto-approved right now
	title string      // "Hermes", or "Hermes review"
}

// autoApproving marks every progress message of a turn whose approvals nobody is asked about.
const autoApproving = "auto-approving"

func (p *progress) send(ctx context.Context, value any) {
	if p.token == nil {
		return
	}
	p.s.notify(ctx, protocol.MethodProgress, &protocol.ProgressParams{Token: *p.token, Value: value})
}

func (p *progress) begin(ctx context.Context, title string) {
	p.send(ctx, &protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: p.title, Message: p.mark(title), Cancellable: true})
}

func (p *progress) report(ctx context.Context, msg string) {
	p.send(ctx, &protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: p.mark(msg), Cancellable: true})
}

// mark prefixes msg with "auto-approving" while the turn's approvals are auto-approved.
func (p *progress) mark(msg string) string {
	if p.token == nil || p.auto == nil || !p.auto() {
		return msg
	}
	return autoApproving + " · " + msg
}

func (p *progress) end(ctx context.Context, msg string) {
	p.send(ctx, &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: msg})
}

// turnProgress turns events into the progress line: what the agent does now, with usage.
type turnProgress struct {
	activity string
	usage    agenthost.Usage
	line     string
}

// apply takes an event and reports the new line and whether it changed.
func (tp *turnProgress) apply(ev agenthost.Event) (string, bool) {
	switch ev.Kind {
	case agenthost.EventToolStarted:
		tp.activity = ev.Tool.Name + ": " + ev.Tool.Preview
	case agenthost.EventToolCompleted:
		mark := "done"
		if ev.Tool.IsError {
			mark = "failed"
		}
		tp.activity = ev.Tool.Name + " " + mark + ": " + ev.Tool.Preview
	case agenthost.EventApprovalWaiting:
		tp.activity = "waiting for approval: " + ev.Approval.Summary
	case agenthost.EventApprovalResolved:
		tp.activity = "approval " + string(ev.Approval.Decision) + ": " + ev.Approval.Summary
	case agenthost.EventAnswerDelta:
		tp.activity = "answering"
	case agenthost.EventReasoningDelta:
		tp.activity = "thinking"
	case agenthost.EventCompaction:
		tp.activity = "compacting the context"
	case agenthost.EventFallback:
		tp.activity = "fallback: " + ev.Text
	case agenthost.EventSteered:
		tp.activity = "steered: " + firstWords(ev.Text, 8)
	case agenthost.EventError:
		tp.activity = "error: " + ev.Text
	case agenthost.EventUsage:
		tp.usage = *ev.Usage
	default:
		return tp.line, false
	}
	activity := tp.activity
	if activity == "" {
		activity = "working"
	}
	line := agenthost.Truncate(activity, 100)
	if tp.usage.Total > 0 {
		line += fmt.Sprintf(" · %s tokens", compactCount(tp.usage.Total))
		if pct := tp.usage.ContextPercent(); pct > 0 {
			line += fmt.Sprintf(" · %d%% context", pct)
		}
	}
	changed := line != tp.line
	tp.line = line
	return line, changed
}

// logLine is a step for clients without progress: tool calls and approvals only.
func logLine(ev agenthost.Event) string {
	switch ev.Kind {
	case agenthost.EventToolStarted:
		return ev.Tool.Name + ": " + ev.Tool.Preview
	case agenthost.EventToolCompleted:
		return ev.Tool.Name + " finished: " + agenthost.Truncate(firstLineOf(ev.Tool.Result), 120)
	case agenthost.EventApprovalWaiting:
		return "waiting for approval " + ev.Approval.ID + ": " + ev.Approval.Summary
	case agenthost.EventApprovalResolved:
		return "approval " + ev.Approval.ID + ": " + string(ev.Approval.Decision)
	case agenthost.EventFallback, agenthost.EventError:
		return ev.Text
	}
	return ""
}

// endLine is the one-line summary that ends a turn's progress.
func endLine(res *agenthost.Result) string {
	line := fmt.Sprintf("%s · %d tool call(s) · %s tokens", res.Status, res.ToolIterations, compactCount(res.Usage.Total))
	if res.Fallback != "" {
		line += " · fallback " + res.Fallback
	}
	return line
}

func compactCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

func firstWords(s string, n int) string {
	words := strings.Fields(s)
	if len(words) > n {
		return strings.Join(words[:n], " ") + "…"
	}
	return strings.Join(words, " ")
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// cancelProgress interrupts the turn whose progress the user cancelled.
func (s *Server) cancelProgress(token protocol.ProgressToken) {
	s.mu.Lock()
	var target *turnView
	for _, tv := range s.turns {
		if tv.token != nil && tv.token.String() == token.String() {
			target = tv
		}
	}
	s.mu.Unlock()
	if target == nil {
		return
	}
	s.goAsync("cancel progress", func(ctx context.Context) {
		if err := target.turn.Interrupt(ctx); err != nil {
			s.log.Info("could not interrupt the turn", "err", err)
		}
	})
}

// The host's types become the protocol's here, field by field, so that what the server sends is
// hermesproto's to define: a field added to agenthost's (or codex's) types reaches editors only
// once it is added to hermesproto, its golden files and docs/protocol.md. TestWireEventMirrorsHost
// fails when agenthost has a field that is not carried over.

// wireEvent is ev as hermes/turnEvent sends it.
func wireEvent(ev agenthost.Event) hermesproto.Event {
	out := hermesproto.Event{
		Kind: hermesproto.EventKind(ev.Kind), ThreadID: ev.ThreadID, TurnID: ev.TurnID, Time: ev.Time,
		Text: ev.Text, Diff: ev.Diff,
	}
	if t := ev.Tool; t != nil {
		out.Tool = &hermesproto.ToolEvent{
			ItemID: t.ItemID, CallID: t.CallID, Name: t.Name, Args: t.Args, Preview: t.Preview,
			DurationMs: t.DurationMs, IsError: t.IsError, Result: t.Result, Status: t.Status, ExitCode: t.ExitCode,
		}
	}
	for _, p := range ev.Plan {
		out.Plan = append(out.Plan, hermesproto.PlanStep{Step: p.Step, Status: p.Status})
	}
	if ev.Usage != nil {
		u := wireUsage(*ev.Usage)
		out.Usage = &u
	}
	if c := ev.Compaction; c != nil {
		out.Compaction = &hermesproto.Compaction{SessionID: c.SessionID, Count: c.Count, Runtime: c.Runtime, ThreadID: c.ThreadID, TurnID: c.TurnID}
	}
	if ev.Approval != nil {
		a := wireApproval(*ev.Approval)
		out.Approval = &a
	}
	if ev.Result != nil {
		r := wireResult(*ev.Result)
		out.Result = &r
	}
	return out
}

func wireUsage(u agenthost.Usage) hermesproto.Usage {
	return hermesproto.Usage{
		Prompt: u.Prompt, Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output,
		Completion: u.Completion, Reasoning: u.Reasoning, Total: u.Total, ContextWindow: u.ContextWindow, LastPrompt: u.LastPrompt,
	}
}

func wireApproval(a agenthost.Approval) hermesproto.Approval {
	out := hermesproto.Approval{
		ID: a.ID, Kind: hermesproto.ApprovalKind(a.Kind), Folder: a.Folder, ThreadID: a.ThreadID, TurnID: a.TurnID,
		ItemID: a.ItemID, Summary: a.Summary, Command: a.Command, Cwd: a.Cwd, GrantRoot: a.GrantRoot, Reason: a.Reason,
		Decision: hermesproto.Decision(a.Decision), DecidedBy: a.DecidedBy, AutoSource: a.AutoSource, Asked: a.Asked,
	}
	for _, c := range a.Changes {
		out.Changes = append(out.Changes, hermesproto.FileChange{
			Path: c.Path, Kind: hermesproto.FileChangeKind{Type: c.Kind.Type, MovePath: c.Kind.MovePath}, Diff: c.Diff,
		})
	}
	return out
}

func wireResult(r agenthost.Result) hermesproto.Result {
	out := hermesproto.Result{
		FinalText: r.FinalText, ToolIterations: r.ToolIterations, Status: r.Status, Completed: r.Completed,
		Partial: r.Partial, Error: r.Error, ThreadID: r.ThreadID, TurnID: r.TurnID, APICalls: r.APICalls,
		Usage: wireUsage(r.Usage), Compacted: r.Compacted, Fallback: r.Fallback, NewThread: r.NewThread,
		Retired: r.Retired, TranscriptPath: r.TranscriptPath, DurationMs: r.DurationMs,
	}
	if r.Messages != nil {
		// An empty transcript is sent as [], a missing one as null, as the host's type does.
		out.Messages = make([]hermesproto.Message, 0, len(r.Messages))
	}
	for _, m := range r.Messages {
		wm := hermesproto.Message{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, hermesproto.ToolCall{
				ID: tc.ID, Type: tc.Type, Function: hermesproto.ToolFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
			})
		}
		out.Messages = append(out.Messages, wm)
	}
	return out
}
