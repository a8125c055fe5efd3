package agenthost

import "sync"

// eventQueue is an unbounded queue in front of a channel: the host never blocks on a slow reader of
// a turn's events, and no event is dropped. pump moves events to the channel and closes it after
// close; it runs on a goroutine owned by the host.
type eventQueue struct {
	out chan Event

	mu     sync.Mutex
	items  []Event
	closed bool
	wake   chan struct{}
	stop   chan struct{} // abandon: the host is shutting down and nobody may be reading
	once   sync.Once
}

func newEventQueue() *eventQueue {
	return &eventQueue{out: make(chan Event), wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

func (q *eventQueue) push(ev Event) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, ev)
	}
	q.mu.Unlock()
	q.signal()
}

// close says no more events will come; the channel closes once the queue is drained.
func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// abandon stops delivery at once.
func (q *eventQueue) abandon() { q.once.Do(func() { close(q.stop) }) }

func (q *eventQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) pump() {
	defer close(q.out)
	for {
		q.mu.Lock()
		var (
			ev     Event
			have   = len(q.items) > 0
			closed = q.closed
		)
		if have {
			ev, q.items = q.items[0], q.items[1:]
			if len(q.items) == 0 {
				q.items = nil
			}
		}
		q.mu.Unlock()
		if !have {
			if closed {
				return
			}
			select {
			case <-q.wake:
				continue
			case <-q.stop:
				return
			}
		}
		select {
		case q.out <- ev:
		case <-q.stop:
			return
		}
	}
}
