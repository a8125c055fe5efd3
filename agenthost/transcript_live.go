package agenthost

// This file writes a turn into its thread's markdown transcript while it runs, so that opening the
// transcript mid-turn shows the turn so far: the prompt first, then each row as its item completes.
// Only the turn's runner writes; the JSONL transcript and the turn's last line follow at its end
// (store.appendTurn).

import (
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// liveTranscript is a turn's part of its thread's markdown transcript. The runner's only.
type liveTranscript struct {
	st       *store
	path     string // the markdown file; "" until the thread is known, or when its id names no file
	threadID string
	pending  []string // rows written before the thread was known, the header first
	answered bool     // an answer row was written
	written  map[string]bool
	failed   bool // a write failed (logged once)
}

func newLiveTranscript(st *store, in Input, compaction bool, at time.Time) liveTranscript {
	return liveTranscript{st: st, pending: []string{mdHeader(in, compaction, at)}, written: make(map[string]bool)}
}

// setThread names the turn's thread: the rows so far go to its transcript, and the next ones as
// they come. A thread id that cannot name a file keeps them (they are lost with the turn).
func (lt *liveTranscript) setThread(threadID string) {
	if threadID == "" || threadID == lt.threadID {
		return
	}
	_, md, err := TranscriptPaths(lt.st.dir, threadID)
	if err != nil {
		return
	}
	lt.threadID, lt.path = threadID, md
	rows := lt.pending
	lt.pending = nil
	for _, r := range rows {
		lt.write(r)
	}
}

// write appends a row, or keeps it until the thread is known.
func (lt *liveTranscript) write(row string) {
	if lt.path == "" {
		lt.pending = append(lt.pending, row)
		return
	}
	if err := lt.st.appendMarkdown(lt.path, row); err != nil && !lt.failed {
		lt.failed = true
		lt.st.log.Warn("could not write the transcript", "path", lt.path, "err", err)
	}
}

// tool writes a finished tool item with the approvals it needed.
// note, when set, says why the item never completed.
func (lt *liveTranscript) tool(item *codex.Item, took time.Duration, approvals []Approval, note string) {
	var mine []Approval
	for _, a := range approvals {
		if a.ItemID == item.ID && !lt.written[a.ID] {
			lt.written[a.ID] = true
			mine = append(mine, a)
		}
	}
	lt.write(mdTool(item, took, mine, note))
}

// answer writes the agent's message.
func (lt *liveTranscript) answer(text string) {
	if text == "" {
		return
	}
	lt.answered = true
	lt.write(mdAnswer(text))
}

// steered writes input the user added while the turn ran.
func (lt *liveTranscript) steered(text string) {
	lt.write("### You (while it ran)\n\n" + quote(text) + "\n\n")
}

// tail is what the turn's end adds: the answer when no message wrote one (a chat fallback, a
// failure's advice), approvals no tool row showed, and the outcome line.
func (lt *liveTranscript) tail(res *Result, approvals []Approval) string {
	var s string
	if !lt.answered && res.FinalText != "" {
		s += mdAnswer(res.FinalText)
	}
	for _, a := range approvals {
		if !lt.written[a.ID] {
			lt.written[a.ID] = true
			s += mdApproval(a)
		}
	}
	return s + mdEnd(res)
}

// flushPending writes what is still pending for a thread known only at the end.
func (lt *liveTranscript) flushPending(threadID string) {
	if lt.path == "" {
		lt.setThread(threadID)
	}
}
