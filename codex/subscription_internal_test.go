package codex

import (
	"testing"
	"time"
)

// fill queues n events on s, as route does without its throttle.
func fill(s *Subscription, n int) {
	for range n {
		s.push(Event{Method: NotifyAgentMessageDelta, TurnID: "turn-1"})
	}
}

// TestThrottleWaitsForTheConsumer: with its consumer far behind, the reader is held until the
// consumer is back to backlogLow.
func TestThrottleWaitsForTheConsumer(t *testing.T) {
	s := newSubscription("thread-1", true, nil)
	go s.pump()
	defer s.Close()
	// Twice the mark: the consumer, started with the reader, cannot catch up before it looks.
	fill(s, 2*backlogHigh)

	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-s.Events():
			case <-stop:
				return
			}
		}
	}()
	s.throttle(nil)
	left := s.queue.Len()
	close(stop)
	// The count is exact but for the event the pump hands over: a margin of a few events.
	if left > backlogLow+4 {
		t.Errorf("the reader went on with %d events queued, want it held until %d", left, backlogLow)
	}
	if s.overflow {
		t.Error("a consumer that caught up marked the subscription overflowing")
	}
}

// TestThrottleGivesUpOnAStuckConsumer: a consumer that does not catch up within backlogWait is not
// waited for again (the subscription grows) until it has.
func TestThrottleGivesUpOnAStuckConsumer(t *testing.T) {
	defer func(d time.Duration) { backlogWait = d }(backlogWait)
	backlogWait = 10 * time.Millisecond
	s := newSubscription("thread-1", true, nil)
	go s.pump()
	defer s.Close()
	fill(s, backlogHigh)

	s.throttle(nil) // nobody reads: it returns once backlogWait has passed
	if !s.overflow {
		t.Fatal("the subscription is not marked overflowing after its consumer did not catch up")
	}
	fill(s, 10)
	backlogWait = time.Hour // waiting again would now hang the test
	s.throttle(nil)
	for range backlogHigh + 10 - backlogLow + 1 { // one more: Len may count the item the pump hands over twice
		<-s.Events()
	}
	s.throttle(nil) // caught up: the mark goes
	if s.overflow {
		t.Error("the overflow mark stayed after the consumer caught up")
	}
}

// TestThrottleEndsWithTheConnectionOrSubscription: a held reader is let go when the connection ends
// or the subscription is closed.
func TestThrottleEndsWithTheConnectionOrSubscription(t *testing.T) {
	s := newSubscription("thread-1", true, nil)
	go s.pump()
	fill(s, backlogHigh)
	done := make(chan struct{})
	close(done)
	s.throttle(done) // the connection has ended: no wait

	released := make(chan struct{})
	go func() {
		defer close(released)
		s.throttle(nil)
	}()
	s.Close()
	<-released
}
