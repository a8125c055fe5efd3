package agenthost

// This file holds the turn's runner: the goroutine that drives a turn to its end.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/stackhint"
)

// run drives the turn to its end: it applies codex's notifications, enforces the deadline, retires
// codex when the turn shows it is broken, retries on a fallback provider, and finishes the result.
func (ts *turnState) run() {
	stackhint.Grow() // decoding, the transcript's JSON, the session's calls: deep calls ahead
	h := ts.s.h
	cfg := h.config()
	deadline := newTurnDeadline(h)
	defer deadline.stop()
	ts.live.setThread(ts.cur.threadID)
	ts.live.turnID = ts.cur.turnID
	// The transcript shows the turn from its start: drive writes its first rows once it has applied
	// what codex sent already (the first update goes out before the disk is touched).

	ts.drive(deadline)
	retire, why := ts.assess()
	if client := ts.cur.client; retire && client != nil {
		h.retire(client, why) // a no-op when the watcher already retired a dead codex
	}
	retired := retire
	if fb, ok := ts.fallbackFor(cfg); ok && !ts.review {
		// A responses fallback runs on a codex of its own: whether codex is retired at the end is
		// that attempt's to say. A chat fallback leaves the retired codex as it was.
		if fellBack := ts.runFallback(cfg, fb, deadline); fb.Kind == FallbackResponses {
			retired = fellBack
		}
	}
	ts.finish(retired)
	if client, threadID, title := ts.cur.client, ts.cur.threadID, ts.nameAs; title != "" && client != nil && !retired {
		// Beside the session: the turn's end is not held by it (nor by a codex that stalls).
		ts.s.wg.Go(func() {
			ctx, cancel := context.WithTimeout(ts.s.h.closed, 5*time.Second)
			defer cancel()
			ts.s.nameThread(ctx, client, threadID, title)
		})
	}
}

// turnDeadline is when a running turn times out: the turn timeout after its runner began, with the
// timeout in force now, so that a timeout changed while the turn runs applies to it. Runner only.
type turnDeadline struct {
	h        *Host
	from     time.Time
	timer    *time.Timer
	replaced <-chan struct{} // closed when the configuration the timer follows is replaced
}

func newTurnDeadline(h *Host) *turnDeadline {
	cfg, replaced := h.configNow()
	return &turnDeadline{h: h, from: time.Now(), timer: time.NewTimer(cfg.TurnTimeout), replaced: replaced}
}

// follow sets the timer by the configuration in force now; called once replaced is closed.
func (d *turnDeadline) follow() {
	var cfg Config
	cfg, d.replaced = d.h.configNow()
	d.timer.Reset(time.Until(d.from.Add(cfg.TurnTimeout)))
}

func (d *turnDeadline) stop() { d.timer.Stop() }

// drive applies notifications until the turn completes, codex goes away, the deadline passes, or
// the host closes.
func (ts *turnState) drive(d *turnDeadline) {
	deadline := d.timer.C
	sub := ts.cur.sub
	defer sub.Close()
	closing := ts.s.h.closing
	// Codex acknowledges an interrupt that arrives before the turn's first model request and then
	// runs the turn anyway: until the turn ends, the interrupt is sent again now and then.
	interrupted := ts.interrupted
	var again <-chan time.Time
	resends := 0
	for {
		if len(sub.Events()) == 0 {
			ts.live.flush() // codex has nothing more for now: the transcript shows the turn so far
		}
		select {
		case <-interrupted:
			interrupted = nil
			again = time.After(interruptResend)
		case <-again:
			again = nil
			if resends < 10 {
				resends++
				ts.resendInterrupt()
				again = time.After(interruptResend)
			}
		case ev, ok := <-sub.Events():
			if !ok {
				ts.failure = sub.Err()
				if ts.failure == nil {
					ts.failure = errors.New("the turn's event stream ended early")
				}
				ts.failure = ts.withStderr(ts.failure)
				ts.closeOpen("codex stopped")
				return
			}
			if ts.apply(ev) {
				return
			}
		case <-d.replaced:
			d.follow()
		case <-deadline:
			deadline = nil
			ts.stopAndWait(sub, fmt.Sprintf("turn timed out after %v", ts.s.h.config().TurnTimeout))
			return
		case <-closing:
			closing = nil
			ts.stopAndWait(sub, "hermes-lsp is shutting down")
			return
		}
	}
}

// interruptResend is how long an interrupted turn may run on before the interrupt is sent again.
const interruptResend = 500 * time.Millisecond

func (ts *turnState) resendInterrupt() {
	a := ts.cur
	if a.client == nil || a.turnID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = a.client.InterruptTurn(ctx, a.threadID, a.turnID) // an error means it is over: the events will say
}

// withStderr adds the last lines codex wrote on stderr to err, the failure of a turn whose codex
// went away, unless err carries them already (an *codex.ExitError does).
func (ts *turnState) withStderr(err error) error {
	client := ts.cur.client
	var exit *codex.ExitError
	if client == nil || errors.As(err, &exit) {
		return err
	}
	tail := strings.TrimSpace(client.StderrTail(20))
	if tail == "" {
		return err
	}
	return fmt.Errorf("%w\ncodex's last output:\n%s", err, tail)
}

// stopAndWait interrupts the turn and gives codex a moment to confirm, keeping what arrives.
func (ts *turnState) stopAndWait(sub *codex.Subscription, reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = ts.interrupt(ctx, reason)
	ts.stopReason = reason // the deadline or shutdown is the reason, even after a user's stop
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				ts.closeOpen(reason)
				return
			}
			if ts.apply(ev) {
				return
			}
		case <-ctx.Done():
			ts.failure = errors.New(reason + "; codex did not confirm the interrupt")
			ts.closeOpen(reason)
			return
		}
	}
}
