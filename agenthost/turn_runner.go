package agenthost

// This file holds the turn's runner: the goroutine that drives a turn to its end, and the part of the
// turn it owns.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/stackhint"
)

// turnRunner is the part of a turn its runner owns: what codex reported and what the result will
// say. Whoever starts the turn makes it (Session.newTurn) and sets where the turn runs (cur); begin
// hands it to the runner's goroutine (run, or runChatOnly), the only one to touch it from then on.
// What the runner needs of the session's part of the turn it asks the session for (session_protocol.go).
type turnRunner struct {
	*turn

	cur       attempt // where the turn runs now
	nameAs    string  // the title its new thread gets once the turn has ended (sessionState.claimName)
	newThread bool    // codex started a new thread for the turn, as the session had none (or lost it)

	steersTaken   uint64                 // steers counted when takeSteered last found none outstanding
	approvalsSeen []hermesproto.Approval // the session's record of the turn's approvals as the runner last copied it
	stopReason    string                 // the runner stopped the turn (deadline, shutdown): the result's reason
	usage         *codex.ThreadTokenUsage
	chatUsage     bool                  // usage is a chat fallback's, not codex's thread
	messages      []hermesproto.Message // the user message, then the newest rows (see addMessages)
	omitted       int                   // rows dropped from messages
	reasoning     strings.Builder       // reasoning to attach to the next assistant row
	finalText     string
	iterations    int
	open          map[string]*openItem
	compacted     map[string]bool
	// usageAfterCompaction says a token usage update came after the turn's last compaction: without
	// one the context's size is unknown until the next update.
	usageAfterCompaction bool
	check                compactionCheck // the context's size around the turn's compactions
	lastTotal            int64           // the thread's running token total as last seen (knownTotal)
	knownTotal           bool
	status               string
	turnErr              *codex.TurnError
	failure              error // the run broke: codex died or a call failed
	apiCalls             int
	live                 liveTranscript // the markdown transcript, written as the turn goes

	// The fallback chain (fallback.go): the provider the turn runs on (primary, or a fallback named
	// by fallback), the providers it failed on, with why, and the fallbacks passed over as cooling
	// down; exhausted says no provider was left to try.
	provider  FallbackProvider
	fallback  string
	tried     []FallbackProvider
	failures  []string
	cooling   []string
	exhausted bool
}

// run drives the turn to its end: it applies codex's notifications, enforces the deadline, retires
// codex when the turn shows it is broken, retries down the fallback chain, and finishes the result.
// begin gives it the session's open transcripts (lent), for the turn to take up when they are its
// thread's, and the title the turn's new thread gets at its end (nameAs; see sessionState.claimName).
func (ts *turnRunner) run(lent transcriptFiles, nameAs string) {
	stackhint.Grow() // decoding, the transcript's JSON, the session's calls: deep calls ahead
	ts.nameAs = nameAs
	h := ts.s.h
	cfg := h.config()
	deadline := newTurnDeadline(h)
	defer deadline.stop()
	ts.live.borrow(lent)
	ts.live.setThread(ts.cur.threadID)
	ts.live.turnID = ts.cur.turnID
	// The transcript shows the turn from its start: drive writes its first rows once it has applied
	// what codex sent already (the first update goes out before the disk is touched).

	ts.drive(deadline)
	retire, why := ts.assess()
	if client := ts.cur.client; retire && client != nil {
		h.retire(client, why) // a no-op when the watcher already retired a dead codex
	}
	retired := ts.failOver(cfg, deadline, retire)
	ts.finish(retired)
	if client, threadID, title := ts.cur.client, ts.cur.threadID, ts.nameAs; title != "" && client != nil && !retired {
		// Beside the session: the turn's end is not held by it (nor by a codex that stalls).
		ts.s.wg.Go(func() {
			ctx, cancel := context.WithTimeout(ts.s.h.closed, 5*time.Second)
			defer cancel()
			ts.s.nameThread(ctx, client, threadID, title)
		})
	}
}

// turnDeadline is when a running turn times out: the turn timeout after its runner began, with the
// timeout in force now, so that a timeout changed while the turn runs applies to it. Runner only.
type turnDeadline struct {
	h        *Host
	from     time.Time
	timer    *time.Timer
	replaced <-chan struct{} // closed when the configuration the timer follows is replaced
}

func newTurnDeadline(h *Host) *turnDeadline {
	cfg, replaced := h.configNow()
	return &turnDeadline{h: h, from: time.Now(), timer: time.NewTimer(cfg.TurnTimeout), replaced: replaced}
}

// follow sets the timer by the configuration in force now; called once replaced is closed.
func (d *turnDeadline) follow() {
	var cfg Config
	cfg, d.replaced = d.h.configNow()
	d.timer.Reset(time.Until(d.from.Add(cfg.TurnTimeout)))
}

func (d *turnDeadline) stop() { d.timer.Stop() }

// drive applies notifications until the turn completes, codex goes away, the deadline passes, or
// the host closes.
func (ts *turnRunner) drive(d *turnDeadline) {
	deadline := d.timer.C
	sub := ts.cur.sub
	defer sub.Close()
	closing := ts.s.h.closing
	// Codex acknowledges an interrupt that arrives before the turn's first model request and then
	// runs the turn anyway: until the turn ends, the interrupt is sent again now and then.
	interrupted := ts.interrupted
	var again <-chan time.Time
	resends := 0
	for {
		if len(sub.Events()) == 0 {
			ts.live.flush() // codex has nothing more for now: the transcript shows the turn so far
		}
		select {
		case <-interrupted:
			interrupted = nil
			again = time.After(interruptResend)
		case <-again:
			again = nil
			if resends < 10 {
				resends++
				if ts.resendInterrupt() {
					ts.endUnanswered(sub)
					return
				}
				again = time.After(interruptResend)
			}
		case ev, ok := <-sub.Events():
			if !ok {
				ts.failure = sub.Err()
				if ts.failure == nil {
					ts.failure = errors.New("the turn's event stream ended early")
				}
				ts.failure = ts.withStderr(ts.failure)
				ts.closeOpen("codex stopped")
				return
			}
			if ts.apply(ev) {
				return
			}
		case <-d.replaced:
			d.follow()
		case <-deadline:
			deadline = nil
			ts.stopAndWait(sub, fmt.Sprintf("turn timed out after %v", ts.s.h.config().TurnTimeout))
			return
		case <-closing:
			closing = nil
			ts.stopAndWait(sub, "hermes-lsp is shutting down")
			return
		}
	}
}

// interruptResend is how long an interrupted turn may run on before the interrupt is sent again.
const interruptResend = 500 * time.Millisecond

// resendInterrupt sends the interrupt again. It reports whether codex left it unanswered, which
// counts as the turn being over (see turn.stop); an error answer means it is over too, and the
// events will say so.
func (ts *turnRunner) resendInterrupt() (unanswered bool) {
	a := ts.cur
	if a.client == nil || a.turnID == "" {
		return false
	}
	err := a.client.InterruptTurn(ts.s.h.closed, a.threadID, a.turnID) // bounded by its own timeout
	return errors.Is(err, codex.ErrInterruptUnanswered)
}

// endUnanswered ends a turn whose interrupt codex left unanswered: what codex sent meanwhile is
// applied, and unless that ended the turn it ends as interrupted.
func (ts *turnRunner) endUnanswered(sub Stream) {
	for len(sub.Events()) > 0 {
		ev, ok := <-sub.Events()
		if !ok || ts.apply(ev) {
			break
		}
	}
	if ts.status == "" || ts.status == codex.TurnInProgress {
		ts.status = codex.TurnInterrupted
	}
	ts.closeOpen("codex did not answer the interrupt")
}

// withStderr adds the last lines codex wrote on stderr to err, the failure of a turn whose codex
// went away, unless err carries them already (an *codex.ExitError does).
func (ts *turnRunner) withStderr(err error) error {
	client := ts.cur.client
	var exit *codex.ExitError
	if client == nil || errors.As(err, &exit) {
		return err
	}
	tail := strings.TrimSpace(client.StderrTail(20))
	if tail == "" {
		return err
	}
	return fmt.Errorf("%w\ncodex's last output:\n%s", err, tail)
}

// stopAndWait interrupts the turn and gives codex a moment to confirm, keeping what arrives; an
// interrupt codex leaves unanswered ends the turn at once (see turn.stop).
func (ts *turnRunner) stopAndWait(sub Stream, reason string) {
	unanswered, _ := ts.stop(context.Background(), reason) // bounded by the interrupt's own timeout
	ts.stopReason = reason                                 // the deadline or shutdown is the reason, even after a user's stop
	if unanswered {
		ts.stopReason = reason + "; codex did not confirm the interrupt"
		ts.endUnanswered(sub)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				ts.closeOpen(reason)
				return
			}
			if ts.apply(ev) {
				return
			}
		case <-ctx.Done():
			ts.failure = errors.New(reason + "; codex did not confirm the interrupt")
			ts.closeOpen(reason)
			return
		}
	}
}

// MaxResultMessages is how many rows a turn's result keeps: the user message and the newest rows.
// A turn of thousands of tool calls writes them all to its transcript as they come, and holds no
// more than this of them.
const MaxResultMessages = 400

// addMessages adds rows to the turn's projected transcript and to its JSONL transcript.
func (ts *turnRunner) addMessages(rows ...hermesproto.Message) {
	ts.messages = append(ts.messages, rows...)
	ts.live.messages(rows)
	if len(ts.messages) > 2*MaxResultMessages {
		ts.trimMessages() // amortised over MaxResultMessages additions
	}
}

// trimMessages keeps the first row (the user message) and the newest, MaxResultMessages in all.
func (ts *turnRunner) trimMessages() {
	n := len(ts.messages)
	if n <= MaxResultMessages {
		return
	}
	drop := n - MaxResultMessages
	kept := make([]hermesproto.Message, 0, 2*MaxResultMessages)
	ts.messages = append(append(kept, ts.messages[0]), ts.messages[drop+1:]...)
	ts.omitted += drop
}

// moved tells the session where the turn runs now (a fallback attempt, or a compaction turn's id);
// fresh says codex started a new thread for it.
func (ts *turnRunner) moved(a attempt, fresh bool) {
	ts.cur = a
	ts.live.turnID = a.turnID
	if name := ts.s.turnMoved(ts.turn, a); name != "" {
		ts.nameAs = name
	}
	ts.newThread = ts.newThread || fresh
}

func usageOf(u *codex.ThreadTokenUsage) hermesproto.Usage {
	return UsageFrom(u.Last, u.ModelContextWindow)
}

// emit queues an event of the runner, stamped with where the turn runs, behind any held for the
// transcript (liveTranscript.hold).
func (ts *turnRunner) emit(ev hermesproto.Event) { ts.live.send(ts.cur.stamp(ev)) }

// awaitSteers waits (briefly) for the steers codex has not answered yet, so that input codex took
// into the turn comes before what codex made of it; it reports whether all were answered.
func (ts *turnRunner) awaitSteers() bool {
	pending := ts.s.steersPending(ts.turn)
	if len(pending) == 0 {
		return true
	}
	timer := time.NewTimer(steerAnswerWait)
	defer timer.Stop()
	for _, ch := range pending {
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-ts.s.h.closing:
			return false
		}
	}
	return true
}

// steerAnswerWait bounds how long a finished turn waits for codex to answer a steer.
const steerAnswerWait = 2 * time.Second

// takeSteered adds the input steered into the turn since the last event to the turn's messages, as
// the user's, where it came in: the transcript and a fallback's history then have it.
func (ts *turnRunner) takeSteered() {
	begun := ts.steers.Load()
	if begun == ts.steersTaken {
		return // no steer since the last look found none outstanding: nothing to ask the session
	}
	answered := ts.awaitSteers() // what codex sends now may be its answer to them
	for _, text := range ts.s.takeSteeredIn(ts.turn) {
		ts.addMessages(hermesproto.Message{Role: "user", Content: text})
		ts.live.steered(text)
	}
	if answered {
		// Each answered steer added its input before its answer was signalled: all taken now.
		ts.steersTaken = begun
	}
}

// settledApprovals returns the turn's settled approvals, asking the session only when one was
// settled since the runner last asked.
func (ts *turnRunner) settledApprovals() []hermesproto.Approval {
	if int(ts.settled.Load()) != len(ts.approvalsSeen) {
		ts.approvalsSeen = ts.s.turnApprovals(ts.turn)
	}
	return ts.approvalsSeen
}

// interruptReason is why the turn was stopped: the runner's own reason (deadline, shutdown), else
// the one an interrupt gave, else "".
func (ts *turnRunner) interruptReason() string {
	if ts.stopReason != "" {
		return ts.stopReason
	}
	return ts.s.interruptReason(ts.turn)
}
