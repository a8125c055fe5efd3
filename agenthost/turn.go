package agenthost

// This file is a turn as every goroutine that deals with it sees it: the caller's handle (Turn), what
// the turn is (turnSpec, fixed when it is made) and how its owners signal each other (turn). What
// changes as the turn runs has one owner each: turnSession, the session goroutine's part
// (session.go), and turnRunner, the part of the goroutine that drives the turn (turn_runner.go).

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// Turn is a caller's handle on a running turn.
type Turn struct {
	t       *turn
	steered bool
}

// ThreadID is the codex thread the turn runs on.
func (t *Turn) ThreadID() string { return t.t.where().threadID }

// TurnID is the codex turn id (it changes if a fallback provider retries the turn; a compaction
// learns it once codex has started it).
func (t *Turn) TurnID() string { return t.t.where().turnID }

// Steered reports that the input steered a turn that was already running rather than starting one.
func (t *Turn) Steered() bool { return t.steered }

// Folder is the session's folder.
func (t *Turn) Folder() string { return t.t.s.folder }

// Events streams the turn's events, ending with EventTurnCompleted; the channel closes after it.
// Events are kept until read: a caller that asks for them must drain them.
func (t *Turn) Events() <-chan hermesproto.Event {
	e := &t.t.events
	if !e.ask() && t.t.s.deliverLate(e.queue) != nil {
		ch := make(chan hermesproto.Event)
		close(ch) // the host has shut down: nothing will be delivered
		return ch
	}
	return e.queue.Out()
}

// Done is closed when the turn has ended and its result is ready.
func (t *Turn) Done() <-chan struct{} { return t.t.done }

// Wait returns the turn's result once it has ended, or ctx's error.
func (t *Turn) Wait(ctx context.Context) (*hermesproto.Result, error) {
	select {
	case <-t.t.done:
		return t.t.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Interrupt stops the turn.
func (t *Turn) Interrupt(ctx context.Context) error {
	return t.t.interrupt(ctx, "interrupted by the user")
}

// errTurnOver says the turn ended before an operation on it could apply.
var errTurnOver = errors.New("the turn is over")

// turnSpec is what a turn is. It is fixed when the turn is made: anyone may read it.
type turnSpec struct {
	input      Input
	compaction bool // a compaction turn (Session.Compact), not a prompt
	review     bool // a review (Session.Review), on a thread of its own
	yields     bool // a review the next prompt stops
	started    time.Time
}

// names says the turn names its thread when it is the thread's first: a prompt's turn does (see
// sessionState.claimName), a compaction or a review does not.
func (sp turnSpec) names() bool { return !sp.compaction && !sp.review }

// turn is one turn of a session as all its goroutines share it: its spec, and how its owners signal
// each other. Its fields are never written after newTurn, or are safe for concurrent use, or (result)
// are published by closing a channel. What the turn's session and its runner change as it runs are
// types of their own, each owned by one goroutine: turnSession and turnRunner.
type turn struct {
	turnSpec
	s *Session

	events      turnEvents
	startedCh   chan struct{}       // closed once the turn has started in codex, or failed to
	interrupted chan struct{}       // closed (on the session's goroutine) when an interrupt was asked
	done        chan struct{}       // closed by the runner when the result is ready
	result      *hermesproto.Result // written by the runner before it closes done

	// at is where the turn runs, as its session last recorded it: written on the session's goroutine
	// (turnSession.setAttempt) before Run returns and whenever it changes, read by anyone without
	// asking the session. Nil until the turn has started.
	at atomic.Pointer[attempt]

	// Counters bumped beside the runner and read by it without asking the session, so that the
	// turn's hot path (every notification) does not wait on the session's goroutine.
	steers    atomic.Uint64                     // steers begun (steerOnce, on the steering caller's goroutine)
	settled   atomic.Int64                      // approvals settled: the length of turnSession.approvals
	lastUsage atomic.Pointer[hermesproto.Usage] // the latest usage (the runner's), for Status
}

// newTurn makes a turn of spec, and its runner's part: that goes to whoever starts the turn, and
// from them to the runner (begin). On the session's goroutine: the runner starts from the thread's
// token total as the session last saw it (see noteContext).
func (s *Session) newTurn(st *sessionState, spec turnSpec) *turnRunner {
	spec.started = time.Now()
	q := newEventQueue()
	t := &turn{
		turnSpec:    spec,
		s:           s,
		events:      turnEvents{queue: q, asked: make(chan struct{})},
		startedCh:   make(chan struct{}),
		interrupted: make(chan struct{}),
		done:        make(chan struct{}),
	}
	ts := &turnRunner{
		turn:      t,
		open:      make(map[string]*openItem),
		compacted: make(map[string]bool),
		apiCalls:  1,
		live:      newLiveTranscript(s.h.store, s.folder, spec.input, spec.compaction, spec.started, q),
	}
	if st.threadTotal != nil {
		ts.lastTotal, ts.knownTotal = st.threadTotal.TotalTokens, true
	}
	if !spec.compaction {
		ts.addMessages(hermesproto.Message{Role: "user", Content: spec.input.Prompt})
	}
	return ts
}

// where returns where the turn runs, as its session knows it.
func (t *turn) where() attempt {
	if a := t.at.Load(); a != nil {
		return *a
	}
	return attempt{}
}

// turnEvents is a turn's events and their delivery. The runner and the session's goroutine push
// them; a goroutine of the session's, started with the turn (begin), delivers them to the queue's
// Out from the first Events on. So a caller asking for them needs no word with the session's
// goroutine, and events nobody asks for are never delivered.
type turnEvents struct {
	queue *eventQueue
	asked chan struct{} // closed by the first ask while the pump waits
	state atomic.Int32  // eventsWaiting, then eventsAsked (asked first) or eventsDropped (the turn ended first)
}

const (
	eventsWaiting int32 = iota
	eventsAsked
	eventsDropped
)

// ask says a caller reads the events. It reports false when the turn ended before anyone asked and
// its pump is gone: the caller then has the session deliver them (Session.deliverLate).
func (e *turnEvents) ask() bool {
	if e.state.CompareAndSwap(eventsWaiting, eventsAsked) {
		close(e.asked)
		return true
	}
	return e.state.Load() == eventsAsked
}

// pump delivers the events once they are asked for; it returns without delivering when the turn
// ends (done) first. It runs on a goroutine of the session's.
func (e *turnEvents) pump(done <-chan struct{}) {
	select {
	case <-e.asked:
	case <-done:
		if e.state.CompareAndSwap(eventsWaiting, eventsDropped) {
			return
		}
	}
	e.queue.Run()
}

// openItem is a tool item that started and has not completed.
type openItem struct {
	item    codex.Item
	started time.Time
}

// attempt is where a turn runs in codex: the client, thread, turn and the turn's subscription. A
// fallback retries the turn as a new attempt.
type attempt struct {
	client   Agent
	threadID string
	turnID   string
	sub      Stream
}

// stamp sets ev's thread and turn ids and time.
func (a attempt) stamp(ev hermesproto.Event) hermesproto.Event {
	ev.ThreadID, ev.TurnID = a.threadID, a.turnID
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	return ev
}

// steer adds input to the turn running at a. It returns errTurnOver when the turn had ended before
// codex took the input; a refusal of a turn that still runs is an error for the caller.
func (t *turn) steer(ctx context.Context, a attempt, in Input) error {
	for retried := false; ; retried = true {
		if t.over(a.sub) {
			return errTurnOver
		}
		if a.turnID == "" {
			return fmt.Errorf("%w: the turn has not started yet", ErrBusy)
		}
		if a.client == nil {
			return fmt.Errorf("%w: the turn runs on a chat fallback, which takes no input while it answers", ErrBusy)
		}
		err := t.steerOnce(ctx, a, in)
		if err == nil {
			return nil
		}
		var rpcErr *codex.Error
		if !errors.As(err, &rpcErr) {
			t.s.retireIfSilent(ctx, a.client)
			return fmt.Errorf("steer: %w", err)
		}
		// Whether the turn is over is the turn's to say, not the error's: codex announces a turn's
		// end before it answers a later request, so the turn's subscription knows by now.
		if t.over(a.sub) {
			return errTurnOver
		}
		if now := t.where(); !retried && now.turnID != a.turnID {
			a = now
			continue // the turn moved on (a fallback retries it under a new id): steer that one
		}
		return fmt.Errorf("codex did not take the input into the running turn (%s): ask again when it ends, or stop it first", rpcErr.Message)
	}
}

// steerOnce sends one steer. While codex has not answered, the turn's runner knows a steer is under
// way: codex may run the input (and end the turn) before its answer arrives, and the input must
// still be in the turn's messages.
func (t *turn) steerOnce(ctx context.Context, a attempt, in Input) error {
	answered := make(chan struct{})
	defer close(answered)
	t.steers.Add(1) // before it is registered: the runner looks for it from now on
	t.s.steerBegun(t, answered)
	_, err := a.client.SteerTurn(ctx, codex.TurnSteerParams{
		ThreadID: a.threadID, ExpectedTurnID: a.turnID, Input: []codex.UserInput{codex.TextInput(in.Prompt)},
	})
	t.s.steerAnswered(t, answered, in.Prompt, err == nil)
	return err
}

// over reports whether the turn has ended, or codex has announced its end on sub.
func (t *turn) over(sub Stream) bool {
	return closed(t.done) || (sub != nil && sub.TurnCompleted())
}

// interrupt asks codex to stop the turn; the runner finishes it when codex confirms, or when codex
// leaves an interrupt unanswered (see stop).
func (t *turn) interrupt(ctx context.Context, reason string) error {
	_, err := t.stop(ctx, reason)
	return err
}

// stop asks codex to stop the turn. An answer that is an error means the turn is already over (the
// runner's events will say); unanswered says codex did not answer within the interrupt's own
// timeout (codex.InterruptTimeout), which counts as the turn being over too: codex up to 0.168.0
// never answers an interrupt of a turn that has just ended (codex.ProblemInterruptUnanswered).
func (t *turn) stop(ctx context.Context, reason string) (unanswered bool, err error) {
	t.s.interruptTurn(t, reason)
	if closed(t.done) {
		return false, nil
	}
	a := t.where()
	if a.turnID == "" || a.client == nil {
		return false, nil // not started in codex yet, or a chat fallback's turn: the runner sees interrupted
	}
	err = a.client.InterruptTurn(ctx, a.threadID, a.turnID)
	var rpcErr *codex.Error
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, codex.ErrInterruptUnanswered):
		return true, nil
	case errors.As(err, &rpcErr):
		return false, nil // already over
	}
	return false, fmt.Errorf("interrupt: %w", err)
}
