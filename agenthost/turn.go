package agenthost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Turn is a caller's handle on a running turn.
type Turn struct {
	state   *turnState
	steered bool
}

// ThreadID is the codex thread the turn runs on.
func (t *Turn) ThreadID() string { return t.state.currentThreadID() }

// TurnID is the codex turn id (it changes if a fallback provider retries the turn).
func (t *Turn) TurnID() string { return t.state.currentTurnID() }

// Steered reports that the input steered a turn that was already running rather than starting one.
func (t *Turn) Steered() bool { return t.steered }

// Folder is the session's folder.
func (t *Turn) Folder() string { return t.state.s.folder }

// Events streams the turn's events, ending with EventTurnCompleted; the channel closes after it.
// Events are kept until read: a caller that asks for them must drain them.
func (t *Turn) Events() <-chan Event {
	ts := t.state
	ts.pumpOnce.Do(func() { ts.s.h.startPump(ts.queue) })
	return ts.queue.out
}

// Done is closed when the turn has ended and its result is ready.
func (t *Turn) Done() <-chan struct{} { return t.state.done }

// Wait returns the turn's result once it has ended, or ctx's error.
func (t *Turn) Wait(ctx context.Context) (*Result, error) {
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

// turnState is one turn as it runs: what codex reported and what the result will say. Its runner
// goroutine owns the accumulators; mu guards what other goroutines read or change.
type turnState struct {
	s          *Session
	input      Input
	compaction bool // a compaction turn (Session.Compact), not a prompt
	started    time.Time
	queue      *eventQueue
	pumpOnce   sync.Once
	done       chan struct{}
	startedCh  chan struct{} // closed once the turn has started in codex, or failed to
	result     *Result

	mu              sync.Mutex
	client          *codex.Client
	sub             *codex.Subscription
	threadID        string
	turnID          string
	interruptReason string
	interrupted     chan struct{} // closed when an interrupt was asked
	newThread       bool
	approvals       []Approval
	usage           *codex.ThreadTokenUsage
	steeredIn       []string // input codex took into the turn, not yet in messages
	chatUsage       bool     // usage is a chat fallback's, not codex's thread

	// Owned by the runner.
	messages   []Message
	reasoning  strings.Builder // reasoning to attach to the next assistant row
	finalText  string
	iterations int
	open       map[string]*openItem
	compacted  map[string]bool
	// usageAfterCompaction says a token usage update came after the turn's last compaction: without
	// one the context's size is unknown until the next update (the seed's awaiting real usage).
	usageAfterCompaction bool
	status               string
	turnErr              *codex.TurnError
	failure              error // the run broke: codex died or a call failed
	fallback             string
	apiCalls             int
}

func (s *Session) newTurnState(in Input, compaction bool) *turnState {
	ts := &turnState{
		s: s, input: in, compaction: compaction, started: time.Now(),
		queue:       newEventQueue(),
		done:        make(chan struct{}),
		startedCh:   make(chan struct{}),
		interrupted: make(chan struct{}),
		open:        make(map[string]*openItem),
		compacted:   make(map[string]bool),
		apiCalls:    1,
	}
	if !compaction {
		ts.messages = []Message{{Role: "user", Content: in.Prompt}}
	}
	return ts
}

func (ts *turnState) attach(client *codex.Client, threadID, turnID string, sub *codex.Subscription) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.client, ts.threadID, ts.turnID, ts.sub = client, threadID, turnID, sub
}

func (ts *turnState) currentTurnID() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.turnID
}

func (ts *turnState) currentThreadID() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.threadID
}

func (ts *turnState) liveUsage() Usage {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.usage == nil {
		return Usage{}
	}
	return usageOf(ts.usage)
}

func usageOf(u *codex.ThreadTokenUsage) Usage {
	var window int64
	if u.ModelContextWindow != nil {
		window = *u.ModelContextWindow
	}
	return UsageFrom(u.Last, window)
}

// emit stamps an event with the turn's ids and queues it.
func (ts *turnState) emit(ev Event) {
	ts.mu.Lock()
	ev.ThreadID, ev.TurnID = ts.threadID, ts.turnID
	ts.mu.Unlock()
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	ts.queue.push(ev)
}

func (ts *turnState) recordApproval(a Approval) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.approvals = append(ts.approvals, a)
}

// steer adds input to the running turn. It returns errTurnOver when the turn had ended before
// codex took the input; a refusal of a turn that still runs is an error for the caller.
func (ts *turnState) steer(ctx context.Context, in Input) error {
	for attempt := 0; ; attempt++ {
		ts.mu.Lock()
		client, threadID, turnID, sub := ts.client, ts.threadID, ts.turnID, ts.sub
		ts.mu.Unlock()
		if ts.over(sub) {
			return errTurnOver
		}
		if turnID == "" {
			return fmt.Errorf("%w: the turn has not started yet", ErrBusy)
		}
		if client == nil {
			return fmt.Errorf("%w: the turn runs on a chat fallback, which takes no input while it answers", ErrBusy)
		}
		_, err := client.SteerTurn(ctx, codex.TurnSteerParams{
			ThreadID: threadID, ExpectedTurnID: turnID, Input: []codex.UserInput{codex.TextInput(in.Prompt)},
		})
		if err == nil {
			ts.mu.Lock()
			ts.steeredIn = append(ts.steeredIn, in.Prompt)
			ts.mu.Unlock()
			ts.emit(Event{Kind: EventSteered, Text: in.Prompt})
			return nil
		}
		var rpcErr *codex.Error
		if !errors.As(err, &rpcErr) {
			ts.s.retireIfSilent(ctx, client)
			return fmt.Errorf("steer: %w", err)
		}
		// Whether the turn is over is the turn's to say, not the error's: codex announces a turn's
		// end before it answers a later request, so the turn's subscription knows by now.
		if ts.over(sub) {
			return errTurnOver
		}
		if attempt == 0 && ts.currentTurnID() != turnID {
			continue // the turn moved on (a fallback retries it under a new id): steer that one
		}
		return fmt.Errorf("codex did not take the input into the running turn (%s): ask again when it ends, or stop it first", rpcErr.Message)
	}
}

// takeSteered adds the input steered into the turn since the last event to the turn's messages, as
// the user's, where it came in: the transcript and a fallback's history then have it. Runner only.
func (ts *turnState) takeSteered() {
	ts.mu.Lock()
	in := ts.steeredIn
	ts.steeredIn = nil
	ts.mu.Unlock()
	for _, text := range in {
		ts.messages = append(ts.messages, Message{Role: "user", Content: text})
	}
}

// over reports whether the turn has ended, or codex has announced its end on sub.
func (ts *turnState) over(sub *codex.Subscription) bool {
	select {
	case <-ts.done:
		return true
	default:
	}
	return sub != nil && sub.TurnCompleted()
}

// waitStarted waits until the turn has started (or failed to): approvals codex asks for as soon as
// the turn runs are recorded on it then.
func (ts *turnState) waitStarted(ctx context.Context) {
	select {
	case <-ts.startedCh:
	case <-ctx.Done():
	}
}

// interrupt asks codex to stop the turn; the runner finishes it when codex confirms.
func (ts *turnState) interrupt(ctx context.Context, reason string) error {
	ts.mu.Lock()
	client, threadID, turnID := ts.client, ts.threadID, ts.turnID
	first := ts.interruptReason == ""
	if first {
		ts.interruptReason = reason
		close(ts.interrupted)
	}
	ts.mu.Unlock()
	select {
	case <-ts.done:
		return nil
	default:
	}
	if turnID == "" || client == nil {
		return nil // not started in codex yet, or a chat fallback's turn: the runner sees interrupted
	}
	if err := client.InterruptTurn(ctx, threadID, turnID); err != nil {
		var rpcErr *codex.Error
		if errors.As(err, &rpcErr) {
			return nil // already over
		}
		return fmt.Errorf("interrupt: %w", err)
	}
	return nil
}
