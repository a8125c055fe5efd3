package agenthost

// This file keeps the books of compactions as the runtime contract has them: each compaction of the
// thread's context is counted, and judged by the first real prompt size after it. A compaction that
// leaves the prompt at or above the compaction threshold did not shrink the context enough: it is
// ineffective. The session counts ineffective compactions in a row (the contract's
// _ineffective_compression_count): one that clears the threshold, or a new thread, starts the count
// again.

import (
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// The contract's threshold: a context is due for compaction at half its window (threshold_percent
// 0.50), and never below 64,000 tokens (MINIMUM_CONTEXT_LENGTH), which is also the threshold when
// the window is unknown.
const (
	compactionThresholdPercent = 50
	minCompactionThreshold     = 64_000
)

// compactionThreshold is the prompt size, in tokens, at or above which a context of window tokens
// (0: unknown) is still due for compaction.
func compactionThreshold(window int64) int64 {
	return max(window*compactionThresholdPercent/100, minCompactionThreshold)
}

// compactionCheck is what a turn saw of the context's size for the compaction verdicts: the usage
// of its first model call before its first compaction (the verdict on a compaction an earlier turn
// left unjudged), and of its first model call after its last compaction. Nil: no such call.
type compactionCheck struct {
	before, after *hermesproto.Usage
}

// noteContext takes a token usage update of the thread into the turn's compaction check. Only the
// update of a model call counts: codex sends the thread's last update again when a turn starts, with
// the running total unchanged, and that says nothing of the context since.
func (ts *turnRunner) noteContext(u *codex.ThreadTokenUsage) {
	fresh := !ts.knownTotal || u.Total.TotalTokens != ts.lastTotal
	ts.lastTotal, ts.knownTotal = u.Total.TotalTokens, true
	if !fresh || ts.review { // a review runs on a thread of its own
		return
	}
	usage := usageOf(u)
	switch {
	case len(ts.compacted) == 0 && ts.check.before == nil:
		ts.check.before = &usage
	case len(ts.compacted) > 0 && ts.check.after == nil:
		ts.check.after = &usage
	}
}

// compactedItem takes a compaction into the turn: a contextCompaction item, or the older
// thread/compacted notification. The session counts one compaction per turn, however many items and
// notifications announce it. Until a token usage update follows, the context's size is unknown.
func (ts *turnRunner) compactedItem(itemID string) {
	ts.usageAfterCompaction = false
	ts.check.after = nil // the compaction announced last is the one to judge
	if ts.compacted[itemID] {
		return
	}
	ts.compacted[itemID] = true
	if len(ts.compacted) > 1 {
		return
	}
	count := ts.s.countCompaction()
	// The contract's session:compress event. Codex compacts the thread's context on its side: the
	// conversation goes on in the same thread and session (no old ones to name), and hermes rewrites
	// none of its own record of it (not in place: the transcript keeps every row).
	ts.emit(hermesproto.Event{Kind: hermesproto.EventKindCompaction, Compaction: &hermesproto.Compaction{
		SessionID: ts.s.id, OldSessionID: "", InPlace: false, Count: count, Runtime: "codex_app_server",
		ThreadID: ts.cur.threadID, OldThreadID: "", TurnID: ts.cur.turnID,
	}})
}

// judgeCompactions gives the verdicts a finished turn allows: on a compaction an earlier turn left
// unjudged, by this turn's first model call; on this turn's compaction, by its first model call
// after it, or else by the next turn's first. On the session's goroutine (account).
func (st *sessionState) judgeCompactions(compacted bool, c compactionCheck) {
	if st.unjudged && c.before != nil {
		st.judge(*c.before)
	}
	if compacted {
		st.unjudged = true
		if c.after != nil {
			st.judge(*c.after)
		}
	}
}

// judge gives the verdict on the last compaction by u, the first model call after it.
func (st *sessionState) judge(u hermesproto.Usage) {
	st.unjudged = false
	if u.LastPrompt >= compactionThreshold(u.ContextWindow) {
		st.ineffective++
	} else {
		st.ineffective = 0
	}
}

// forgetCompactions starts the verdicts again for a thread the session has not run before: its
// context owes nothing to the last thread's compactions.
func (st *sessionState) forgetCompactions() {
	st.ineffective, st.unjudged = 0, false
}
