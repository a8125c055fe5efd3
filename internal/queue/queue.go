// Package queue is an unbounded FIFO in front of a channel: a producer that must never block (a
// connection's read goroutine, a turn's runner) pushes, and a consumer receives from Out at its own
// pace. Nothing pushed is dropped until the queue is abandoned.
package queue

import "sync"

// Unbounded is an unbounded FIFO delivered on a channel. Its Run method does the delivering, on a
// goroutine its owner starts and waits for. The zero value is not usable: use New.
type Unbounded[T any] struct {
	out  chan T
	wake chan struct{} // signalled when items or closed change
	stop chan struct{} // closed by Abandon
	once sync.Once

	mu     sync.Mutex
	items  []T
	closed bool
}

// New returns an empty queue.
func New[T any]() *Unbounded[T] {
	return &Unbounded[T]{out: make(chan T), wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Out is where the items arrive, in the order they were pushed. It is closed once the queue was
// closed and drained, or abandoned.
func (q *Unbounded[T]) Out() <-chan T { return q.out }

// Push adds v at the end. It never blocks; after Close it does nothing and reports false.
func (q *Unbounded[T]) Push(v T) bool {
	q.mu.Lock()
	ok := !q.closed
	if ok {
		q.items = append(q.items, v)
	}
	q.mu.Unlock()
	q.signal()
	return ok
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
func (q *Unbounded[T]) Run() {
	defer close(q.out)
	for {
		v, ok, closed := q.next()
		if !ok {
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
		case q.out <- v:
		case <-q.stop:
			return
		}
	}
}

// next takes the first item, if any, and says whether the queue is closed.
func (q *Unbounded[T]) next() (v T, ok, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) > 0 {
		v, q.items = q.items[0], q.items[1:]
		ok = true
		if len(q.items) == 0 {
			q.items = nil // let the backing array go
		}
	}
	return v, ok, q.closed
}
