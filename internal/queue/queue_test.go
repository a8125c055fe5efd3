package queue_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-lsp/hermes-lsp/internal/queue"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// run starts q's delivery and returns a channel closed when Run has returned.
func run[T any](q *queue.Unbounded[T]) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.Run()
	}()
	return done
}

func TestOrderAndCloseDrains(t *testing.T) {
	q := queue.New[int]()
	const n = 10000
	for i := range n { // far more than any channel buffer: pushing never blocks
		if !q.Push(i) {
			t.Fatalf("push %d refused before Close", i)
		}
	}
	q.Close()
	if q.Push(-1) {
		t.Error("push after Close accepted")
	}
	done := run(q)
	want := 0
	for v := range q.Out() {
		if v != want {
			t.Fatalf("got %d, want %d", v, want)
		}
		want++
	}
	if want != n {
		t.Errorf("received %d items, want %d", want, n)
	}
	<-done
}

func TestPushWhileReceiving(t *testing.T) {
	q := queue.New[string]()
	done := run(q)
	for _, s := range []string{"a", "b", "c"} {
		q.Push(s)
		if got := <-q.Out(); got != s {
			t.Fatalf("got %q, want %q", got, s)
		}
	}
	q.Close()
	if _, ok := <-q.Out(); ok {
		t.Error("Out not closed after Close with nothing queued")
	}
	<-done
}

func TestAbandonDropsAndCloses(t *testing.T) {
	q := queue.New[int]()
	done := run(q)
	q.Push(1)
	q.Push(2)
	q.Abandon() // nobody reads: Run must end anyway
	<-done
	for v := range q.Out() {
		t.Errorf("delivered %d after Abandon", v) // Out is closed; nothing may be left
	}
	q.Abandon() // twice is fine
}

func TestWaitRoom(t *testing.T) {
	q := queue.New[int]()
	done := run(q)
	for i := range 300 {
		q.Push(i)
	}
	if !q.WaitRoom(500, nil, nil) {
		t.Error("WaitRoom(500) with 300 queued: no room")
	}
	expired := make(chan time.Time)
	close(expired)
	if q.WaitRoom(100, nil, expired) {
		t.Error("WaitRoom(100) with 300 queued and nobody receiving reported room")
	}
	got := make(chan bool)
	go func() { got <- q.WaitRoom(100, nil, nil) }()
	for range 200 {
		<-q.Out()
	}
	if !<-got {
		t.Error("WaitRoom(100) did not report room once 100 were left")
	}
	go func() { got <- q.WaitRoom(0, nil, nil) }()
	q.Abandon()
	if <-got {
		t.Error("WaitRoom on an abandoned queue reported room")
	}
	<-done
}

// TestRunAgainAfterEnd calls Run on a queue whose delivery already ended: it returns at once (a
// second Run used to close Out twice and panic, which a caller that recovers panics saw as a
// delivery that never ended).
func TestRunAgainAfterEnd(t *testing.T) {
	q := queue.New[int]()
	q.Push(1)
	q.Close()
	<-run(q)
	<-run(q)
	if got := <-q.Out(); got != 1 {
		t.Errorf("got %d, want 1", got)
	}
	if _, ok := <-q.Out(); ok {
		t.Error("Out not closed")
	}
}
