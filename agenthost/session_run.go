package agenthost

// This file starts turns: prompts, steers and compactions. The session's goroutine decides what a
// request becomes (a new turn, a steer, a wait); the caller's goroutine does the talking to codex
// and reports the outcome back.

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
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

// Run starts a turn with in and returns once codex has started it. If a turn is already running,
// the input steers it (codex adds it to the running turn) and the returned Turn says Steered; two
// prompts arriving together become one turn and a steer.
func (s *Session) Run(ctx context.Context, in Input) (*Turn, error) {
	if in.Prompt == "" {
		return nil, errors.New("empty prompt: say what the agent should do")
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	for {
		var (
			ts   *turnState
			plan runPlan
			snap attempt
			view threadView
			err  error
		)
		if cerr := s.call(func(st *sessionState) {
			ts, plan, snap, err = s.planRun(st, in)
			view = st.threadView() // read now: starting the turn needs no other hop before begin
		}); cerr != nil {
			return nil, cerr
		}
		if err != nil {
			return nil, err
		}
		switch plan {
		case planStarted:
			return &Turn{state: ts}, nil
		case planStart:
			if err := s.startCodexTurn(ctx, ts, view); err != nil {
				s.abandon(ts)
				return nil, err
			}
			s.begin(ts)
			return &Turn{state: ts}, nil
		case planPreempt:
			if err := waitFor(ctx, ts.startedCh, "the review being started did not start"); err != nil {
				return nil, err
			}
			_ = ts.interrupt(ctx, "a prompt came")
			if err := waitFor(ctx, ts.done, "the automatic review did not stop"); err != nil {
				return nil, err
			}
		case planWaitStart:
			if err := waitFor(ctx, ts.startedCh, "the turn being started did not start"); err != nil {
				return nil, err
			}
		case planSteer:
			err := ts.steer(ctx, snap, in)
			if !errors.Is(err, errTurnOver) {
				if err != nil {
					return nil, err
				}
				return &Turn{state: ts, steered: true}, nil
			}
			// The turn ended while we asked: start a new one once its runner has finished it.
			if err := waitFor(ctx, ts.done, "the running turn did not finish"); err != nil {
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

// planRun decides, on the session's goroutine, what a prompt becomes.
func (s *Session) planRun(st *sessionState, in Input) (*turnState, runPlan, attempt, error) {
	if st.ending {
		return nil, 0, attempt{}, errStopped
	}
	if cur := st.current; cur != nil {
		if cur.review && cur.yields {
			return cur, planPreempt, attempt{}, nil
		}
		if cur.review {
			return nil, 0, attempt{}, ErrReviewRunning
		}
		if !closed(cur.startedCh) {
			return cur, planWaitStart, attempt{}, nil
		}
		return cur, planSteer, cur.shared.attempt, nil
	}
	ts := s.newTurnState(in, false)
	s.register(st, ts)
	if fb := s.fallbackNow(st); fb != nil {
		// Still within the fallback's cooldown: the turn runs there, and its result says so.
		ts.fallback = fb.Name
		if fb.Kind == FallbackChat {
			s.beginChat(st, ts, *fb)
			return ts, planStarted, attempt{}, nil
		}
	}
	return ts, planStart, attempt{}, nil
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
	ts, err := s.registerIfIdle(func() *turnState { return s.newTurnState(Input{}, true) })
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	client, threadID, err := s.prepare(ctx, ts, nil)
	if err != nil {
		s.abandon(ts)
		return nil, err
	}
	sub := client.Subscribe(threadID)
	if err := client.CompactThread(ctx, threadID); err != nil {
		sub.Close()
		s.retireIfSilent(ctx, client)
		s.abandon(ts)
		return nil, fmt.Errorf("compact: %w", err)
	}
	ts.cur = attempt{client: client, threadID: threadID, sub: sub}
	s.begin(ts)
	return &Turn{state: ts}, nil
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
func (s *Session) retireIfSilent(ctx context.Context, client *codex.Client) {
	if client != nil && errors.Is(context.Cause(ctx), errSilent) {
		s.h.retire(client, "codex did not answer within the turn timeout")
	}
}

// registerIfIdle registers the turn newTurn makes, when no turn runs (else ErrBusy): for turns a
// prompt does not start (a compaction, a review).
func (s *Session) registerIfIdle(newTurn func() *turnState) (*turnState, error) {
	var (
		ts  *turnState
		err error
	)
	if cerr := s.call(func(st *sessionState) {
		switch {
		case st.ending:
			err = errStopped
		case st.current != nil:
			err = ErrBusy
		default:
			ts = newTurn()
			s.register(st, ts)
		}
	}); cerr != nil {
		return nil, cerr
	}
	return ts, err
}

// register makes ts the session's turn before codex is asked to start it, so that an approval
// codex asks for as soon as the turn runs finds its turn (and waits for begin). Loop only.
func (s *Session) register(st *sessionState, ts *turnState) {
	st.current = ts
}

// abandon undoes register for a turn codex did not start.
func (s *Session) abandon(ts *turnState) {
	_ = s.call(func(st *sessionState) {
		if st.current == ts {
			st.current = nil
		}
		close(ts.startedCh)
	})
}

// begin starts the runner of ts, a registered turn codex has started (ts.cur says where).
func (s *Session) begin(ts *turnState) {
	_ = s.call(func(st *sessionState) {
		ts.nameIfFirst(st)
		ts.live.borrow(&st.transcripts)
		ts.shared.attempt = ts.cur
		ts.emitShared(hermesproto.Event{Kind: hermesproto.EventKindTurnStarted, Text: ts.input.Prompt})
		close(ts.startedCh)
		s.wg.Go(ts.run)
	})
}

// nameIfFirst makes a prompt's turn name its thread when the thread is new (codex started it for
// this session and no turn has named it): once the turn has ended, as codex refuses to name a
// thread whose rollout is still empty. On the session's goroutine.
func (ts *turnState) nameIfFirst(st *sessionState) {
	if !ts.mayName || st.unnamed == "" || st.unnamed != ts.cur.threadID {
		return
	}
	st.unnamed = ""
	ts.nameAs = ts.input.Title
	if ts.nameAs == "" {
		ts.nameAs = ts.input.Prompt
	}
}
