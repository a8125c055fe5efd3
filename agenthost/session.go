package agenthost

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Session is one workspace folder's conversation with codex: a thread whose cwd is the folder, at
// most one running turn, the session's approvals and its accounting.
type Session struct {
	h      *Host
	folder string
	id     string

	// runMu serialises starting turns, steering and compaction, so two prompts arriving together
	// become one turn and a steer rather than two turns.
	runMu sync.Mutex

	mu          sync.Mutex
	threadID    string
	loadedGen   int // the codex generation the thread is loaded in; 0 = not loaded
	current     *turnState
	idle        chan struct{} // closed while no turn runs
	yolo        bool
	fallback    *FallbackProvider // the provider the session moved to after a quota failure
	fallbackEnd time.Time         // when the primary is tried again
	totals      Usage
	threadTotal *codex.TokenUsage // codex's running total of the thread as last seen; nil: unknown
	turns       int
	toolIters   int
	compactions int
	history     []Message // projected transcript of this process's turns, for chat fallbacks
	pending     map[string]*pendingApproval
	last        *Result
}

func newSession(h *Host, folder string, saved folderState) *Session {
	idle := make(chan struct{})
	close(idle)
	return &Session{
		h:           h,
		folder:      folder,
		id:          newID(),
		threadID:    saved.ThreadID,
		threadTotal: saved.ThreadTotal,
		totals:      saved.Usage,
		turns:       saved.Turns,
		compactions: saved.Compactions,
		idle:        idle,
		pending:     make(map[string]*pendingApproval),
	}
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Folder is the session's workspace folder, the cwd of its thread.
func (s *Session) Folder() string { return s.folder }

// ID identifies the session in events.
func (s *Session) ID() string { return s.id }

// SetYolo turns the session's auto-approval on or off, from the next request on.
func (s *Session) SetYolo(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.yolo = on
}

// Yolo reports whether the session auto-approves.
func (s *Session) Yolo() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.yolo
}

func (s *Session) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current != nil
}

// waitIdle waits until no turn runs.
func (s *Session) waitIdle() {
	s.mu.Lock()
	idle := s.idle
	s.mu.Unlock()
	<-idle
}

// ErrNoTurn is returned when an operation needs a running turn and there is none.
var ErrNoTurn = errors.New("no turn is running in this folder")

// ErrBusy is returned when an operation needs the session idle and a turn runs.
var ErrBusy = errors.New("a turn is running in this folder: stop it first")

// Run starts a turn with in and returns at once. If a turn is already running, the input steers it
// (codex adds it to the running turn) and the returned Turn says Steered.
func (s *Session) Run(ctx context.Context, in Input) (*Turn, error) {
	if in.Prompt == "" {
		return nil, errors.New("empty prompt: say what the agent should do")
	}
	s.runMu.Lock()
	defer s.runMu.Unlock()
	ctx, cancel := s.bounded(ctx)
	defer cancel()

	s.mu.Lock()
	cur := s.current
	s.mu.Unlock()
	if cur != nil {
		if err := cur.steer(ctx, in); err == nil {
			return &Turn{state: cur, steered: true}, nil
		} else if !errors.Is(err, errTurnOver) {
			return nil, err
		}
		// The turn ended while we asked: start a new one once its runner has finished it.
		select {
		case <-cur.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("the running turn did not finish: %w", context.Cause(ctx))
		}
	}

	ts := s.newTurnState(in, false)
	s.register(ts)
	if fb := s.fallbackNow(s.h.config()); fb != nil {
		// Still within the fallback's cooldown: the turn runs there, and its result says so.
		ts.fallback = fb.Name
		if fb.Kind == FallbackChat {
			s.beginChat(ts, *fb)
			return &Turn{state: ts}, nil
		}
	}
	if err := s.startCodexTurn(ctx, ts); err != nil {
		s.abandon(ts)
		return nil, err
	}
	s.begin(ts)
	return &Turn{state: ts}, nil
}

// Compact asks codex to compact the thread's context. Codex runs it as a turn of its own, returned
// like any other; the session's compaction count goes up when it is done.
func (s *Session) Compact(ctx context.Context) (*Turn, error) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if s.running() {
		return nil, ErrBusy
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	ts := s.newTurnState(Input{}, true)
	s.register(ts)
	client, threadID, err := s.prepare(ctx, ts)
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
	ts.attach(client, threadID, "", sub)
	s.begin(ts)
	return &Turn{state: ts}, nil
}

// prepare makes sure codex runs and the session's thread is loaded in it.
func (s *Session) prepare(ctx context.Context, ts *turnState) (*codex.Client, string, error) {
	client, gen, err := s.h.codexClient(ctx)
	if err != nil {
		return nil, "", err
	}
	threadID, fresh, err := s.ensureThread(ctx, client, gen)
	if err != nil {
		s.retireIfSilent(ctx, client)
		return nil, "", err
	}
	if fresh {
		ts.newThread = true
	}
	return client, threadID, nil
}

// startCodexTurn starts ts's input as a codex turn on the session's thread.
func (s *Session) startCodexTurn(ctx context.Context, ts *turnState) error {
	client, threadID, err := s.prepare(ctx, ts)
	if err != nil {
		return err
	}
	turn, sub, err := client.StartTurn(ctx, codex.TurnStartParams{
		ThreadID: threadID,
		Input:    []codex.UserInput{codex.TextInput(ts.input.Prompt)},
	})
	if err != nil {
		s.retireIfSilent(ctx, client)
		return fmt.Errorf("start turn: %w", err)
	}
	ts.attach(client, threadID, turn.ID, sub)
	return nil
}

// errSilent is why a call that starts, steers or compacts a turn gave up: codex answered nothing
// within the turn timeout.
var errSilent = errors.New("codex did not answer")

// bounded bounds the calls to codex that start, steer or compact a turn by the turn timeout, so that
// a codex that stops answering fails the request in time instead of holding it (and the editor's
// command) forever.
func (s *Session) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	d := s.h.config().TurnTimeout
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("%w within %v (the turn timeout); it was restarted", errSilent, d))
}

// retireIfSilent retires client when ctx (from bounded) ended because codex did not answer in time:
// the next turn then starts a new codex instead of waiting on this one again.
func (s *Session) retireIfSilent(ctx context.Context, client *codex.Client) {
	if client != nil && errors.Is(context.Cause(ctx), errSilent) {
		s.h.retire(client, "codex did not answer within the turn timeout")
	}
}

// register makes ts the session's turn before codex is asked to start it, so that an approval
// codex asks for as soon as the turn runs finds its turn (and waits for begin) rather than needing
// a lock that starting turns holds.
func (s *Session) register(ts *turnState) {
	s.mu.Lock()
	s.current = ts
	s.idle = make(chan struct{})
	s.mu.Unlock()
}

// abandon undoes register for a turn codex did not start.
func (s *Session) abandon(ts *turnState) {
	s.mu.Lock()
	if s.current == ts {
		s.current = nil
		close(s.idle)
	}
	s.mu.Unlock()
	close(ts.startedCh)
}

// begin starts the runner of ts, a registered turn codex has started.
func (s *Session) begin(ts *turnState) {
	ts.emit(Event{Kind: EventTurnStarted, Text: ts.input.Prompt})
	close(ts.startedCh)
	s.h.wg.Go(ts.run)
}

// end clears the running turn once ts has finished; usage is what the turn adds to the totals.
// awaitingUsage says the turn compacted the context and no usage came after: the last prompt is
// unknown (context % 0) until the next update.
func (s *Session) end(ts *turnState, res *Result, usage Usage, iterations int, awaitingUsage bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == ts {
		s.current = nil
		close(s.idle)
	}
	s.last = res
	s.turns++
	s.toolIters += iterations
	s.totals = s.totals.Add(usage)
	if awaitingUsage {
		s.totals.LastPrompt = 0
	}
	s.history = append(s.history, res.Messages...)
	if len(s.history) > 400 {
		s.history = slices.Clone(s.history[len(s.history)-400:])
	}
}

// ensureThread returns the session's thread loaded in this codex generation: resumed when the
// session had one (fresh false), else started (fresh true, also when resuming failed).
func (s *Session) ensureThread(ctx context.Context, client *codex.Client, gen int) (threadID string, fresh bool, err error) {
	s.mu.Lock()
	threadID, loaded, fb := s.threadID, s.loadedGen, s.fallback
	s.mu.Unlock()
	if threadID != "" && loaded == gen {
		return threadID, false, nil
	}
	cfg := s.h.config()
	model, provider := cfg.Model, ""
	if fb != nil && fb.Kind == FallbackResponses {
		model, provider = fb.Model, providerID(*fb)
	}
	if threadID != "" {
		res, rerr := client.ResumeThread(ctx, codex.ThreadResumeParams{
			ThreadID: threadID, Cwd: s.folder, ApprovalPolicy: cfg.ApprovalPolicy, Sandbox: cfg.Sandbox,
			Model: model, ModelProvider: provider, ExcludeTurns: true,
		})
		if rerr == nil {
			s.loaded(res.Thread.ID, gen)
			return res.Thread.ID, false, nil
		}
		if ctx.Err() != nil || client.Err() != nil {
			return "", false, fmt.Errorf("resume thread %s: %w", threadID, rerr)
		}
		s.h.log.Warn("could not resume the thread; starting a new one", "folder", s.folder, "thread", threadID, "err", rerr)
	}
	res, err := client.StartThread(ctx, codex.ThreadStartParams{
		Cwd: s.folder, ApprovalPolicy: cfg.ApprovalPolicy, Sandbox: cfg.Sandbox,
		Model: model, ModelProvider: provider,
	})
	if err != nil {
		return "", false, fmt.Errorf("start thread in %s: %w", s.folder, err)
	}
	s.loaded(res.Thread.ID, gen)
	return res.Thread.ID, threadID != "", nil
}

func (s *Session) loaded(threadID string, gen int) {
	s.mu.Lock()
	changed := s.threadID != threadID
	s.threadID, s.loadedGen = threadID, gen
	if changed {
		s.threadTotal = &codex.TokenUsage{} // a new thread counts from zero
	}
	s.mu.Unlock()
	s.h.bindThread(threadID, s)
	if changed {
		s.save()
	}
}

// save records the session's thread and totals in the state file.
func (s *Session) save() {
	s.mu.Lock()
	st := folderState{ThreadID: s.threadID, ThreadTotal: s.threadTotal, Usage: s.totals, Turns: s.turns, Compactions: s.compactions, Updated: time.Now()}
	s.mu.Unlock()
	s.h.store.setFolder(s.folder, st)
}

// Interrupt stops the running turn. Its result is partial.
func (s *Session) Interrupt(ctx context.Context) error {
	s.mu.Lock()
	cur := s.current
	s.mu.Unlock()
	if cur == nil {
		return ErrNoTurn
	}
	return cur.interrupt(ctx, "interrupted by the user")
}

// NewThread makes the next turn start a new thread (the current one stays in codex's history).
func (s *Session) NewThread() error {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	s.mu.Lock()
	if s.current != nil {
		s.mu.Unlock()
		return ErrBusy
	}
	s.threadID, s.loadedGen, s.fallback = "", 0, nil
	s.history = nil
	s.mu.Unlock()
	s.save()
	return nil
}

// Resolve answers a pending approval (from a code action or a command, for example), whichever way
// it is also being asked.
func (s *Session) Resolve(approvalID string, d Decision) error {
	s.mu.Lock()
	p, ok := s.pending[approvalID]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %s (it may have been answered, or its turn ended)", ErrNoApproval, approvalID)
	}
	select {
	case p.answer <- d:
		return nil
	default:
		return fmt.Errorf("%w: %s was already answered", ErrNoApproval, approvalID)
	}
}

// Resolve answers a pending approval of any session.
func (h *Host) Resolve(approvalID string, d Decision) error {
	for _, s := range h.Sessions() {
		if err := s.Resolve(approvalID, d); !errors.Is(err, ErrNoApproval) {
			return err
		}
	}
	return fmt.Errorf("%w: %s (it may have been answered, or its turn ended)", ErrNoApproval, approvalID)
}

func (s *Session) addPending(p *pendingApproval) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[p.approval.ID] = p
}

func (s *Session) removePending(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, id)
}

// recordApproval adds a settled approval to the running turn's record.
func (s *Session) recordApproval(a Approval) {
	if ts := s.turnFor(a.TurnID); ts != nil {
		ts.recordApproval(a)
	}
}

func (s *Session) emitApproval(kind string, a Approval) {
	if ts := s.turnFor(a.TurnID); ts != nil {
		ts.emit(Event{Kind: kind, Approval: &a})
	}
}

// currentTurn returns the session's turn, started or being started, or nil.
func (s *Session) currentTurn() *turnState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

// turnFor returns the running turn if it is codex turn turnID (or turnID is empty).
func (s *Session) turnFor(turnID string) *turnState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == nil {
		return nil
	}
	if turnID != "" && s.current.currentTurnID() != turnID {
		return nil
	}
	return s.current
}
