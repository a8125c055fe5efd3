package codex

import (
	"encoding/json"
	"sync"
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
	events   chan Event

	mu     sync.Mutex
	queue  []Event
	turnID string // once armed, events of other turns are dropped ("" keeps all)
	armed  bool   // false holds delivery until the turn id is known
	ended  bool   // no more events will be queued
	over   bool   // turn/completed of the subscription's turn was queued
	err    error
	wake   chan struct{} // signalled when queue, armed or ended change
	stop   chan struct{} // closed by Close
	once   sync.Once
	onStop func(*Subscription)
}

func newSubscription(threadID string, armed bool, onStop func(*Subscription)) *Subscription {
	return &Subscription{
		threadID: threadID,
		events:   make(chan Event),
		armed:    armed,
		wake:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		onStop:   onStop,
	}
}

// Events is the stream of events.
func (s *Subscription) Events() <-chan Event { return s.events }

// Err says why Events was closed: nil after Close or a completed turn, else the client's end.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops the subscription. Events queued and not yet received are dropped.
func (s *Subscription) Close() {
	s.once.Do(func() {
		close(s.stop)
		if s.onStop != nil {
			s.onStop(s)
		}
	})
}

// arm sets the turn filter and starts delivery.
func (s *Subscription) arm(turnID string) {
	s.mu.Lock()
	s.turnID, s.armed = turnID, true
	s.mu.Unlock()
	s.signal()
}

func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	if !s.ended {
		s.queue = append(s.queue, ev)
	}
	if ev.Method == NotifyTurnCompleted && (s.turnID == "" || ev.TurnID == "" || ev.TurnID == s.turnID) {
		s.over = true
	}
	s.mu.Unlock()
	s.signal()
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

// end says no more events will come; err is why (nil for a normal end).
func (s *Subscription) end(err error) {
	s.mu.Lock()
	if !s.ended {
		s.ended, s.err = true, err
	}
	s.mu.Unlock()
	s.signal()
}

func (s *Subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump moves queued events to the Events channel until the subscription ends. It runs on a goroutine
// owned by the client.
func (s *Subscription) pump() {
	defer close(s.events)
	for {
		s.mu.Lock()
		var (
			ev    Event
			have  bool
			ended = s.ended
		)
		if s.armed {
			for len(s.queue) > 0 && !have {
				ev, s.queue = s.queue[0], s.queue[1:]
				have = s.turnID == "" || ev.TurnID == "" || ev.TurnID == s.turnID
			}
			if len(s.queue) == 0 {
				s.queue = nil // let the backing array go
			}
		}
		s.mu.Unlock()

		if !have {
			if ended && s.drained() {
				return
			}
			select {
			case <-s.wake:
				continue
			case <-s.stop:
				return
			}
		}
		select {
		case s.events <- ev:
			if s.turnID != "" && ev.Method == NotifyTurnCompleted && ev.TurnID == s.turnID {
				s.end(nil)
				return
			}
		case <-s.stop:
			return
		}
	}
}

// drained reports whether nothing deliverable is left: the queue is empty, or delivery never armed.
func (s *Subscription) drained() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) == 0 || !s.armed
}
