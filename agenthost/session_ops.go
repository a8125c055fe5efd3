package agenthost

// This file holds the session's requests about its turns: interrupt, new thread, resolving
// approvals, and accounting for a finished turn.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// Interrupt stops the running turn. Its result is partial.
func (s *Session) Interrupt(ctx context.Context) error {
	cur, err := s.currentTurn()
	if err != nil {
		return err
	}
	if cur == nil {
		return ErrNoTurn
	}
	return cur.interrupt(ctx, "interrupted by the user")
}

// NewThread makes the next turn start a new thread (the current one stays in codex's history).
func (s *Session) NewThread() error {
	if err := s.forgetThread(); err != nil {
		return err
	}
	s.flush()
	return nil
}

// Resolve answers a pending approval (from a code action or a command, for example), whichever way
// it is also being asked.
func (s *Session) Resolve(approvalID string, r Reply) error {
	return s.resolve(approvalID, r)
}

// Resolve answers a pending approval of any session.
func (h *Host) Resolve(approvalID string, r Reply) error {
	for _, s := range h.Sessions() {
		if err := s.Resolve(approvalID, r); !errors.Is(err, ErrNoApproval) {
			return err
		}
	}
	return fmt.Errorf("%w: %s (it may have been answered, or its turn ended)", ErrNoApproval, approvalID)
}

// turnFor returns the running turn's session part if it is codex turn turnID (or either id is not
// known). On the session's goroutine.
func (st *sessionState) turnFor(turnID string) *turnSession {
	// While turn/start has not been answered the running turn's id is unknown, yet codex may already
	// send its items and approvals (they race the answer): they can only be that turn's, since
	// codex runs one turn per thread at a time.
	if current := st.current; current == nil || (turnID != "" && current.where().turnID != "" && current.where().turnID != turnID) {
		return nil
	}
	return st.current
}

// turnEnd is what a finished turn adds to its session.
type turnEnd struct {
	res        *hermesproto.Result
	usage      hermesproto.Usage
	total      *codex.TokenUsage // codex's running total of the thread at the turn's end; nil: none
	iterations int
	// awaitingUsage says the turn compacted the context and no usage came after: the last prompt is
	// unknown (context % 0) until the next update.
	awaitingUsage bool
	compacted     bool            // the turn compacted the thread's context
	check         compactionCheck // the context's size around it, for the compaction verdicts
}

// historyKept is how many of the session's last projected messages a chat fallback gets as the
// conversation so far (it keeps up to twice that between cuts).
const historyKept = 400

// account adds a finished turn to the session's totals and history (endTurn). On the session's
// goroutine.
func (s *Session) account(st *sessionState, e turnEnd) {
	added := e.usage // a chat fallback's usage is the turn's own: no thread total
	if e.total != nil {
		added = st.turnTotal(*e.total, e.usage)
	}
	st.last = e.res
	st.turns++
	st.toolIters += e.iterations
	st.totals = st.totals.Add(added)
	if e.awaitingUsage {
		st.totals.LastPrompt = 0
	}
	st.judgeCompactions(e.compacted, e.check)
	st.history = append(st.history, e.res.Messages...)
	if len(st.history) > 2*historyKept {
		// Cut back to the last historyKept only once twice that has gathered: a copy per turn of a
		// full history was most of a short turn's allocation.
		st.history = slices.Clone(st.history[len(st.history)-historyKept:])
	}
	s.save(st)
}
