package codex

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/internal/queue"
)

// Event is one notification as a subscriber sees it.
type Event struct {
	// Method is the notification's method, with older spellings mapped to the current ones.
	Method string
	// ThreadID and TurnID are the thread and turn the notification belongs to, when it says.
	ThreadID string
	TurnID   string
	// Params are the raw params.
	Params json.RawMessage
	// Value is the decoded params (a pointer such as *ItemParams) for methods this package knows,
	// else nil.
	Value any
	// Err is set when a known method's params did not decode: the event is malformed.
	Err error
}

// Subscription delivers the notifications of one thread (or of all threads) in the order codex sent
// them. Its queue is unbounded, so a slow consumer never stalls the connection. Events is closed when
// the subscription is closed, when its turn completes (for a turn subscription), or when the client
// ends; Err then says why.
type Subscription struct {
	threadID string // "" means every notification
	queue    *queue.Unbounded[Event]
	once     sync.Once
	onStop   func(*Subscription)

	mu     sync.Mutex
	held   []Event // events that came before the turn id was known
	turnID string  // once armed, events of other turns are dropped ("" keeps all)
	armed  bool    // false holds delivery until the turn id is known
	// overflow: the consumer did not catch up within backlogWait; the read goroutine's only.
	overflow bool
	ended    bool // no more events will be queued
	over     bool // turn/completed of the subscription's turn was queued
	err      error
}

func newSubscription(threadID string, armed bool, onStop func(*Subscription)) *Subscription {
	return &Subscription{threadID: threadID, queue: queue.New[Event](), armed: armed, onStop: onStop}
}

// Events is the stream of events.
func (s *Subscription) Events() <-chan Event { return s.queue.Out() }

// Err says why Events was closed: nil after Close or a completed turn, else the client's end.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops the subscription. Events queued and not yet received are dropped.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.queue.Abandon()
		if s.onStop != nil {
			s.onStop(s)
		}
	})
}

// arm sets the turn filter and starts delivery, with the events held until now that belong to it.
func (s *Subscription) arm(turnID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turnID, s.armed = turnID, true
	held := s.held
	s.held = nil
	for _, ev := range held {
		s.queueLocked(ev)
	}
}

func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.Method == NotifyTurnCompleted && (s.turnID == "" || ev.TurnID == "" || ev.TurnID == s.turnID) {
		s.over = true
	}
	switch {
	case s.ended:
	case !s.armed:
		s.held = append(s.held, ev)
	default:
		s.queueLocked(ev)
	}
}

// queueLocked queues ev if it belongs to the subscription's turn; the turn's turn/completed is the
// last event queued. s.mu is held and the subscription armed.
func (s *Subscription) queueLocked(ev Event) {
	if s.ended || (s.turnID != "" && ev.TurnID != "" && ev.TurnID != s.turnID) {
		return
	}
	s.queue.Push(ev)
	if s.turnID != "" && ev.Method == NotifyTurnCompleted && ev.TurnID == s.turnID {
		s.ended = true
		s.queue.Close()
	}
}

// TurnCompleted reports whether codex has announced the end of the subscription's turn
// (turn/completed), delivered or not yet. Notifications are routed on the connection's read
// goroutine in the order codex wrote them, so after an answer from codex this says whether codex
// had ended the turn before it answered.
func (s *Subscription) TurnCompleted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.over
}

// end says no more events will come; err is why (nil for a normal end). What is queued is still
// delivered; events held for a turn id that never came are dropped.
func (s *Subscription) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.err = true, err
	s.held = nil
	s.queue.Close()
}

// Backlog bounds: a consumer this far behind holds the connection's reader back (see throttle).
const (
	backlogHigh = 4096
	backlogLow  = backlogHigh / 2
)

// backlogWait is how long throttle waits for a consumer to catch up (a variable for tests).
var backlogWait = time.Second

// throttle holds the connection's read goroutine while the subscription's consumer is backlogHigh
// events behind, until it is backlogLow behind: codex's output then waits in the pipe rather than
// decoded in memory, so a flood of events costs the server the same memory as a trickle. A consumer
// that does not catch up within backlogWait (it may be waiting for an answer only the reader can
// give) is not waited for again until it has: the subscription then grows as it always could.
// It runs on the read goroutine; done is the connection's end.
func (s *Subscription) throttle(done <-chan struct{}) {
	s.mu.Lock()
	waiting := s.armed && !s.ended && !s.overflow
	s.mu.Unlock()
	if !waiting || s.queue.Len() < backlogHigh {
		if s.overflow && s.queue.Len() <= backlogLow {
			s.overflow = false
		}
		return
	}
	timer := time.NewTimer(backlogWait)
	defer timer.Stop()
	if !s.queue.WaitRoom(backlogLow, done, timer.C) {
		s.overflow = true
	}
}

// pump delivers queued events to the Events channel until the subscription ends. It runs on a
// goroutine owned by the client.
func (s *Subscription) pump() { s.queue.Run() }
