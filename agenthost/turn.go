package agenthost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// Turn is a caller's handle on a running turn.
type Turn struct {
	state   *turnState
	steered bool
}

// where returns the thread and turn the turn runs on, as its session knows them.
func (t *Turn) where() attempt {
	var a attempt
	_ = t.state.s.call(func(*sessionState) { a = t.state.shared.attempt })
	if a.threadID == "" && closed(t.state.done) {
		a = t.state.cur // the session's goroutine has ended; the runner wrote cur last
	}
	return a
}

// ThreadID is the codex thread the turn runs on.
func (t *Turn) ThreadID() string { return t.where().threadID }

// TurnID is the codex turn id (it changes if a fallback provider retries the turn).
func (t *Turn) TurnID() string { return t.where().turnID }

// Steered reports that the input steered a turn that was already running rather than starting one.
func (t *Turn) Steered() bool { return t.steered }

// Folder is the session's folder.
func (t *Turn) Folder() string { return t.state.s.folder }

// Events streams the turn's events, ending with EventTurnCompleted; the channel closes after it.
// Events are kept until read: a caller that asks for them must drain them.
func (t *Turn) Events() <-chan hermesproto.Event {
	ts := t.state
	if err := ts.s.call(func(st *sessionState) { ts.s.startPump(st, ts.queue) }); err != nil {
		ch := make(chan hermesproto.Event)
		close(ch) // the host has shut down: nothing will be delivered
		return ch
	}
	return ts.queue.Out()
}

// Done is closed when the turn has ended and its result is ready.
func (t *Turn) Done() <-chan struct{} { return t.state.done }

// Wait returns the turn's result once it has ended, or ctx's error.
func (t *Turn) Wait(ctx context.Context) (*hermesproto.Result, error) {
	select {
	case <-t.state.done:
		return t.state.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Interrupt stops the turn.
func (t *Turn) Interrupt(ctx context.Context) error {
	return t.state.interrupt(ctx, "interrupted by the user")
}

// errTurnOver says the turn ended before an operation on it could apply.
var errTurnOver = errors.New("the turn is over")

// openItem is a tool item that started and has not completed.
type openItem struct {
	item    codex.Item
	started time.Time
}

// attempt is where a turn runs in codex: the client, thread, turn and the turn's subscription. A
// fallback retries the turn as a new attempt.
type attempt struct {
	client   *codex.Client
	threadID string
	turnID   string
	sub      *codex.Subscription
}

// stamp sets ev's thread and turn ids and time.
func (a attempt) stamp(ev hermesproto.Event) hermesproto.Event {
	ev.ThreadID, ev.TurnID = a.threadID, a.turnID
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	return ev
}

// turnState is one turn as it runs: what codex reported and what the result will say. Its fields
// have three owners: set at creation and never changed; the session's (shared), touched only on the
// session's goroutine; and the runner's, touched only by the goroutine that runs the turn (run, or
// runChatOnly), and before it starts by whoever starts the turn.
type turnState struct {
	s           *Session
	input       Input
	compaction  bool   // a compaction turn (Session.Compact), not a prompt
	review      bool   // a review (Session.Review), on a thread of its own
	yields      bool   // a review the next prompt stops
	nameAs      string // the title its new thread gets once the turn has ended
	mayName     bool   // a prompt's turn: it names its thread when it is the thread's first (begin)
	started     time.Time
	queue       *eventQueue
	done        chan struct{}       // closed when the result is ready
	startedCh   chan struct{}       // closed once the turn has started in codex, or failed to
	interrupted chan struct{}       // closed when an interrupt was asked
	result      *hermesproto.Result // written before done is closed

	shared turnShared

	// Counters the session's goroutine bumps and the runner reads without asking the session, so
	// that the turn's hot path (every notification) does not wait on the session's goroutine.
	steers    atomic.Uint64                     // steers begun (steerOnce)
	approvals atomic.Int64                      // approvals settled: the length of shared.approvals
	lastUsage atomic.Pointer[hermesproto.Usage] // the latest usage, for Status

	// The runner's.
	steersTaken   uint64                 // steers counted when takeSteered last found none outstanding
	approvalsSeen []hermesproto.Approval // shared.approvals as the runner last copied it
	cur           attempt                // where the turn runs now
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
	status               string
	turnErr              *codex.TurnError
	failure              error // the run broke: codex died or a call failed
	fallback             string
	apiCalls             int
	live                 liveTranscript // the markdown transcript, written as the turn goes
}

// turnShared is the part of a turn its session's goroutine owns: what requests from outside the
// runner (steers, interrupts, approvals, status) read and change.
type turnShared struct {
	attempt         attempt // where the turn runs, as the runner last said
	interruptReason string
	newThread       bool
	approvals       []hermesproto.Approval
	steeredIn       []string               // input codex took into the turn, not yet in messages
	steering        map[chan struct{}]bool // steers codex has not answered yet; closed when answered
	pumping         bool                   // Events was asked for: the queue is being delivered
	checkpoint      Checkpoint             // what the turn's patches changed, for undoing it
}

func (s *Session) newTurnState(in Input, compaction bool) *turnState {
	q := newEventQueue()
	ts := &turnState{
		s: s, input: in, compaction: compaction, started: time.Now(),
		queue:       q,
		done:        make(chan struct{}),
		startedCh:   make(chan struct{}),
		interrupted: make(chan struct{}),
		open:        make(map[string]*openItem),
		compacted:   make(map[string]bool),
		apiCalls:    1,
		live:        newLiveTranscript(s.h.store, s.folder, in, compaction, time.Now(), q),
	}
	if !compaction {
		ts.addMessages(hermesproto.Message{Role: "user", Content: in.Prompt})
	}
	return ts
}

// MaxResultMessages is how many rows a turn's result keeps: the user message and the newest rows.
// A turn of thousands of tool calls writes them all to its transcript as they come, and holds no
// more than this of them.
const MaxResultMessages = 400

// addMessages adds rows to the turn's projected transcript and to its JSONL transcript. Runner
// only (and newTurnState before the turn runs).
func (ts *turnState) addMessages(rows ...hermesproto.Message) {
	ts.messages = append(ts.messages, rows...)
	ts.live.messages(rows)
	if len(ts.messages) > 2*MaxResultMessages {
		ts.trimMessages() // amortised over MaxResultMessages additions
	}
}

// trimMessages keeps the first row (the user message) and the newest, MaxResultMessages in all.
func (ts *turnState) trimMessages() {
	n := len(ts.messages)
	if n <= MaxResultMessages {
		return
	}
	drop := n - MaxResultMessages
	kept := make([]hermesproto.Message, 0, 2*MaxResultMessages)
	ts.messages = append(append(kept, ts.messages[0]), ts.messages[drop+1:]...)
	ts.omitted += drop
}

// moved tells the session where the turn runs now (a fallback attempt, or a compaction turn's id).
// Runner only.
func (ts *turnState) moved(a attempt) {
	ts.cur = a
	ts.live.turnID = a.turnID
	_ = ts.s.call(func(st *sessionState) {
		ts.nameIfFirst(st)
		ts.shared.attempt = a
	})
}

func usageOf(u *codex.ThreadTokenUsage) hermesproto.Usage {
	return UsageFrom(u.Last, u.ModelContextWindow)
}

// emit queues an event of the runner, stamped with where the turn runs, behind any held for the
// transcript (liveTranscript.hold). Runner only.
func (ts *turnState) emit(ev hermesproto.Event) { ts.live.send(ts.cur.stamp(ev)) }

// emitShared queues an event from the session's goroutine. Loop only.
func (ts *turnState) emitShared(ev hermesproto.Event) { ts.queue.Push(ts.shared.attempt.stamp(ev)) }

// steer adds input to the turn running at a. It returns errTurnOver when the turn had ended before
// codex took the input; a refusal of a turn that still runs is an error for the caller.
func (ts *turnState) steer(ctx context.Context, a attempt, in Input) error {
	for retried := false; ; retried = true {
		if ts.over(a.sub) {
			return errTurnOver
		}
		if a.turnID == "" {
			return fmt.Errorf("%w: the turn has not started yet", ErrBusy)
		}
		if a.client == nil {
			return fmt.Errorf("%w: the turn runs on a chat fallback, which takes no input while it answers", ErrBusy)
		}
		err := ts.steerOnce(ctx, a, in)
		if err == nil {
			return nil
		}
		var rpcErr *codex.Error
		if !errors.As(err, &rpcErr) {
			ts.s.retireIfSilent(ctx, a.client)
			return fmt.Errorf("steer: %w", err)
		}
		// Whether the turn is over is the turn's to say, not the error's: codex announces a turn's
		// end before it answers a later request, so the turn's subscription knows by now.
		if ts.over(a.sub) {
			return errTurnOver
		}
		var now attempt
		_ = ts.s.call(func(*sessionState) { now = ts.shared.attempt })
		if !retried && now.turnID != a.turnID {
			a = now
			continue // the turn moved on (a fallback retries it under a new id): steer that one
		}
		return fmt.Errorf("codex did not take the input into the running turn (%s): ask again when it ends, or stop it first", rpcErr.Message)
	}
}

// steerOnce sends one steer. While codex has not answered, the turn's runner knows a steer is under
// way: codex may run the input (and end the turn) before its answer arrives, and the input must
// still be in the turn's messages.
func (ts *turnState) steerOnce(ctx context.Context, a attempt, in Input) error {
	answered := make(chan struct{})
	defer close(answered)
	ts.steers.Add(1) // before it is registered: the runner looks for it from now on
	_ = ts.s.call(func(*sessionState) {
		if ts.shared.steering == nil {
			ts.shared.steering = make(map[chan struct{}]bool)
		}
		ts.shared.steering[answered] = true
	})
	_, err := a.client.SteerTurn(ctx, codex.TurnSteerParams{
		ThreadID: a.threadID, ExpectedTurnID: a.turnID, Input: []codex.UserInput{codex.TextInput(in.Prompt)},
	})
	_ = ts.s.call(func(*sessionState) {
		delete(ts.shared.steering, answered)
		if err == nil {
			ts.shared.steeredIn = append(ts.shared.steeredIn, in.Prompt)
			ts.emitShared(hermesproto.Event{Kind: hermesproto.EventKindSteered, Text: in.Prompt})
		}
	})
	return err
}

// awaitSteers waits (briefly) for the steers codex has not answered yet, so that input codex took
// into the turn comes before what codex made of it; it reports whether all were answered. Runner
// only.
func (ts *turnState) awaitSteers() bool {
	var pending []chan struct{}
	_ = ts.s.call(func(*sessionState) {
		for ch := range ts.shared.steering {
			pending = append(pending, ch)
		}
	})
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
// the user's, where it came in: the transcript and a fallback's history then have it. Runner only.
func (ts *turnState) takeSteered() {
	begun := ts.steers.Load()
	if begun == ts.steersTaken {
		return // no steer since the last look found none outstanding: nothing to ask the session
	}
	answered := ts.awaitSteers() // what codex sends now may be its answer to them
	var in []string
	_ = ts.s.call(func(*sessionState) { in, ts.shared.steeredIn = ts.shared.steeredIn, nil })
	for _, text := range in {
		ts.addMessages(hermesproto.Message{Role: "user", Content: text})
		ts.live.steered(text)
	}
	if answered {
		// Each answered steer added its input before its answer was signalled: all taken now.
		ts.steersTaken = begun
	}
}

// settledApprovals returns the turn's settled approvals, asking the session only when one was
// settled since the runner last asked. Runner only.
func (ts *turnState) settledApprovals() []hermesproto.Approval {
	if int(ts.approvals.Load()) != len(ts.approvalsSeen) {
		_ = ts.s.call(func(*sessionState) { ts.approvalsSeen = append([]hermesproto.Approval(nil), ts.shared.approvals...) })
	}
	return ts.approvalsSeen
}

// over reports whether the turn has ended, or codex has announced its end on sub.
func (ts *turnState) over(sub *codex.Subscription) bool {
	return closed(ts.done) || (sub != nil && sub.TurnCompleted())
}

// interrupt asks codex to stop the turn; the runner finishes it when codex confirms.
func (ts *turnState) interrupt(ctx context.Context, reason string) error {
	var a attempt
	_ = ts.s.call(func(*sessionState) {
		if ts.shared.interruptReason == "" {
			ts.shared.interruptReason = reason
			close(ts.interrupted)
		}
		a = ts.shared.attempt
	})
	if closed(ts.done) {
		return nil
	}
	if a.turnID == "" || a.client == nil {
		return nil // not started in codex yet, or a chat fallback's turn: the runner sees interrupted
	}
	if err := a.client.InterruptTurn(ctx, a.threadID, a.turnID); err != nil {
		var rpcErr *codex.Error
		if errors.As(err, &rpcErr) {
			return nil // already over
		}
		return fmt.Errorf("interrupt: %w", err)
	}
	return nil
}

// interruptReason is why the turn was stopped: the runner's own reason (deadline, shutdown), else
// the one an interrupt gave, else "". Runner only.
func (ts *turnState) interruptReason() string {
	if ts.stopReason != "" {
		return ts.stopReason
	}
	var reason string
	_ = ts.s.call(func(*sessionState) { reason = ts.shared.interruptReason })
	return reason
}
