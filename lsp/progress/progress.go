// Package progress reports a turn as LSP work-done progress: one line that says what the agent does
// now, with its tokens, coalesced to at most about ten reports a second, and a last line that says
// how the turn ended. An editor without progress gets the turn's steps in its log instead.
package progress

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
)

// Interval is the least time between two progress reports: about ten a second at most.
const Interval = 100 * time.Millisecond

// AutoApproving marks every progress message of a turn whose approvals nobody is asked about.
const AutoApproving = "auto-approving"

// Reporter is one turn's progress: a turn observer. Event and End are called from one goroutine,
// the turn's follower, which also sends a report that is due at once; a report that must wait for
// Interval is sent by a timer's function, which End stops or waits for.
type Reporter struct {
	ed    *editor.Client
	token *protocol.ProgressToken // nil: the editor shows no progress, steps go to its log
	title string                  // "Hermes", or "Hermes review"
	auto  func() bool             // whether the turn's approvals are auto-approved right now
	note  func() string           // appended to each report (the rate limits when they run high)

	line line // the follower's

	mu      sync.Mutex
	pending string      // the newest report not yet sent
	last    time.Time   // when the last report was sent
	timer   *time.Timer // sends pending when it fires; nil when no report is due
	ended   bool
	timers  sync.WaitGroup // the timer's function, while it may run
}

// Config says where a turn's progress goes and what it shows.
type Config struct {
	Editor *editor.Client
	// Token is the progress token; nil when the editor has none for the turn.
	Token *protocol.ProgressToken
	// Title is the progress title: "Hermes", or "Hermes review".
	Title string
	// Auto reports whether the turn's approvals are auto-approved right now: each message says so.
	Auto func() bool
	// Note, when set, is appended to each report.
	Note func() string
}

// Start begins a turn's progress with its first words.
func Start(ctx context.Context, cfg Config, first string) *Reporter {
	r := &Reporter{ed: cfg.Editor, token: cfg.Token, title: cfg.Title, auto: cfg.Auto, note: cfg.Note}
	r.send(ctx, &protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: r.title, Message: r.mark(first), Cancellable: true})
	return r
}

// Event takes one of the turn's events. A changed line is reported at once when the last report is
// Interval old, else when it is: the report then due takes the newest line.
func (r *Reporter) Event(ctx context.Context, ev *hermesproto.Event) {
	if r.token == nil {
		if l := logLine(ev); l != "" {
			r.ed.LogMessage(ctx, protocol.MessageTypeLog, "Hermes: "+l)
		}
	}
	msg, changed := r.line.apply(ev)
	if !changed {
		return
	}
	if ev.Approval != nil && ev.Approval.Warning != "" {
		msg += " · ⚠ " + ev.Approval.Warning
	}
	if r.note != nil {
		msg += r.note()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = msg
	if r.timer != nil {
		return // a report is due when the timer fires; it takes the newest line
	}
	if wait := Interval - time.Since(r.last); wait > 0 {
		r.timers.Add(1)
		r.timer = time.AfterFunc(wait, func() {
			defer r.timers.Done()
			r.mu.Lock()
			defer r.mu.Unlock()
			r.timer = nil
			if !r.ended && r.pending != "" {
				r.reportLocked(ctx)
			}
		})
		return
	}
	r.reportLocked(ctx)
}

// reportLocked sends the pending line. r.mu is held.
func (r *Reporter) reportLocked(ctx context.Context) {
	r.send(ctx, &protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: r.mark(r.pending), Cancellable: true})
	r.pending, r.last = "", time.Now()
}

// End ends the progress with how the turn ended (res nil: it ended without a result). A report still
// pending is dropped: the end says how the turn ended, which is newer, and one message less stands
// between the editor and it.
func (r *Reporter) End(ctx context.Context, res *hermesproto.Result) {
	r.mu.Lock()
	r.ended = true
	if r.timer != nil && r.timer.Stop() {
		r.timers.Done() // its function will not run
	}
	r.timer = nil
	r.mu.Unlock()
	r.timers.Wait() // a function that was already running has seen ended
	msg := "ended"
	if res != nil {
		msg = EndLine(res)
	}
	r.send(ctx, &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: msg})
}

func (r *Reporter) send(ctx context.Context, value any) {
	if r.token == nil {
		return
	}
	r.ed.Notify(ctx, protocol.MethodProgress, &protocol.ProgressParams{Token: *r.token, Value: value})
}

// mark prefixes msg with "auto-approving" while the turn's approvals are auto-approved.
func (r *Reporter) mark(msg string) string {
	if r.token == nil || r.auto == nil || !r.auto() {
		return msg
	}
	return AutoApproving + " · " + msg
}

// line turns events into the progress line: what the agent does now, with usage.
type line struct {
	activity string
	usage    hermesproto.Usage
	text     string
	tokens   string // the line's usage part, made when usage changes (not for every delta)
}

// apply takes an event and reports the new line and whether it changed.
func (l *line) apply(ev *hermesproto.Event) (string, bool) {
	activity := l.activity
	switch ev.Kind {
	case hermesproto.EventKindToolStarted:
		activity = ev.Tool.Name + ": " + ev.Tool.Preview
	case hermesproto.EventKindToolCompleted:
		mark := "done"
		if ev.Tool.IsError {
			mark = "failed"
		}
		activity = ev.Tool.Name + " " + mark + ": " + ev.Tool.Preview
	case hermesproto.EventKindApprovalWaiting:
		activity = "waiting for approval: " + ev.Approval.Summary
	case hermesproto.EventKindApprovalResolved:
		activity = "approval " + string(ev.Approval.Decision) + ": " + ev.Approval.Summary
	case hermesproto.EventKindAnswerDelta:
		activity = "answering"
	case hermesproto.EventKindReasoningDelta:
		activity = "thinking"
	case hermesproto.EventKindCompaction:
		activity = "compacting the context"
	case hermesproto.EventKindFallback:
		activity = "fallback: " + ev.Text
	case hermesproto.EventKindSteered:
		activity = "steered: " + FirstWords(ev.Text, 8)
	case hermesproto.EventKindError:
		activity = "error: " + ev.Text
	case hermesproto.EventKindUsage:
		l.usage = *ev.Usage
		tokens := ""
		if l.usage.Total > 0 {
			tokens = " · " + annotate.CompactCount(l.usage.Total) + " tokens"
			if pct := l.usage.ContextPercent(); pct > 0 {
				tokens += " · " + strconv.Itoa(pct) + "% context"
			}
		}
		if tokens == l.tokens && l.text != "" {
			return l.text, false
		}
		l.tokens = tokens
	default:
		return l.text, false
	}
	if activity == l.activity && ev.Kind != hermesproto.EventKindUsage && l.text != "" {
		return l.text, false // the same step again (an answer streams in many deltas)
	}
	l.activity = activity
	if activity == "" {
		activity = "working"
	}
	text := agenthost.Truncate(activity, 100) + l.tokens
	changed := text != l.text
	l.text = text
	return text, changed
}

// logLine is a step for clients without progress: tool calls and approvals only.
func logLine(ev *hermesproto.Event) string {
	switch ev.Kind {
	case hermesproto.EventKindToolStarted:
		return ev.Tool.Name + ": " + ev.Tool.Preview
	case hermesproto.EventKindToolCompleted:
		return ev.Tool.Name + " finished: " + agenthost.Truncate(annotate.FirstLine(ev.Tool.Result), 120)
	case hermesproto.EventKindApprovalWaiting:
		return "waiting for approval " + ev.Approval.ID + ": " + ev.Approval.Summary
	case hermesproto.EventKindApprovalResolved:
		return "approval " + ev.Approval.ID + ": " + string(ev.Approval.Decision)
	case hermesproto.EventKindFallback, hermesproto.EventKindError:
		return ev.Text
	}
	return ""
}

// EndLine is the one-line summary that ends a turn's progress.
func EndLine(res *hermesproto.Result) string {
	line := fmt.Sprintf("%s · %d tool call(s) · %s tokens", res.Status, res.ToolIterations, annotate.CompactCount(res.Usage.Total))
	if res.Fallback != "" {
		line += " · fallback " + res.Fallback
	}
	return line
}

// FirstWords is s's first n words, with "…" when there were more.
func FirstWords(s string, n int) string {
	words := strings.Fields(s)
	if len(words) > n {
		return strings.Join(words[:n], " ") + "…"
	}
	return strings.Join(words, " ")
}
