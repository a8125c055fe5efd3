package agenthost

// This file builds a finished turn's result and accounts for it.

import (
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// finish builds the result, accounts for it, persists the transcript and ends the turn.
func (ts *turnRunner) finish(retired bool) {
	s := ts.s
	ts.takeSteered()
	reason, approvals := ts.s.turnEnding(ts.turn)
	if ts.stopReason != "" {
		reason = ts.stopReason // the runner's own reason comes first (see interruptReason)
	}
	if reason != "" && ts.status != codex.TurnCompleted && ts.failure == nil {
		// Stopped by a person, the deadline or shutdown: a chat fallback's request that was cut
		// short failed, yet the turn was interrupted.
		ts.status = codex.TurnInterrupted
	}
	newThread := ts.newThread
	threadID, turnID := ts.cur.threadID, ts.cur.turnID
	var usage hermesproto.Usage
	var total *codex.TokenUsage
	if ts.usage != nil {
		usage = usageOf(ts.usage)
		if !ts.chatUsage && !ts.review { // a review's thread is not the folder's: its total is no baseline
			t := ts.usage.Total
			total = &t
		}
	}

	ts.trimMessages()
	res := &hermesproto.Result{
		FinalText: ts.finalText, Messages: ts.messages, OmittedMessages: ts.omitted, ToolIterations: ts.iterations,
		ThreadID: threadID, TurnID: turnID, APICalls: ts.apiCalls, Usage: usage,
		Compacted: len(ts.compacted) > 0, Fallback: ts.fallback, NewThread: newThread,
		Retired: retired, DurationMs: time.Since(ts.started).Milliseconds(),
	}
	switch {
	case ts.failure != nil:
		res.Status = StatusFailed
		if reason != "" {
			res.Status = StatusInterrupted
		}
		res.Error = ts.failure.Error()
		if res.FinalText == "" {
			res.FinalText = "The turn stopped because codex stopped (" + shortCause(ts.failure) + ")." +
				" Ask again to restart it; if this repeats, check that `codex` runs in a terminal and read the hermes-lsp log."
		}
	case ts.status == codex.TurnCompleted:
		res.Status, res.Completed = StatusCompleted, true
	case ts.status == codex.TurnInterrupted:
		res.Status = StatusInterrupted
		res.Error = reason
		if res.Error == "" {
			res.Error = "turn interrupted"
		}
	default:
		res.Status = StatusFailed
		res.Error = "turn ended status=" + ts.status
		if ts.turnErr != nil {
			if info := ts.turnErr.CodexErrorInfo.String(); info != "" {
				res.Error += ": " + info
			}
			res.Error += ": " + ts.turnErr.Message
		}
		if res.FinalText == "" {
			res.FinalText = failureAdvice(ts.turnErr)
		}
	}
	res.Partial = !res.Completed
	if ts.fallback != "" && res.Completed {
		res.Error = ""
	}
	if ts.exhausted && res.Status == StatusFailed {
		// Every provider of the chain failed: none answered, and the answer says what each said.
		res.FinalText, res.Fallback = ts.exhaustedAdvice(), ""
	}

	md, msgs := ts.live.takeUnsaved(threadID)
	res.TranscriptPath = s.h.store.appendTurn(&ts.live.files, s.folder, res, ts.review, msgs, approvals, md+ts.live.tail(res, approvals))
	ts.live.release() // the tools' rows are on disk: their events go on
	cp, kept := s.endTurn(ts.turn, ts.live.giveBack(), turnEnd{
		res: res, usage: usage, total: total, iterations: ts.iterations,
		awaitingUsage: len(ts.compacted) > 0 && !ts.usageAfterCompaction,
		compacted:     len(ts.compacted) > 0, check: ts.check,
	})
	ts.live.closeKept(kept)
	cp.StartedAt = ts.started
	cp.Title = turnTitle(ts.turn.input)
	s.saveCheckpoint(cp, threadID, turnID) // before the report: an undo may follow it at once
	ts.result = res
	ts.emit(hermesproto.Event{Kind: hermesproto.EventKindTurnCompleted, Result: res})
	ts.events.queue.Close()
	s.h.store.saveSoon() // after the report, and shared with the turns that end next (see saveSoon)
	close(ts.done)
}

// turnTotal is what a turn adds to the session's totals: the growth of codex's running total of the
// thread since the last turn (a turn with several model calls reports only its last in `last`, and
// codex re-sends the previous update at a turn's start). When the baseline is unknown (a state file
// from before it was kept) the turn's last usage counts; a total that went down means codex's counter
// started again (a new process for the thread), so all of it counts. The context window and last
// prompt are the turn's.
func (st *sessionState) turnTotal(total codex.TokenUsage, last hermesproto.Usage) hermesproto.Usage {
	base := st.threadTotal
	st.threadTotal = &total
	var add hermesproto.Usage
	switch {
	case base == nil:
		return last
	case total.TotalTokens < base.TotalTokens:
		add = UsageFrom(total, 0)
	default:
		add = UsageFrom(codex.TokenUsage{
			InputTokens:           max(0, total.InputTokens-base.InputTokens),
			CachedInputTokens:     max(0, total.CachedInputTokens-base.CachedInputTokens),
			CacheWriteInputTokens: max(0, total.CacheWriteInputTokens-base.CacheWriteInputTokens),
			OutputTokens:          max(0, total.OutputTokens-base.OutputTokens),
			ReasoningOutputTokens: max(0, total.ReasoningOutputTokens-base.ReasoningOutputTokens),
			TotalTokens:           total.TotalTokens - base.TotalTokens,
		}, 0)
	}
	add.ContextWindow, add.LastPrompt = last.ContextWindow, last.LastPrompt
	return add
}
