package agenthost

// This file writes a turn into its thread's markdown transcript while it runs, so that opening the
// transcript mid-turn shows the turn so far: the prompt first, then each row as its item completes.
// Only the turn's runner writes; the JSONL transcript and the turn's last line follow at its end
// (store.appendTurn).

import (
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// liveTranscript is a turn's part of its thread's markdown transcript. The runner's only.
type liveTranscript struct {
	st       *store
	folder   string
	files    transcriptFiles // the thread's transcripts; their paths are "" until the thread is known, or when its id names no file
	lent     transcriptFiles // the session's open transcripts, taken up by setThread when they are the thread's
	threadID string
	turnID   string                // the turn the rows belong to, once codex has said
	msgs     []hermesproto.Message // the turn's projected rows not written to the JSONL transcript yet
	jsonl    []byte                // reused to encode them
	pending  []string              // rows written before the thread was known, the header first
	unsaved  []byte                // rows for path not written yet: written together (flush)
	answered bool                  // an answer row was written
	written  map[string]bool
	failed   bool // a write failed (logged once)
	// queue takes the turn's events for the editor; held are those that follow a tool row not on
	// disk yet, sent on by the flush that writes it (hold).
	queue *eventQueue
	held  []hermesproto.Event
}

func newLiveTranscript(st *store, folder string, in Input, compaction bool, at time.Time, queue *eventQueue) liveTranscript {
	return liveTranscript{st: st, folder: folder, pending: []string{guardRow(mdHeader(in, compaction, at))}, written: make(map[string]bool), queue: queue}
}

// send queues ev for the editor, after the events held for a row not on disk yet (order is kept).
func (lt *liveTranscript) send(ev hermesproto.Event) {
	if len(lt.held) > 0 {
		lt.held = append(lt.held, ev)
		return
	}
	lt.queue.Push(ev)
}

// hold queues ev, a finished tool's event, once the rows written so far are on disk: whoever is
// told that a tool finished finds its row in the transcript. Rows are written in bursts (flush), so
// this costs no write of its own; rows with no file to go to hold nothing.
func (lt *liveTranscript) hold(ev hermesproto.Event) {
	if len(lt.unsaved) == 0 {
		lt.send(ev)
		return
	}
	lt.held = append(lt.held, ev)
}

// release sends the held events on: their rows are written.
func (lt *liveTranscript) release() {
	for _, ev := range lt.held {
		lt.queue.Push(ev)
	}
	clear(lt.held)
	lt.held = lt.held[:0]
}

// setThread names the turn's thread: the rows so far go to its transcript, and the next ones as
// they come. A thread id that cannot name a file keeps them (they are lost with the turn).
func (lt *liveTranscript) setThread(threadID string) {
	if threadID == "" || threadID == lt.threadID {
		return
	}
	jsonl, md, err := TranscriptPaths(lt.st.dir, threadID)
	if err != nil {
		return
	}
	lt.close() // the files of another thread (a turn that moved) are done with
	lt.files = transcriptFiles{jsonlPath: jsonl, mdPath: md}
	if lt.lent.jsonlPath == jsonl && lt.lent.mdPath == md {
		lt.files, lt.lent = lt.lent, transcriptFiles{}
		lt.files.stale = true // still the files at those paths? Asked at the first append, off the first update's path
	}
	lt.closeLent()
	lt.threadID = threadID
	rows := lt.pending
	lt.pending = nil
	for _, r := range rows {
		lt.add(r)
	}
}

// write adds a row, guarded (guardRow), kept until the thread is known and then until the next
// flush (the runner flushes when codex has nothing more queued for it, and at the turn's end): a
// burst of items costs one locked append, not one per item.
func (lt *liveTranscript) write(row string) {
	lt.add(guardRow(row))
}

// add adds a guarded row.
func (lt *liveTranscript) add(row string) {
	if lt.files.mdPath == "" {
		lt.pending = append(lt.pending, row)
		return
	}
	lt.unsaved = append(lt.unsaved, row...)
	if len(lt.unsaved) >= liveFlushBytes {
		lt.flush()
	}
}

// liveFlushBytes and liveFlushRows bound what a turn holds of its transcripts before writing them.
const (
	liveFlushBytes = 64 << 10
	liveFlushRows  = 256
)

// messages adds the turn's projected rows, for the JSONL transcript.
func (lt *liveTranscript) messages(rows []hermesproto.Message) {
	lt.msgs = append(lt.msgs, rows...)
	if lt.files.mdPath != "" && len(lt.msgs) >= liveFlushRows {
		lt.flush()
	}
}

// flush writes the rows not written yet.
func (lt *liveTranscript) flush() {
	if lt.files.mdPath == "" || (len(lt.unsaved) == 0 && len(lt.msgs) == 0) {
		return
	}
	lt.jsonl = encodeMessages(lt.jsonl[:0], lt.folder, lt.threadID, lt.turnID, time.Now(), lt.msgs)
	err := lt.st.appendRows(&lt.files, lt.jsonl, lt.unsaved)
	lt.msgs = lt.msgs[:0]
	lt.unsaved = lt.unsaved[:0]
	if cap(lt.unsaved) > liveFlushBytes*2 || cap(lt.jsonl) > liveFlushBytes*4 {
		lt.unsaved, lt.jsonl = nil, nil // a burst's buffers are not kept for the rest of the turn
	}
	if err != nil && !lt.failed {
		lt.failed = true
		lt.st.log.Warn("could not write the transcript", "path", lt.files.mdPath, "err", err)
	}
	lt.release() // written, or failed for good: either way the events go on
}

// close closes the transcripts the turn kept open.
func (lt *liveTranscript) close() {
	if err := lt.files.close(); err != nil {
		lt.st.log.Warn("could not close the transcript", "path", lt.files.mdPath, "err", err)
	}
}

// closeLent closes the session's transcripts the turn did not take up.
func (lt *liveTranscript) closeLent() {
	if err := lt.lent.close(); err != nil {
		lt.st.log.Warn("could not close the transcript", "path", lt.lent.mdPath, "err", err)
	}
	lt.lent = transcriptFiles{}
}

// borrow takes the session's open transcripts, lent to the turn as it begins (Session.begin).
// setThread takes them up when they are the turn's thread's.
func (lt *liveTranscript) borrow(lent transcriptFiles) {
	lt.closeLent()
	lt.lent = lent
}

// giveBack returns the turn's open transcripts at its end, after the last append, for the session
// to keep open for the next turn where keepTranscriptsOpen allows; it closes the others.
func (lt *liveTranscript) giveBack() transcriptFiles {
	lt.closeLent()
	if keepTranscriptsOpen {
		kept := lt.files
		lt.files = transcriptFiles{}
		return kept
	}
	lt.close()
	return transcriptFiles{}
}

// closeKept closes transcripts the session kept open and no turn took (Session.endTurn).
func (lt *liveTranscript) closeKept(kept transcriptFiles) {
	if err := kept.close(); err != nil {
		lt.st.log.Warn("could not close the transcript", "path", kept.mdPath, "err", err)
	}
}

// tool writes a finished tool item with the approvals it needed.
// note, when set, says why the item never completed.
func (lt *liveTranscript) tool(item *codex.Item, took time.Duration, approvals []hermesproto.Approval, note string) {
	var mine []hermesproto.Approval
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
func (lt *liveTranscript) tail(res *hermesproto.Result, approvals []hermesproto.Approval) string {
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
	return guardRow(s + mdEnd(res))
}

// takeUnsaved returns the rows not written yet, markdown and projected, for the turn's end to write
// with its last ones (one locked append rather than two), after which it calls release; a thread
// known only at the end is set first.
func (lt *liveTranscript) takeUnsaved(threadID string) (md string, msgs []hermesproto.Message) {
	if lt.files.mdPath == "" {
		lt.setThread(threadID)
	}
	md, msgs = string(lt.unsaved), lt.msgs
	lt.unsaved, lt.msgs = nil, nil
	return md, msgs
}
