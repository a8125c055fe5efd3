package agenthost

// This file starts turns: prompts, steers and compactions. The session's goroutine decides what a
// request becomes (a new turn, a steer, a wait); the caller's goroutine does the talking to codex
// and reports the outcome back.

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoTurn is returned when an operation needs a running turn and there is none.
var ErrNoTurn = errors.New("no turn is running in this folder")

// ErrBusy is returned when an operation needs the session idle and a turn runs.
var ErrBusy = errors.New("a turn is running in this folder: stop it first")

// runPlan is what the session's goroutine made of a prompt.
type runPlan int

const (
	planStart     runPlan = iota // a new turn was registered: start it in codex
	planStarted                  // a new turn runs already (on a chat fallback)
	planSteer                    // a turn runs: add the input to it
	planWaitStart                // a turn is being started: steer it once it has
	planPreempt                  // an automatic review runs: stop it, then start the turn
)

// plannedRun is what the session's goroutine made of a prompt (planRun).
type plannedRun struct {
	plan   runPlan
	t      *turn       // the turn the prompt starts, steers or waits for
	runner *turnRunner // a new turn's runner part (planStart), for the caller to start and hand to begin
	at     attempt     // where the turn to steer runs (planSteer)
	view   threadView  // the session's thread, for starting a new turn
}

// Run starts a turn with in and returns once codex has started it: the Turn knows its ids. If a turn
// is already running, the input steers it (codex adds it to the running turn) and the returned Turn
// says Steered; two prompts arriving together become one turn and a steer.
func (s *Session) Run(ctx context.Context, in Input) (*Turn, error) {
	if in.Prompt == "" {
		return nil, errors.New("empty prompt: say what the agent should do")
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	for {
		p, err := s.planRun(in)
		if err != nil {
			return nil, err
		}
		switch p.plan {
		case planStarted:
			return &Turn{t: p.t}, nil
		case planStart:
			ts := p.runner
			a, fresh, err := s.startCodexTurn(ctx, ts.input, p.view)
			if err != nil {
				s.abandon(ts.turn)
				return nil, err
			}
			ts.cur, ts.newThread = a, fresh
			s.begin(ts)
			return &Turn{t: p.t}, nil
		case planPreempt:
			if err := waitFor(ctx, p.t.startedCh, "the review being started did not start"); err != nil {
				return nil, err
			}
			_ = p.t.interrupt(ctx, "a prompt came")
			if err := waitFor(ctx, p.t.done, "the automatic review did not stop"); err != nil {
				return nil, err
			}
		case planWaitStart:
			if err := waitFor(ctx, p.t.startedCh, "the turn being started did not start"); err != nil {
				return nil, err
			}
		case planSteer:
			err := p.t.steer(ctx, p.at, in)
			if !errors.Is(err, errTurnOver) {
				if err != nil {
					return nil, err
				}
				return &Turn{t: p.t, steered: true}, nil
			}
			// The turn ended while we asked: start a new one once its runner has finished it.
			if err := waitFor(ctx, p.t.done, "the running turn did not finish"); err != nil {
				return nil, err
			}
		}
	}
}

// waitFor waits until ch is closed or ctx ends.
func waitFor(ctx context.Context, ch <-chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Compact asks codex to compact the thread's context. Codex runs it as a turn of its own, returned
// like any other; the session's compaction count goes up when it is done.
func (s *Session) Compact(ctx context.Context) (*Turn, error) {
	ts, err := s.registerIfIdle(turnSpec{compaction: true})
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	client, threadID, fresh, err := s.prepare(ctx, nil)
	if err != nil {
		s.abandon(ts.turn)
		return nil, err
	}
	sub := client.Subscribe(threadID)
	if err := client.CompactThread(ctx, threadID); err != nil {
		sub.Close()
		s.retireIfSilent(ctx, client)
		s.abandon(ts.turn)
		return nil, fmt.Errorf("compact: %w", err)
	}
	ts.cur, ts.newThread = attempt{client: client, threadID: threadID, sub: sub}, fresh
	s.begin(ts)
	return &Turn{t: ts.turn}, nil
}

// errSilent is why a call that starts, steers or compacts a turn gave up: codex answered nothing
// within the turn timeout.
var errSilent = errors.New("codex did not answer")

// bounded bounds the calls to codex that start, steer or compact a turn by the turn timeout, so that
// a codex that stops answering fails the request in time instead of holding it (and the editor's
// command) forever, and ends them when the host closes (Close waits for a turn being started).
func (s *Session) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	d := s.h.config().TurnTimeout
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, d, fmt.Errorf("%w within %v (the turn timeout); it was restarted", errSilent, d))
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.h.closed, func() { cancel(errStopped) })
	return ctx, func() {
		stop()
		cancel(nil)
		cancelTimeout()
	}
}

// retireIfSilent retires client when ctx (from bounded) ended because codex did not answer in time:
// the next turn then starts a new codex instead of waiting on this one again.
func (s *Session) retireIfSilent(ctx context.Context, client Agent) {
	if client != nil && errors.Is(context.Cause(ctx), errSilent) {
		s.h.retire(client, "codex did not answer within the turn timeout")
	}
}
