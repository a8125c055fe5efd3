// Package queue is an unbounded FIFO in front of a channel: a producer that must never block (a
// connection's read goroutine, a turn's runner) pushes, and a consumer receives from Out at its own
// pace. Nothing pushed is dropped until the queue is abandoned.
package queue

import (
	"sync"
	"time"
)

// Unbounded is an unbounded FIFO delivered on a channel. Its Run method does the delivering, on a
// goroutine its owner starts and waits for. The zero value is not usable: use New.
//
// Out is buffered, and Push puts an item straight into it while nothing waits before it: a consumer
// that keeps up receives without the delivering goroutine in between (one goroutine hand-off per
// item rather than two), and a burst is received without a wake-up per item.
type Unbounded[T any] struct {
	out  chan T
	wake chan struct{} // signalled when items or closed change
	stop chan struct{} // closed by Abandon
	once sync.Once

	mu      sync.Mutex
	items   []T // waiting for room in out, oldest first, from items[head]
	head    int
	sending bool // Run took the oldest item and is sending it: a Push must queue behind it
	closed  bool
	running bool          // Run was called: a second call returns at once
	ended   bool          // out is closed: nothing may be sent on it
	room    chan struct{} // closed when at most roomAt items wait (WaitRoom)
	roomAt  int
}

// outBuffer is how many items Out holds before Push queues them for Run. A queue is made per turn
// and per subscription: the buffer is allocated each time (64 events cost a turn 11 KiB more of
// garbage, and a flood no less CPU than 16).
const outBuffer = 16

// New returns an empty queue.
func New[T any]() *Unbounded[T] {
	return &Unbounded[T]{out: make(chan T, outBuffer), wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Out is where the items arrive, in the order they were pushed. It is closed once the queue was
// closed and drained, or abandoned.
func (q *Unbounded[T]) Out() <-chan T { return q.out }

// Push adds v at the end. It never blocks; after Close it does nothing and reports false.
func (q *Unbounded[T]) Push(v T) bool {
	q.mu.Lock()
	if q.closed || q.ended {
		q.mu.Unlock()
		return false
	}
	if len(q.items) == q.head && !q.sending {
		select {
		case q.out <- v: // under the lock: Run closes out under it too
			q.mu.Unlock()
			return true
		default:
		}
	}
	if q.head > 0 && len(q.items) == cap(q.items) && q.head >= len(q.items)/2 {
		// Move the waiting items to the front rather than grow: a burst reuses one array.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.signal()
	return true
}

// Close says nothing more will be pushed: Out closes once what is queued has been received.
func (q *Unbounded[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// Abandon stops delivery at once: what is queued is dropped and Out closes. Use it when nobody may
// be receiving any more.
func (q *Unbounded[T]) Abandon() { q.once.Do(func() { close(q.stop) }) }

func (q *Unbounded[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Run delivers items to Out until the queue is closed and drained, or abandoned; then it closes Out.
// Only the first call delivers: any later one returns at once.
func (q *Unbounded[T]) Run() {
	q.mu.Lock()
	again := q.running
	q.running = true
	q.mu.Unlock()
	if again {
		return
	}
	for {
		v, ok, closed := q.next()
		if !ok {
			if closed {
				q.end(false)
				return
			}
			select {
			case <-q.wake:
				continue
			case <-q.stop:
				q.end(true)
				return
			}
		}
		select {
		case q.out <- v:
			q.mu.Lock()
			q.sending = false
			q.mu.Unlock()
		case <-q.stop:
			q.end(true)
			return
		}
	}
}

// next takes the oldest item, if any, and says whether the queue is closed.
func (q *Unbounded[T]) next() (v T, ok, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head < len(q.items) {
		var zero T
		v, q.items[q.head] = q.items[q.head], zero
		q.head++
		ok, q.sending = true, true
		if q.room != nil && q.waitingLocked() <= q.roomAt {
			close(q.room)
			q.room = nil
		}
		if q.head == len(q.items) {
			q.items, q.head = q.items[:0], 0
			if cap(q.items) > keptCap {
				q.items = nil // let a burst's array go
			}
		}
	}
	return v, ok, q.closed
}

// keptCap is the most items an empty queue keeps room for.
const keptCap = 1024

// end closes Out; abandoned drops what it still holds.
func (q *Unbounded[T]) end(abandoned bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended, q.items, q.head = true, nil, 0
	if q.room != nil {
		close(q.room)
		q.room = nil
	}
	if abandoned {
		for len(q.out) > 0 {
			select {
			case <-q.out:
			default:
			}
		}
	}
	close(q.out)
}

// Len is how many items wait, in the queue and in Out.
func (q *Unbounded[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waitingLocked()
}

func (q *Unbounded[T]) waitingLocked() int {
	n := len(q.items) - q.head + len(q.out)
	if q.sending {
		n++ // the item Run holds
	}
	return n
}

// WaitRoom waits until at most n items wait, and reports whether they do: false when done closed or
// expired fired first, or the queue ended (closed and drained, or abandoned). A producer that can
// afford to wait uses it to hold back while its consumer is far behind. n is at least the size of
// Out's buffer (64): what waits there is received without the queue seeing it.
func (q *Unbounded[T]) WaitRoom(n int, done <-chan struct{}, expired <-chan time.Time) bool {
	n = max(n, outBuffer)
	q.mu.Lock()
	if q.ended {
		q.mu.Unlock()
		return false
	}
	if q.waitingLocked() <= n {
		q.mu.Unlock()
		return true
	}
	if q.room == nil || n < q.roomAt {
		if q.room != nil {
			close(q.room) // the waiters for more room look again
		}
		q.room, q.roomAt = make(chan struct{}), n
	}
	room := q.room
	q.mu.Unlock()
	select {
	case <-room:
		return q.WaitRoom(n, done, expired)
	case <-done:
		return false
	case <-expired:
		return false
	case <-q.stop:
		return false
	}
}
