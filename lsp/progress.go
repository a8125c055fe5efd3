package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
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
	token  *protocol.ProgressToken // nil when the client shows no progress; s.mu, once early is set
	early  *earlyToken             // the token being asked for: follow waits for it
	rec    *annotate.Record
	review *reviewRun // set when the turn is a review
}

// MethodTurnEvent is the notification that streams a turn's events to clients that ask for them.
const MethodTurnEvent = hermesproto.MethodTurnEvent

// watchTurn gives a turn its progress and follows it to its end.
func (s *Server) watchTurn(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, prompt string, clientToken *protocol.ProgressToken) *turnView {
	return s.watchTurnWith(ctx, folder, turn, prompt, clientToken, nil)
}

// watchTurnWith is watchTurn with the progress token made while the turn started (see earlyToken).
func (s *Server) watchTurnWith(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, prompt string, clientToken *protocol.ProgressToken, early *earlyToken) *turnView {
	tv := &turnView{folder: folder, turn: turn, rec: annotate.NewRecord(folder.Path, prompt, turn.ThreadID(), turn.TurnID())}
	return s.watch(ctx, tv, prompt, clientToken, early)
}

// watchReview is watchTurn for a review.
func (s *Server) watchReview(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, run *reviewRun, clientToken *protocol.ProgressToken) *turnView {
	prompt := "review " + run.label
	tv := &turnView{folder: folder, turn: turn, rec: annotate.NewRecord(folder.Path, prompt, turn.ThreadID(), turn.TurnID()), review: run}
	return s.watch(ctx, tv, prompt, clientToken, nil)
}

func (s *Server) watch(ctx context.Context, tv *turnView, prompt string, clientToken *protocol.ProgressToken, early *earlyToken) *turnView {
	folder, turn := tv.folder, tv.turn
	switch {
	case clientToken != nil:
		tv.token = clientToken
	case early != nil:
		tv.early = early // follow waits for it: the ask is answered, and the events read, meanwhile
	default:
		tv.token = s.createToken(ctx, "hermes/"+turn.TurnID())
	}
	s.mu.Lock()
	s.turns[folder.Path] = tv
	s.mu.Unlock()
	// The events are asked for now, while the turn surely runs: a session that has ended (its
	// folder removed, the turn over) delivers nothing to a late caller.
	events := turn.Events()
	s.goAsync("turn", func(ctx context.Context) { s.follow(ctx, tv, prompt, events) })
	return tv
}

// follow reports a turn's events until it ends: coalesced progress, hermes/turnEvent notifications,
// and the final answer.
func (s *Server) follow(ctx context.Context, tv *turnView, prompt string, events <-chan agenthost.Event) {
	title := firstWords(prompt, 8)
	if tv.early != nil {
		token := tv.early.wait(ctx)
		s.mu.Lock()
		tv.token = token
		s.mu.Unlock()
	}
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
	for events != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if tv.rec.Apply(ev) && s.origins.Has(tv.rec) {
				s.refreshInlayHints()
			}
			conflict := s.agentEdits(ctx, tv.folder.Path, ev)
			if s.turnEventsOn() {
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
	// A report still pending is dropped: the end that follows says how the turn ended, which is
	// newer, and one message less stands between the editor and it.

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

// turnEventsOn reports the turnEvents setting without copying the settings (it is read per event).
func (s *Server) turnEventsOn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings.TurnEvents
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
// pages. Its make bench row: "Idle RSS of hermes-lsp after 103 turns", 5.5 s after the last, is
// 18.7 MiB with it and 23.7 MiB without (target 20 MiB; docs/benchmarks.md, 2026-12-04).
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
			text = strings.TrimSpace(text + " (" + annotate.FirstLine(res.Error) + ")")
		}
	}
	msg := "Hermes (" + tv.folder.Name + "): " + agenthost.Truncate(strings.TrimSpace(text), 400)
	if key, line, ok := s.origins.Where(tv.rec); ok {
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
	tokens   string // the line's usage part, made when usage changes (not for every delta)
}

// apply takes an event and reports the new line and whether it changed.
func (tp *turnProgress) apply(ev agenthost.Event) (string, bool) {
	activity := tp.activity
	switch ev.Kind {
	case agenthost.EventToolStarted:
		activity = ev.Tool.Name + ": " + ev.Tool.Preview
	case agenthost.EventToolCompleted:
		mark := "done"
		if ev.Tool.IsError {
			mark = "failed"
		}
		activity = ev.Tool.Name + " " + mark + ": " + ev.Tool.Preview
	case agenthost.EventApprovalWaiting:
		activity = "waiting for approval: " + ev.Approval.Summary
	case agenthost.EventApprovalResolved:
		activity = "approval " + string(ev.Approval.Decision) + ": " + ev.Approval.Summary
	case agenthost.EventAnswerDelta:
		activity = "answering"
	case agenthost.EventReasoningDelta:
		activity = "thinking"
	case agenthost.EventCompaction:
		activity = "compacting the context"
	case agenthost.EventFallback:
		activity = "fallback: " + ev.Text
	case agenthost.EventSteered:
		activity = "steered: " + firstWords(ev.Text, 8)
	case agenthost.EventError:
		activity = "error: " + ev.Text
	case agenthost.EventUsage:
		tp.usage = *ev.Usage
		tokens := ""
		if tp.usage.Total > 0 {
			tokens = " · " + annotate.CompactCount(tp.usage.Total) + " tokens"
			if pct := tp.usage.ContextPercent(); pct > 0 {
				tokens += " · " + strconv.Itoa(pct) + "% context"
			}
		}
		if tokens == tp.tokens && tp.line != "" {
			return tp.line, false
		}
		tp.tokens = tokens
	default:
		return tp.line, false
	}
	if activity == tp.activity && ev.Kind != agenthost.EventUsage && tp.line != "" {
		return tp.line, false // the same step again (an answer streams in many deltas)
	}
	tp.activity = activity
	if activity == "" {
		activity = "working"
	}
	line := agenthost.Truncate(activity, 100) + tp.tokens
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
		return ev.Tool.Name + " finished: " + agenthost.Truncate(annotate.FirstLine(ev.Tool.Result), 120)
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
	line := fmt.Sprintf("%s · %d tool call(s) · %s tokens", res.Status, res.ToolIterations, annotate.CompactCount(res.Usage.Total))
	if res.Fallback != "" {
		line += " · fallback " + res.Fallback
	}
	return line
}

func firstWords(s string, n int) string {
	words := strings.Fields(s)
	if len(words) > n {
		return strings.Join(words[:n], " ") + "…"
	}
	return strings.Join(words, " ")
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
