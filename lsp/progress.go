package lsp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// reportInterval is the least time between two progress reports: about ten a second at most.
const reportInterval = 100 * time.Millisecond

// turnView is a running turn as the editor sees it: its folder and its progress token.
type turnView struct {
	folder workspace.Folder
	turn   *agenthost.Turn
	token  *protocol.ProgressToken // nil when the client shows no progress
}

// TurnEventParams is the hermes/turnEvent notification.
type TurnEventParams struct {
	Folder   string          `json:"folder"`
	ThreadID string          `json:"threadId"`
	TurnID   string          `json:"turnId"`
	Event    agenthost.Event `json:"event"`
}

// MethodTurnEvent is the notification that streams a turn's events to clients that ask for them.
const MethodTurnEvent = "hermes/turnEvent"

// watchTurn gives a turn its progress and follows it to its end.
func (s *Server) watchTurn(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, prompt string, clientToken *protocol.ProgressToken) {
	tv := &turnView{folder: folder, turn: turn}
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
}

// follow reports a turn's events until it ends: coalesced progress, hermes/turnEvent notifications,
// and the final answer.
func (s *Server) follow(ctx context.Context, tv *turnView, prompt string) {
	title := firstWords(prompt, 8)
	p := &progress{s: s, token: tv.token, auto: func() bool { return s.autoApproveOf(tv.folder.Path).Effective }}
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
			if s.currentSettings().TurnEvents {
				s.notify(ctx, MethodTurnEvent, &TurnEventParams{Folder: tv.folder.Path, ThreadID: ev.ThreadID, TurnID: ev.TurnID, Event: ev})
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
	if result == nil {
		p.end(ctx, "ended")
		return
	}
	p.end(ctx, endLine(result))
	s.announce(ctx, tv, result)
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
	p.send(ctx, &protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: "Hermes", Message: p.mark(title), Cancellable: true})
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
