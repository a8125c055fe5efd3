package acpagent

// This file is the stream of codex events a turn (or a subscription to a session) is read
// through: an unbounded queue, so that the agent's updates never wait for the host.

import (
	"sync"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/queue"
)

// stream is an agenthost.Stream. Events are pushed under the session's lock, in the order they
// were made; its queue is delivered by a goroutine of the Agent's (Agent.wg), which returns once
// the stream is ended or closed.
type stream struct {
	q       *queue.Unbounded[codex.Event]
	onClose func(*stream) // forgets a subscription; nil for a turn's stream

	mu    sync.Mutex
	over  bool  // turn/completed was queued
	ended bool  // nothing more will be queued
	err   error // why it ended early: the agent's end

	once sync.Once
}

// newStream returns a stream whose queue a goroutine of a's delivers; nil once a is closed.
func (a *Agent) newStream(onClose func(*stream)) *stream {
	s := &stream{q: queue.New[codex.Event](), onClose: onClose}
	if !a.spawn(s.q.Run) {
		return nil
	}
	return s
}

func (s *stream) Events() <-chan codex.Event { return s.q.Out() }

func (s *stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *stream) TurnCompleted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.over
}

// Close drops what is queued and ends Events.
func (s *stream) Close() {
	s.once.Do(func() {
		s.q.Abandon()
		if s.onClose != nil {
			s.onClose(s)
		}
	})
}

// push queues ev; turn/completed ends a turn's stream.
func (s *stream) push(ev codex.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.q.Push(ev)
	if ev.Method == codex.NotifyTurnCompleted && s.onClose == nil {
		s.over, s.ended = true, true
		s.q.Close()
	}
}

// end says nothing more will come, err why (nil for a normal end); what is queued is still
// delivered.
func (s *stream) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.err = true, err
	s.q.Close()
}

// endedStream is the stream of a subscription that ended before it began: the agent was closed,
// or has no such session.
type endedStream struct {
	events chan codex.Event
	err    error
}

func newEndedStream(err error) *endedStream {
	s := &endedStream{events: make(chan codex.Event), err: err}
	close(s.events)
	return s
}

func (s *endedStream) Events() <-chan codex.Event { return s.events }
func (s *endedStream) Err() error                 { return s.err }
func (s *endedStream) TurnCompleted() bool        { return false }
func (s *endedStream) Close()                     {}
