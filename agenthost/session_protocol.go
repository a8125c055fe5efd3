package agenthost

// This file is the session's protocol: every operation its goroutine (loop) performs, but the
// fallback chain's (session_fallback.go) and the changes under review's (session_changes.go). Each is a method that runs its body on the loop
// (Session.call) and returns once it has; with the helpers they call (sessionState's and
// turnSession's methods, Session.start and pump), the only code that touches the session's state.
// No body blocks or does I/O: whatever waits (on codex, on a person, on the disk) happens on the
// caller's goroutine, before or after.

import (
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// The session's settings and state.

// SetYolo turns the session's auto-approval on or off, from the next request on.
func (s *Session) SetYolo(on bool) {
	_ = s.call(func(st *sessionState) { st.yolo = on })
}

// Yolo reports whether the session auto-approves.
func (s *Session) Yolo() bool {
	var on bool
	_ = s.call(func(st *sessionState) { on = st.yolo })
	return on
}

// setModel sets the model and reasoning effort of the folder's next turns, staged for the state file.
func (s *Session) setModel(model, effort string) error {
	return s.call(func(st *sessionState) {
		st.model, st.effort = model, effort
		s.save(st)
	})
}

// running reports whether a turn runs (or is being started).
func (s *Session) running() bool {
	var running bool
	_ = s.call(func(st *sessionState) { running = st.current != nil })
	return running
}

// end makes the session take no new turns; its goroutine ends once the running turn has.
func (s *Session) end() {
	_ = s.call(func(st *sessionState) { st.ending = true })
}

// status fills out with the session's state.
func (s *Session) status(cfg Config, out *Status) {
	_ = s.call(func(ss *sessionState) {
		out.ThreadID = ss.threadID
		out.Usage, out.Turns, out.ToolIterations = ss.totals, ss.turns, ss.toolIters
		out.Compactions, out.IneffectiveCompactions = ss.compactions, ss.ineffective
		out.Yolo, out.AutoApprove = ss.yolo, autoApprove(cfg, ss.yolo)
		out.Model, out.Effort = ss.model, ss.effort
		if ss.fallback != nil {
			out.Fallback = ss.fallback.Name
		}
		switch {
		case ss.current != nil:
			out.Turn = &hermesproto.TurnState{ID: ss.current.where().turnID, State: StatusRunning}
			if u := ss.current.lastUsage.Load(); u != nil && u.ContextWindow != 0 {
				out.Usage.ContextWindow, out.Usage.LastPrompt = u.ContextWindow, u.LastPrompt
			}
		case ss.last != nil:
			out.Turn = &hermesproto.TurnState{ID: ss.last.TurnID, State: ss.last.Status}
		}
		for _, p := range ss.pending {
			out.PendingApprovals = append(out.PendingApprovals, p.approval)
		}
	})
}

// The session's thread.

// threadView reads what starting a turn needs of the session's thread.
func (s *Session) threadView() (threadView, error) {
	var view threadView
	err := s.call(func(st *sessionState) { view = st.threadView() })
	return view, err
}

// thread returns the session's thread, and whether a turn runs.
func (s *Session) thread() (threadID string, busy bool, err error) {
	err = s.call(func(st *sessionState) { threadID, busy = st.threadID, st.current != nil })
	return threadID, busy, err
}

// recordThread records that threadID is loaded in codex generation gen (started: codex started it
// for the session, and its first turn names it); a new thread is staged for the state file.
func (s *Session) recordThread(threadID string, gen int, started bool) (changed bool) {
	_ = s.call(func(st *sessionState) {
		if started {
			st.unnamed = threadID
		}
		changed = st.threadID != threadID
		st.threadID, st.loadedGen = threadID, gen
		if changed {
			st.threadTotal = &codex.TokenUsage{} // a new thread counts from zero
			st.forgetCompactions()
			s.save(st)
		}
	})
	return changed
}

// useThread makes threadID the session's thread (resumed by the next turn) unless a turn runs.
func (s *Session) useThread(threadID string) (busy bool, err error) {
	err = s.call(func(st *sessionState) {
		if st.current != nil {
			busy = true
			return
		}
		if st.threadID == threadID {
			return
		}
		st.threadID, st.loadedGen = threadID, 0
		st.forgetCompactions()
		st.threadTotal = nil // unknown until codex reports it: the next turn counts its own usage
		st.history = nil
		s.save(st)
	})
	return busy, err
}

// forgetThread makes the next turn start a new thread, unless a turn runs (ErrBusy).
func (s *Session) forgetThread() error {
	var err error
	if cerr := s.call(func(st *sessionState) {
		if st.current != nil {
			err = ErrBusy
			return
		}
		st.threadID, st.loadedGen = "", 0
		st.forgetCompactions()
		st.history = nil
		s.save(st)
	}); cerr != nil {
		return cerr
	}
	return err
}

// Starting turns.

// planRun decides what a prompt becomes. A new turn is registered at once, so that a second prompt
// steers it; on a chat fallback the session is on, it is begun too (planStarted).
func (s *Session) planRun(in Input) (plannedRun, error) {
	var (
		p   plannedRun
		err error
	)
	if cerr := s.call(func(st *sessionState) {
		switch cur := st.current; {
		case st.ending:
			err = errStopped
		case cur != nil && cur.review && cur.yields:
			p.plan, p.t = planPreempt, cur.turn
		case cur != nil && cur.review:
			err = ErrReviewRunning
		case cur != nil && !closed(cur.startedCh):
			p.plan, p.t = planWaitStart, cur.turn
		case cur != nil:
			p.plan, p.t, p.at = planSteer, cur.turn, cur.where()
		default:
			in.notes = s.takeNotes(st, st.threadID) // the reverts since the thread's last turn
			ts := s.newTurn(st, turnSpec{input: in})
			st.current = &turnSession{turn: ts.turn}
			p.plan, p.t, p.runner = planStart, ts.turn, ts
			if fb := s.fallbackNow(st); fb != nil {
				// The primary is cooling down: the turn runs on a fallback, and its result says so.
				ts.onFallback(*fb)
				if fb.Kind == FallbackChat {
					// Codex is not involved: the turn runs at once, on the chat fallback alone.
					ts.cur = attempt{threadID: st.threadID, turnID: "fallback-" + newID()}
					s.start(st, st.current, ts.cur)
					s.wg.Go(func() { ts.runChatOnly(*fb) })
					p.plan, p.runner = planStarted, nil
				}
			}
		}
		p.view = st.threadView() // read now: starting the turn needs no other hop before begin
	}); cerr != nil {
		return plannedRun{}, cerr
	}
	return p, err
}

// registerIfIdle registers a new turn of spec when no turn runs (else ErrBusy): for turns a prompt
// does not start (a compaction, a review). It returns the turn's runner part.
func (s *Session) registerIfIdle(spec turnSpec) (*turnRunner, error) {
	var (
		ts  *turnRunner
		err error
	)
	if cerr := s.call(func(st *sessionState) {
		switch {
		case st.ending:
			err = errStopped
		case st.current != nil:
			err = ErrBusy
		default:
			ts = s.newTurn(st, spec)
			st.current = &turnSession{turn: ts.turn}
		}
	}); cerr != nil {
		return nil, cerr
	}
	return ts, err
}

// abandon forgets t, a registered turn codex did not start.
func (s *Session) abandon(t *turn) {
	_ = s.call(func(st *sessionState) {
		if st.turnOf(t) != nil {
			st.current = nil
			s.giveBackNotes(st, t.input.notes)
		}
		close(t.startedCh)
	})
}

// begin starts the runner of ts, a registered turn codex has started (ts.cur says where): from here
// on the turn's callers know where it runs and may read its events. The runner's part is handed
// over: its starter waits here, and touches it no more.
func (s *Session) begin(ts *turnRunner) {
	_ = s.call(func(st *sessionState) {
		nameAs := st.claimName(ts.turn, ts.cur.threadID)
		lent := st.transcripts // the turn keeps them open while it runs, and gives them back (endTurn)
		st.transcripts = transcriptFiles{}
		s.start(st, st.turnOf(ts.turn), ts.cur)
		s.wg.Go(func() { ts.run(lent, nameAs) })
	})
}

// deliverLate delivers the events of a turn that ended before anyone asked for them (turnEvents.ask).
func (s *Session) deliverLate(q *eventQueue) error {
	return s.call(func(st *sessionState) { s.pump(st, q, q.Run) })
}

// Requests about the running turn.

// currentTurn returns the turn registered to run, or nil.
func (s *Session) currentTurn() (*turn, error) {
	var t *turn
	err := s.call(func(st *sessionState) {
		if st.current != nil {
			t = st.current.turn
		}
	})
	return t, err
}

// interruptTurn records that t is to stop, and why (the first reason given stands); the runner sees
// interrupted.
func (s *Session) interruptTurn(t *turn, reason string) {
	_ = s.call(func(st *sessionState) {
		if ts := st.turnOf(t); ts != nil && ts.interruptReason == "" {
			ts.interruptReason = reason
			close(ts.interrupted)
		}
	})
}

// steerBegun records a steer of t that codex has not answered yet: answered closes when it has.
func (s *Session) steerBegun(t *turn, answered chan struct{}) {
	_ = s.call(func(st *sessionState) {
		if ts := st.turnOf(t); ts != nil {
			if ts.steering == nil {
				ts.steering = make(map[chan struct{}]bool)
			}
			ts.steering[answered] = true
		}
	})
}

// steerAnswered records codex's answer to a steer of t: took says it took prompt into the turn.
func (s *Session) steerAnswered(t *turn, answered chan struct{}, prompt string, took bool) {
	_ = s.call(func(st *sessionState) {
		ts := st.turnOf(t)
		if ts == nil {
			return
		}
		delete(ts.steering, answered)
		if took {
			ts.steeredIn = append(ts.steeredIn, prompt)
			ts.emitShared(hermesproto.Event{Kind: hermesproto.EventKindSteered, Text: prompt})
		}
	})
}

// Approvals and patches.

// askApproval settles a at once when it is auto-approved, or nobody can be asked; else it makes it
// pending, answered through p, and tells the editor. It returns a, with its decision when settled.
func (s *Session) askApproval(a hermesproto.Approval, cfg Config, p *pendingApproval) (hermesproto.Approval, error) {
	err := s.call(func(st *sessionState) {
		if a.Kind == hermesproto.ApprovalKindPatch {
			a.Changes = st.fileChanges[a.ItemID]
			a.Summary = patchSummary(a.Changes, a.GrantRoot, s.folder)
		}
		switch auto := autoApprove(cfg, st.yolo); {
		case auto.Effective && autoApprovable(a):
			// Auto-approval is never silent: the editor shows each one as it happens.
			a.Decision, a.DecidedBy, a.AutoSource = hermesproto.DecisionOnce, "policy", auto.Source
			st.settle(a)
		case cfg.Approver == nil:
			// Nobody can be asked: fail closed at once rather than after the approval timeout.
			a.Decision, a.DecidedBy = hermesproto.DecisionDeny, "no approver"
			st.settle(a)
		default:
			p.approval = a
			st.pending[a.ID] = p
			if ts := st.turnFor(a.TurnID); ts != nil {
				waiting := a // a is decided by the caller, after the event has gone out
				ts.emitShared(hermesproto.Event{Kind: hermesproto.EventKindApprovalWaiting, Approval: &waiting})
			}
		}
	})
	return a, err
}

// settleApproval records the decision on a pending approval.
func (s *Session) settleApproval(a hermesproto.Approval) error {
	return s.call(func(st *sessionState) {
		delete(st.pending, a.ID)
		st.settle(a)
	})
}

// resolve answers a pending approval, whichever way it is also being asked. Answers that do not fit
// its questions are refused, and the approval stays pending.
func (s *Session) resolve(approvalID string, r Reply) error {
	err := fmt.Errorf("%w: %s (it may have been answered, or its turn ended)", ErrNoApproval, approvalID)
	_ = s.call(func(st *sessionState) {
		p, ok := st.pending[approvalID]
		if !ok {
			return
		}
		if err = checkReply(p.approval, r); err != nil {
			return
		}
		select {
		case p.answer <- r:
			err = nil
		default:
			err = fmt.Errorf("%w: %s was already answered", ErrNoApproval, approvalID)
		}
	})
	return err
}

// noteFileChange keeps what a fileChange item of turn turnID changes: changes, when it starts, for
// its approval; images, the files as they are now, in the turn's checkpoint.
func (s *Session) noteFileChange(turnID, itemID string, completed bool, changes []hermesproto.FileChange, images map[string]FileImage) {
	_ = s.call(func(st *sessionState) {
		if ts := st.turnFor(turnID); ts != nil && images != nil {
			if completed {
				ts.after(images)
				ts.keepPatched(itemID, images)
			} else {
				ts.before(images)
			}
		}
		if completed {
			delete(st.fileChanges, itemID)
			return
		}
		if len(st.fileChanges) > 256 {
			clear(st.fileChanges) // approvals come right after their item: old entries are dead
		}
		st.fileChanges[itemID] = changes
	})
}

// The runner's questions and reports. While the runner runs its turn is the session's (current).

// turnMoved records that t runs at a now (a fallback attempt, or a compaction turn's id); it returns
// the title the thread gets when t is the first turn of a thread codex started for it.
func (s *Session) turnMoved(t *turn, a attempt) (nameAs string) {
	_ = s.call(func(st *sessionState) {
		nameAs = st.claimName(t, a.threadID)
		if ts := st.turnOf(t); ts != nil {
			ts.setAttempt(a)
		}
	})
	return nameAs
}

// steersPending returns the steers of t codex has not answered yet.
func (s *Session) steersPending(t *turn) []chan struct{} {
	var pending []chan struct{}
	_ = s.call(func(st *sessionState) {
		if ts := st.turnOf(t); ts != nil {
			for ch := range ts.steering {
				pending = append(pending, ch)
			}
		}
	})
	return pending
}

// takeSteeredIn returns the input codex took into t since the last call.
func (s *Session) takeSteeredIn(t *turn) []string {
	var in []string
	_ = s.call(func(st *sessionState) {
		if ts := st.turnOf(t); ts != nil {
			in, ts.steeredIn = ts.steeredIn, nil
		}
	})
	return in
}

// turnApprovals returns a copy of t's settled approvals.
func (s *Session) turnApprovals(t *turn) []hermesproto.Approval {
	var approvals []hermesproto.Approval
	_ = s.call(func(st *sessionState) {
		if ts := st.turnOf(t); ts != nil {
			approvals = append([]hermesproto.Approval(nil), ts.approvals...)
		}
	})
	return approvals
}

// interruptReason returns why t was interrupted, or "".
func (s *Session) interruptReason(t *turn) string {
	var reason string
	_ = s.call(func(st *sessionState) {
		if ts := st.turnOf(t); ts != nil {
			reason = ts.interruptReason
		}
	})
	return reason
}

// turnEnding returns what the end of t reads of the session's part: why it was interrupted (or ""),
// and a copy of its settled approvals.
func (s *Session) turnEnding(t *turn) (reason string, approvals []hermesproto.Approval) {
	_ = s.call(func(st *sessionState) {
		if ts := st.turnOf(t); ts != nil {
			reason, approvals = ts.interruptReason, append([]hermesproto.Approval(nil), ts.approvals...)
		}
	})
	return reason, approvals
}

// endTurn ends t, the session's turn, and accounts for it. kept are the thread's transcripts to keep
// open for the next turn; it returns t's checkpoint, and the transcripts kept before, to be closed.
func (s *Session) endTurn(t *turn, kept transcriptFiles, e turnEnd) (Checkpoint, transcriptFiles) {
	var (
		cp  Checkpoint
		old transcriptFiles
	)
	_ = s.call(func(st *sessionState) {
		old, st.transcripts = st.transcripts, kept
		if ts := st.turnOf(t); ts != nil {
			cp = ts.checkpoint
			st.current = nil
		}
		s.account(st, e)
	})
	return cp, old
}

// countCompaction counts a compaction of the thread's context, and returns the count.
func (s *Session) countCompaction() int {
	var count int
	_ = s.call(func(st *sessionState) {
		st.compactions++
		count = st.compactions
	})
	return count
}
