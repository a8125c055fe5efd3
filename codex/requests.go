package codex

// This file is the client's typed requests: threads, turns (start, steer, interrupt), compaction
// and revert, and Call for the others.

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// StartThread starts a new thread.
func (c *Client) StartThread(ctx context.Context, p ThreadStartParams) (*ThreadResult, error) {
	var res ThreadResult
	if err := c.conn.Call(ctx, MethodThreadStart, p, &res); err != nil {
		return nil, c.explain(err)
	}
	return &res, nil
}

// ResumeThread loads a thread recorded earlier (by this process or another) so turns can continue it.
func (c *Client) ResumeThread(ctx context.Context, p ThreadResumeParams) (*ThreadResult, error) {
	var res ThreadResult
	if err := c.conn.Call(ctx, MethodThreadResume, p, &res); err != nil {
		return nil, c.explain(err)
	}
	return &res, nil
}

// StartTurn starts a turn and returns as soon as codex accepted it, with the turn's subscription:
// the notifications of this turn only (and those of its thread that name no turn), ending after
// turn/completed. The caller must Close it when done with it.
func (c *Client) StartTurn(ctx context.Context, p TurnStartParams) (*Turn, *Subscription, error) {
	sub := c.subscribe(p.ThreadID, false)
	var res TurnResult
	if err := c.conn.Call(ctx, MethodTurnStart, p, &res); err != nil {
		sub.Close()
		return nil, nil, c.explain(err)
	}
	if res.Turn.ID == "" {
		sub.Close()
		return nil, nil, fmt.Errorf("%s: codex answered without a turn id", MethodTurnStart)
	}
	sub.arm(res.Turn.ID)
	return &res.Turn, sub, nil
}

// SteerTurn adds input to the running turn expectedTurnID.
func (c *Client) SteerTurn(ctx context.Context, p TurnSteerParams) (string, error) {
	var res TurnSteerResult
	if err := c.conn.Call(ctx, MethodTurnSteer, p, &res); err != nil {
		return "", c.explain(err)
	}
	return res.TurnID, nil
}

// InterruptTimeout is how long codex has to answer one turn/interrupt. Codex up to 0.167.2 never
// answers one for a turn that has just ended (ProblemInterruptUnanswered), so no answer in this time
// means the turn is over.
const InterruptTimeout = 3 * time.Second

// ErrInterruptUnanswered says codex did not answer turn/interrupt within its timeout: the turn
// counts as over.
var ErrInterruptUnanswered = errors.New("codex did not answer the interrupt in time: the turn counts as over")

// InterruptTurn asks codex to stop a turn; the turn ends with turn/completed, status interrupted.
// Each call waits Options.InterruptTimeout at most (InterruptTimeout by default) and then returns an
// error wrapping ErrInterruptUnanswered.
func (c *Client) InterruptTurn(ctx context.Context, threadID, turnID string) error {
	callCtx, cancel := context.WithTimeoutCause(ctx, c.interruptTimeout, ErrInterruptUnanswered)
	defer cancel()
	err := c.conn.Call(callCtx, MethodTurnInterrupt, TurnInterruptParams{ThreadID: threadID, TurnID: turnID}, nil)
	if err == nil || errors.Is(err, ErrInterruptUnanswered) { // the latter wraps the timeout's cause
		return err
	}
	return c.explain(err)
}

// CompactThread starts compaction of a thread's context. Codex runs it as a turn of its own, which
// the thread's subscribers see (a contextCompaction item, then turn/completed).
func (c *Client) CompactThread(ctx context.Context, threadID string) error {
	if err := c.conn.Call(ctx, MethodThreadCompact, ThreadCompactParams{ThreadID: threadID}, nil); err != nil {
		return c.explain(err)
	}
	return nil
}

// RevertThread makes the thread's history forget beforeTurnID and every later turn (thread/revert):
// the model no longer sees them. Files are not touched.
func (c *Client) RevertThread(ctx context.Context, threadID, beforeTurnID string) error {
	if err := c.conn.Call(ctx, MethodThreadRevert, ThreadRevertParams{ThreadID: threadID, BeforeTurnID: beforeTurnID}, nil); err != nil {
		return c.explain(err)
	}
	return nil
}

// Call sends any request, for methods this package has no typed wrapper for.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.explain(c.conn.Call(ctx, method, params, result))
}
