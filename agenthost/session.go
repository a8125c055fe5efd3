package agenthost

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"time"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Session is one workspace folder's conversation with codex: a thread whose cwd is the folder, at
// most one running turn, the session's approvals and its accounting.
//
// One goroutine per session (loop) owns its state (sessionState): the thread, the current turn's
// session part (turnSession), pending approvals, accounting. Everyone else — editor requests, the
// turn's runner, codex's approval requests — asks it through the operations of session_protocol.go
// and session_fallback.go, each a command handed over a channel. The loop never blocks: whatever
// waits on codex or on a person (starting a turn, steering, interrupting, asking for an approval)
// runs on the caller's goroutine, which then reports back with another operation. So a command is
// answered at once, and no lock is held across a wait.
type Session struct {
	h      *Host
	folder string
	id     string

	cmds      chan func(*sessionState)
	pumpEnded chan *eventQueue // a pump of a turn's events has ended (see pump)
	stopped   chan struct{}    // closed when the loop takes no more commands
	exited    chan struct{}    // closed when the session's goroutines have all ended
	wg        conc.WaitGroup

	st sessionState // owned by loop
}

// sessionState is what the session's goroutine owns, with the current turn's turnSession: only loop
// touches them, running the operations of session_protocol.go and session_fallback.go and the
// helpers those call (the methods of sessionState and turnSession, and the Session methods that take
// a *sessionState).
type sessionState struct {
	threadID  string
	loadedGen int          // the codex generation the thread is loaded in; 0 = not loaded
	current   *turnSession // the turn registered to run, from before codex starts it until it ends
	yolo      bool
	fallback  *FallbackProvider // the provider the session's turns run on; nil: the primary
	// cooldowns are when each provider that failed a turn is tried again, by provider (primary for
	// the primary; see session_fallback.go).
	cooldowns   map[FallbackProvider]time.Time
	totals      hermesproto.Usage
	threadTotal *codex.TokenUsage // codex's running total of the thread as last seen; nil: unknown
	turns       int
	toolIters   int
	compactions int
	ineffective int                   // ineffective compactions in a row (compaction.go)
	unjudged    bool                  // the last compaction awaits its verdict (no model call since)
	history     []hermesproto.Message // projected transcript of this process's turns, for chat fallbacks
	pending     map[string]*pendingApproval
	fileChanges map[string][]hermesproto.FileChange // fileChange item id -> its changes, for its approval
	last        *hermesproto.Result
	pumps       map[*eventQueue]int // event queues being delivered, by pumps running; abandoned when the loop ends
	ending      bool                // the host closes or the session was removed: no new turns
	unnamed     string              // a thread codex started for the session, to be named by its first turn
	model       string              // the folder's model for its turns ("" = codex's default)
	effort      string              // the folder's reasoning effort ("" = the model's default)
	// transcripts are the thread's transcript files kept open between turns (see keepTranscripts):
	// lent to each turn as it begins, given back at its end.
	transcripts transcriptFiles
	// notes are the user's reverts of the agent's changes not yet told to the model, oldest first
	// (session_changes.go).
	notes []RevertNote
}

func newSession(h *Host, folder string, saved folderState) *Session {
	s := &Session{
		h:         h,
		folder:    folder,
		id:        newID(),
		cmds:      make(chan func(*sessionState)),
		pumpEnded: make(chan *eventQueue),
		stopped:   make(chan struct{}),
		exited:    make(chan struct{}),
		st: sessionState{
			threadID:    saved.ThreadID,
			threadTotal: saved.ThreadTotal,
			model:       saved.Model,
			effort:      saved.Effort,
			totals:      saved.Usage,
			turns:       saved.Turns,
			compactions: saved.Compactions,
			ineffective: saved.IneffectiveCompactions,
			unjudged:    saved.CompactionUnjudged,
			notes:       saved.RevertNotes,
			pending:     make(map[string]*pendingApproval),
			fileChanges: make(map[string][]hermesproto.FileChange),
			pumps:       make(map[*eventQueue]int),
		},
	}
	h.wg.Go(s.loop)
	return s
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// errStopped is what a command gets once the session's goroutine has ended.
var errStopped = errors.New("the agent host is shut down")

// loop runs the session's commands until the host closes (or the session is removed) and no turn
// runs; then it waits for the session's goroutines. Events not yet read are still delivered after a
// session was removed, and abandoned when the host closes: nobody may be reading them any more.
func (s *Session) loop() {
	defer close(s.exited)
	closing := s.h.closing
	abandon := func() {
		closing = nil
		for q := range s.st.pumps {
			q.Abandon()
		}
	}
	for !s.st.ending || s.st.current != nil {
		select {
		case f := <-s.cmds:
			f(&s.st)
		case q := <-s.pumpEnded:
			s.st.pumpEnded(q)
		case <-closing:
			closing = nil
			s.st.ending = true
		}
	}
	close(s.stopped)
	if err := s.st.transcripts.close(); err != nil {
		s.h.log.Warn("could not close the transcript", "folder", s.folder, "err", err)
	}
	if closed(s.h.closing) {
		abandon()
	}
	for len(s.st.pumps) > 0 {
		select {
		case q := <-s.pumpEnded:
			s.st.pumpEnded(q)
		case <-closing:
			abandon()
		}
	}
	s.wg.Wait()
}

// call runs f on the session's goroutine and returns once it has run, or errStopped when the
// session's goroutine has ended. Waiting for f needs no context: the loop runs every command at
// once and never blocks.
func (s *Session) call(f func(st *sessionState)) error {
	done := make(chan struct{})
	select {
	case s.cmds <- func(st *sessionState) { f(st); close(done) }:
		<-done
		return nil
	case <-s.stopped:
		return errStopped
	}
}

// Folder is the session's workspace folder, the cwd of its thread.
func (s *Session) Folder() string { return s.folder }

// ID identifies the session in events.
func (s *Session) ID() string { return s.id }

// save stages the session's thread and totals for the state file; flush (off the loop) writes them.
// Staging on the loop keeps the saves in the order the state changed.
func (s *Session) save(st *sessionState) {
	s.h.store.stage(s.folder, folderState{
		ThreadID: st.threadID, ThreadTotal: st.threadTotal, Usage: st.totals, Turns: st.turns,
		Compactions: st.compactions, IneffectiveCompactions: st.ineffective, CompactionUnjudged: st.unjudged,
		Model: st.model, Effort: st.effort, RevertNotes: slices.Clone(st.notes), Updated: time.Now(),
	})
}

// flush writes what save staged to the state file. It does file I/O: never on the loop.
func (s *Session) flush() { s.h.store.flushLogged() }

// start records that ts runs at a, tells the turn's callers, and has its events delivered once they
// are asked for. On the session's goroutine (planRun, begin).
func (s *Session) start(st *sessionState, ts *turnSession, a attempt) {
	ts.setAttempt(a)
	ts.emitShared(hermesproto.Event{Kind: hermesproto.EventKindTurnStarted, Text: ts.input.Prompt})
	close(ts.startedCh)
	s.pump(st, ts.events.queue, func() { ts.events.pump(ts.done) })
}

// pump runs deliver, which delivers q's events, on a goroutine of the session's: the loop waits for
// it, and abandons q if the host closes meanwhile. On the session's goroutine.
func (s *Session) pump(st *sessionState, q *eventQueue, deliver func()) {
	st.pumps[q]++
	s.wg.Go(func() {
		// The loop reads these until every pump has ended; deferred, so that a panic in deliver ends
		// the pump too and surfaces from the loop's wait rather than holding it forever.
		defer func() { s.pumpEnded <- q }()
		deliver()
	})
}

// pumpEnded counts off a pump of q that has ended. On the session's goroutine.
func (st *sessionState) pumpEnded(q *eventQueue) {
	if st.pumps[q]--; st.pumps[q] <= 0 {
		delete(st.pumps, q)
	}
}

// turnSession is the part of a turn its session's goroutine owns: what requests from outside the
// runner (steers, interrupts, approvals, patches) read and change. Only sessionState holds it
// (current, from when the turn is registered until it ends), so only the session's operations
// touch it; the runner asks for what it needs of it (session_protocol.go).
type turnSession struct {
	*turn
	interruptReason string
	approvals       []hermesproto.Approval
	steeredIn       []string               // input codex took into the turn, not yet in the runner's messages
	steering        map[chan struct{}]bool // steers codex has not answered yet; closed when answered
	checkpoint      Checkpoint             // what the turn's patches changed, for undoing it
	// patched are, by completed patch item, its files before the turn's first patch of them and as
	// this patch left them (the checkpoint's After moves on with the next patch), until the runner
	// takes them for the patch's event.
	patched map[string][]FileCheckpoint
}

// setAttempt records where the turn runs now, for everyone (turn.at).
func (ts *turnSession) setAttempt(a attempt) { ts.at.Store(&a) }

// emitShared queues an event from the session's goroutine.
func (ts *turnSession) emitShared(ev hermesproto.Event) { ts.events.queue.Push(ts.where().stamp(ev)) }

// turnOf returns the session's part of t while t is the session's turn (registered and not ended),
// else nil.
func (st *sessionState) turnOf(t *turn) *turnSession {
	if st.current == nil || st.current.turn != t {
		return nil
	}
	return st.current
}
