package agenthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Turn is a caller's handle on a running turn.
type Turn struct {
	state   *turnState
	steered bool
}

// ThreadID is the codex thread the turn runs on.
func (t *Turn) ThreadID() string { return t.state.currentThreadID() }

// TurnID is the codex turn id (it changes if a fallback provider retries the turn).
func (t *Turn) TurnID() string { return t.state.currentTurnID() }

// Steered reports that the input steered a turn that was already running rather than starting one.
func (t *Turn) Steered() bool { return t.steered }

// Folder is the session's folder.
func (t *Turn) Folder() string { return t.state.s.folder }

// Events streams the turn's events, ending with EventTurnCompleted; the channel closes after it.
// Events are kept until read: a caller that asks for them must drain them.
func (t *Turn) Events() <-chan Event {
	ts := t.state
	ts.pumpOnce.Do(func() { ts.s.h.startPump(ts.queue) })
	return ts.queue.out
}

// Done is closed when the turn has ended and its result is ready.
func (t *Turn) Done() <-chan struct{} { return t.state.done }

// Wait returns the turn's result once it has ended, or ctx's error.
func (t *Turn) Wait(ctx context.Context) (*Result, error) {
	select {
	case <-t.state.done:
		return t.state.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Interrupt stops the turn.
func (t *Turn) Interrupt(ctx context.Context) error {
	return t.state.interrupt(ctx, "interrupted by the user")
}

// errTurnOver says the turn ended before an operation on it could apply.
var errTurnOver = errors.New("the turn is over")

// openItem is a tool item that started and has not completed.
type openItem struct {
	item    codex.Item
	started time.Time
}

// turnState is one turn as it runs: what codex reported and what the result will say. Its runner
// goroutine owns the accumulators; mu guards what other goroutines read or change.
type turnState struct {
	s          *Session
	input      Input
	compaction bool // a compaction turn (Session.Compact), not a prompt
	started    time.Time
	queue      *eventQueue
	pumpOnce   sync.Once
	done       chan struct{}
	startedCh  chan struct{} // closed once the turn has started in codex, or failed to
	result     *Result

	mu              sync.Mutex
	client          *codex.Client
	sub             *codex.Subscription
	threadID        string
	turnID          string
	interruptReason string
	interrupted     chan struct{} // closed when an interrupt was asked
	newThread       bool
	approvals       []Approval
	usage           *codex.ThreadTokenUsage
	steeredIn       []string // input codex took into the turn, not yet in messages
	chatUsage       bool     // usage is a chat fallback's, not codex's thread

	// Owned by the runner.
	messages   []Message
	reasoning  strings.Builder // reasoning to attach to the next assistant row
	finalText  string
	iterations int
	open       map[string]*openItem
	compacted  map[string]bool
	// usageAfterCompaction says a token usage update came after the turn's last compaction: without
	// one the context's size is unknown until the next update (the seed's awaiting real usage).
	usageAfterCompaction bool
	status               string
	turnErr              *codex.TurnError
	failure              error // the run broke: codex died or a call failed
	fallback             string
	apiCalls             int
}

func (s *Session) newTurnState(in Input, compaction bool) *turnState {
	ts := &turnState{
		s: s, input: in, compaction: compaction, started: time.Now(),
		queue:       newEventQueue(),
		done:        make(chan struct{}),
		startedCh:   make(chan struct{}),
		interrupted: make(chan struct{}),
		open:        make(map[string]*openItem),
		compacted:   make(map[string]bool),
		apiCalls:    1,
	}
	if !compaction {
		ts.messages = []Message{{Role: "user", Content: in.Prompt}}
	}
	return ts
}

func (ts *turnState) attach(client *codex.Client, threadID, turnID string, sub *codex.Subscription) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.client, ts.threadID, ts.turnID, ts.sub = client, threadID, turnID, sub
}

func (ts *turnState) currentTurnID() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.turnID
}

func (ts *turnState) currentThreadID() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.threadID
}

func (ts *turnState) liveUsage() Usage {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.usage == nil {
		return Usage{}
	}
	return usageOf(ts.usage)
}

func usageOf(u *codex.ThreadTokenUsage) Usage {
	var window int64
	if u.ModelContextWindow != nil {
		window = *u.ModelContextWindow
	}
	return UsageFrom(u.Last, window)
}

// emit stamps an event with the turn's ids and queues it.
func (ts *turnState) emit(ev Event) {
	ts.mu.Lock()
	ev.ThreadID, ev.TurnID = ts.threadID, ts.turnID
	ts.mu.Unlock()
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	ts.queue.push(ev)
}

func (ts *turnState) recordApproval(a Approval) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.approvals = append(ts.approvals, a)
}

// steer adds input to the running turn. It returns errTurnOver when the turn had ended before
// codex took the input; a refusal of a turn that still runs is an error for the caller.
func (ts *turnState) steer(ctx context.Context, in Input) error {
	for attempt := 0; ; attempt++ {
		ts.mu.Lock()
		client, threadID, turnID, sub := ts.client, ts.threadID, ts.turnID, ts.sub
		ts.mu.Unlock()
		if ts.over(sub) {
			return errTurnOver
		}
		if turnID == "" {
			return fmt.Errorf("%w: the turn has not started yet", ErrBusy)
		}
		if client == nil {
			return fmt.Errorf("%w: the turn runs on a chat fallback, which takes no input while it answers", ErrBusy)
		}
		_, err := client.SteerTurn(ctx, codex.TurnSteerParams{
			ThreadID: threadID, ExpectedTurnID: turnID, Input: []codex.UserInput{codex.TextInput(in.Prompt)},
		})
		if err == nil {
			ts.mu.Lock()
			ts.steeredIn = append(ts.steeredIn, in.Prompt)
			ts.mu.Unlock()
			ts.emit(Event{Kind: EventSteered, Text: in.Prompt})
			return nil
		}
		var rpcErr *codex.Error
		if !errors.As(err, &rpcErr) {
			ts.s.retireIfSilent(ctx, client)
			return fmt.Errorf("steer: %w", err)
		}
		// Whether the turn is over is the turn's to say, not the error's: codex announces a turn's
		// end before it answers a later request, so the turn's subscription knows by now.
		if ts.over(sub) {
			return errTurnOver
		}
		if attempt == 0 && ts.currentTurnID() != turnID {
			continue // the turn moved on (a fallback retries it under a new id): steer that one
		}
		return fmt.Errorf("codex did not take the input into the running turn (%s): ask again when it ends, or stop it first", rpcErr.Message)
	}
}

// takeSteered adds the input steered into the turn since the last event to the turn's messages, as
// the user's, where it came in: the transcript and a fallback's history then have it. Runner only.
func (ts *turnState) takeSteered() {
	ts.mu.Lock()
	in := ts.steeredIn
	ts.steeredIn = nil
	ts.mu.Unlock()
	for _, text := range in {
		ts.messages = append(ts.messages, Message{Role: "user", Content: text})
	}
}

// over reports whether the turn has ended, or codex has announced its end on sub.
func (ts *turnState) over(sub *codex.Subscription) bool {
	select {
	case <-ts.done:
		return true
	default:
	}
	return sub != nil && sub.TurnCompleted()
}

// waitStarted waits until the turn has started (or failed to): approvals codex asks for as soon as
// the turn runs are recorded on it then.
func (ts *turnState) waitStarted(ctx context.Context) {
	select {
	case <-ts.startedCh:
	case <-ctx.Done():
	}
}

// interrupt asks codex to stop the turn; the runner finishes it when codex confirms.
func (ts *turnState) interrupt(ctx context.Context, reason string) error {
	ts.mu.Lock()
	client, threadID, turnID := ts.client, ts.threadID, ts.turnID
	first := ts.interruptReason == ""
	if first {
		ts.interruptReason = reason
		close(ts.interrupted)
	}
	ts.mu.Unlock()
	select {
	case <-ts.done:
		return nil
	default:
	}
	if turnID == "" || client == nil {
		return nil // not started in codex yet, or a chat fallback's turn: the runner sees interrupted
	}
	if err := client.InterruptTurn(ctx, threadID, turnID); err != nil {
		var rpcErr *codex.Error
		if errors.As(err, &rpcErr) {
			return nil // already over
		}
		return fmt.Errorf("interrupt: %w", err)
	}
	return nil
}

// run drives the turn to its end: it applies codex's notifications, enforces the deadline, retires
// codex when the turn shows it is broken, retries on a fallback provider, and finishes the result.
func (ts *turnState) run() {
	h := ts.s.h
	cfg := h.config()
	deadline := time.NewTimer(cfg.TurnTimeout)
	defer deadline.Stop()

	ts.drive(deadline.C)
	retire, why := ts.assess()
	ts.mu.Lock()
	client := ts.client
	ts.mu.Unlock()
	if retire && client != nil {
		h.retire(client, why) // a no-op when the watcher already retired a dead codex
	}
	retired := retire
	if fb, ok := ts.fallbackFor(cfg); ok {
		// A responses fallback runs on a codex of its own: whether codex is retired at the end is
		// that attempt's to say. A chat fallback leaves the retired codex as it was.
		if fellBack := ts.runFallback(cfg, fb, deadline.C); fb.Kind == FallbackResponses {
			retired = fellBack
		}
	}
	ts.finish(retired)
}

// drive applies notifications until the turn completes, codex goes away, the deadline passes, or
// the host closes.
func (ts *turnState) drive(deadline <-chan time.Time) {
	ts.mu.Lock()
	sub := ts.sub
	ts.mu.Unlock()
	defer sub.Close()
	closing := ts.s.h.closing
	// Codex acknowledges an interrupt that arrives before the turn's first model request and then
	// runs the turn anyway: until the turn ends, the interrupt is sent again now and then.
	interrupted := ts.interrupted
	var again <-chan time.Time
	resends := 0
	for {
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
	ts.mu.Lock()
	client, threadID, turnID := ts.client, ts.threadID, ts.turnID
	ts.mu.Unlock()
	if client == nil || turnID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = client.InterruptTurn(ctx, threadID, turnID) // an error means it is over: the events will say
}

// withStderr adds the last lines codex wrote on stderr to err, the failure of a turn whose codex
// went away, unless err carries them already (an *codex.ExitError does).
func (ts *turnState) withStderr(err error) error {
	ts.mu.Lock()
	client := ts.client
	ts.mu.Unlock()
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
	ts.mu.Lock()
	ts.interruptReason = reason // the deadline or shutdown is the reason, even after a user's stop
	ts.mu.Unlock()
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

// apply takes one notification into the turn; it reports whether the turn completed.
func (ts *turnState) apply(ev codex.Event) bool {
	ts.takeSteered()
	if ev.Err != nil {
		return false // malformed: logged by the client, never a tool event
	}
	ts.mu.Lock()
	turnID := ts.turnID
	ts.mu.Unlock()
	if turnID == "" {
		// A compaction turn learns its id from its turn/started.
		if v, ok := ev.Value.(*codex.TurnStartedParams); ok {
			ts.mu.Lock()
			ts.turnID = v.Turn.ID
			ts.mu.Unlock()
			turnID = v.Turn.ID
		}
		return false
	}
	if ev.TurnID != "" && ev.TurnID != turnID {
		return false // another turn of the thread
	}
	if ev.Method == codex.NotifyThreadCompacted {
		ts.compactedItem(codex.NotifyThreadCompacted)
		return false
	}
	switch v := ev.Value.(type) {
	case *codex.ItemParams:
		if ev.Method == codex.NotifyItemStarted {
			ts.itemStarted(&v.Item)
		} else {
			ts.itemCompleted(&v.Item)
		}
	case *codex.DeltaParams:
		switch ev.Method {
		case codex.NotifyAgentMessageDelta:
			ts.emit(Event{Kind: EventAnswerDelta, Text: v.Delta})
		case codex.NotifyReasoningSummaryDelta, codex.NotifyReasoningTextDelta:
			ts.emit(Event{Kind: EventReasoningDelta, Text: v.Delta})
		case codex.NotifyCommandOutputDelta:
			ts.emit(Event{Kind: EventToolOutput, Text: v.Delta, Tool: &ToolEvent{ItemID: v.ItemID, Name: "exec_command"}})
		}
	case *codex.TurnPlanParams:
		ts.emit(Event{Kind: EventPlan, Plan: v.Plan, Text: v.Explanation})
	case *codex.TurnDiffParams:
		ts.emit(Event{Kind: EventDiff, Diff: v.Diff})
	case *codex.TokenUsageParams:
		u := v.TokenUsage
		ts.mu.Lock()
		ts.usage = &u
		ts.mu.Unlock()
		ts.usageAfterCompaction = true
		usage := usageOf(&u)
		ts.emit(Event{Kind: EventUsage, Usage: &usage})
	case *codex.ErrorParams:
		if !v.WillRetry {
			e := v.Error
			ts.turnErr = &e
		}
		ts.emit(Event{Kind: EventError, Text: v.Error.Error()})
	case *codex.TurnCompletedParams:
		ts.status = v.Turn.Status
		if v.Turn.Error != nil {
			ts.turnErr = v.Turn.Error
		}
		ts.closeOpen("turn " + v.Turn.Status)
		return true
	}
	return false
}

func (ts *turnState) itemStarted(item *codex.Item) {
	if item.Type == "" || item.ID == "" || !isTool(item) {
		return
	}
	ts.open[item.ID] = &openItem{item: *item, started: time.Now()}
	ts.emit(Event{Kind: EventToolStarted, Tool: &ToolEvent{
		ItemID: item.ID, CallID: ToolCallID(item), Name: ToolName(item),
		Args: ToolArgs(item), Preview: ToolPreview(item), Status: item.Status,
	}})
}

func (ts *turnState) itemCompleted(item *codex.Item) {
	switch {
	case item.Type == "" || item.ID == "":
		return
	case item.Type == codex.ItemAgentMessage:
		ts.finalText = item.Text
		ts.messages = append(ts.messages, Message{Role: "assistant", Content: item.Text, Reasoning: ts.takeReasoning()})
	case item.Type == codex.ItemReasoning:
		text := strings.Join(item.Summary, "\n")
		if text == "" {
			var content []string
			if json.Unmarshal(item.Content, &content) == nil {
				text = strings.Join(content, "\n")
			}
		}
		if text != "" {
			if ts.reasoning.Len() > 0 {
				ts.reasoning.WriteByte('\n')
			}
			ts.reasoning.WriteString(text)
		}
	case item.Type == codex.ItemContextCompaction:
		ts.compactedItem(item.ID)
	case isTool(item):
		started := time.Now()
		if o, ok := ts.open[item.ID]; ok {
			started = o.started
			delete(ts.open, item.ID)
		}
		took := time.Since(started)
		if item.DurationMs != nil {
			// codex's own measure: the command's run, without the wait for its approval.
			took = time.Duration(*item.DurationMs) * time.Millisecond
		}
		ts.toolDone(item, took, "")
	}
}

// toolDone reports a finished tool item and projects it: an assistant row with its call, a tool row
// with its result. note replaces the result of an item that never completed.
func (ts *turnState) toolDone(item *codex.Item, took time.Duration, note string) {
	result, isErr := ToolResult(item)
	status := item.Status
	if note != "" {
		result, isErr, status = note, true, "incomplete"
	} else if countsAsIteration(item) {
		ts.iterations++
	}
	call := ToolCall{ID: ToolCallID(item), Type: "function", Function: ToolFunction{Name: ToolName(item), Arguments: string(ToolArgs(item))}}
	ts.messages = append(ts.messages,
		Message{Role: "assistant", ToolCalls: []ToolCall{call}, Reasoning: ts.takeReasoning()},
		Message{Role: "tool", ToolCallID: call.ID, Content: result},
	)
	ts.emit(Event{Kind: EventToolCompleted, Tool: &ToolEvent{
		ItemID: item.ID, CallID: call.ID, Name: call.Function.Name, Args: ToolArgs(item),
		Preview: ToolPreview(item), Duration: took, DurationMs: took.Milliseconds(), IsError: isErr, Result: result, Status: status,
	}})
}

func (ts *turnState) takeReasoning() string {
	r := ts.reasoning.String()
	ts.reasoning.Reset()
	return r
}

// compactedItem takes a compaction into the turn: a contextCompaction item, or the older
// thread/compacted notification. The session counts one compaction per turn, however many items and
// notifications announce it (the seed's bookkeeping: one compression per compacted turn). Until a
// token usage update follows, the context's size is unknown.
func (ts *turnState) compactedItem(itemID string) {
	ts.usageAfterCompaction = false
	if ts.compacted[itemID] {
		return
	}
	ts.compacted[itemID] = true
	if len(ts.compacted) > 1 {
		return
	}
	s := ts.s
	s.mu.Lock()
	s.compactions++
	count := s.compactions
	s.mu.Unlock()
	ts.mu.Lock()
	threadID, turnID := ts.threadID, ts.turnID
	ts.mu.Unlock()
	ts.emit(Event{Kind: EventCompaction, Compaction: &Compaction{
		SessionID: s.id, Count: count, Runtime: "codex_app_server", ThreadID: threadID, TurnID: turnID,
	}})
}

// closeOpen closes the items still open when the turn ended.
func (ts *turnState) closeOpen(why string) {
	for id, o := range ts.open {
		delete(ts.open, id)
		ts.toolDone(&o.item, time.Since(o.started), "[did not complete: "+why+"]")
	}
}

// assess classifies how the turn ended and whether codex must be retired for it.
func (ts *turnState) assess() (retire bool, why string) {
	ts.mu.Lock()
	reason := ts.interruptReason
	ts.mu.Unlock()
	switch {
	case ts.failure != nil:
		return true, "the turn broke: " + ts.failure.Error()
	case strings.HasPrefix(reason, "turn timed out"):
		return true, reason
	case ts.status == codex.TurnFailed && isAuthFailure(ts.turnErr):
		return true, "authentication failed"
	case ts.status == codex.TurnFailed && isQuotaFailure(ts.turnErr):
		return true, "usage limit reached"
	}
	return false, ""
}

// isQuotaFailure reports a usage-limit, rate-limit or billing failure.
func isQuotaFailure(e *codex.TurnError) bool {
	if e == nil {
		return false
	}
	switch e.CodexErrorInfo.Kind() {
	case codex.ErrorUsageLimitExceeded, codex.ErrorRateLimitExceeded:
		return true
	case codex.ErrorTooManyAttempts:
		if e.CodexErrorInfo.HTTPStatus() == 429 {
			return true
		}
	}
	msg := strings.ToLower(e.Message)
	for _, s := range []string{"usage limit", "quota", "billing", "insufficient_quota", "rate limit"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// isAuthFailure reports a refused login or key.
func isAuthFailure(e *codex.TurnError) bool {
	if e == nil {
		return false
	}
	if e.CodexErrorInfo.Kind() == codex.ErrorUnauthorized {
		return true
	}
	st := e.CodexErrorInfo.HTTPStatus()
	if st == 401 || st == 403 {
		return true
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "401 unauthorized") || strings.Contains(msg, "not logged in") || strings.Contains(msg, "codex login")
}

// finish builds the result, accounts for it, persists the transcript and ends the turn.
func (ts *turnState) finish(retired bool) {
	s := ts.s
	ts.takeSteered()
	ts.mu.Lock()
	threadID, turnID, reason := ts.threadID, ts.turnID, ts.interruptReason
	var usage Usage
	var total *codex.TokenUsage
	if ts.usage != nil {
		usage = usageOf(ts.usage)
		if !ts.chatUsage {
			t := ts.usage.Total
			total = &t
		}
	}
	approvals := append([]Approval(nil), ts.approvals...)
	newThread := ts.newThread
	ts.mu.Unlock()
	added := usage // a chat fallback's usage is the turn's own: no thread total
	if total != nil {
		added = s.turnTotal(*total, usage)
	}

	res := &Result{
		FinalText: ts.finalText, Messages: ts.messages, ToolIterations: ts.iterations,
		ThreadID: threadID, TurnID: turnID, APICalls: ts.apiCalls, Usage: usage,
		Compacted: len(ts.compacted) > 0, Fallback: ts.fallback, NewThread: newThread,
		Retired: retired, Duration: time.Since(ts.started),
	}
	res.DurationMs = res.Duration.Milliseconds()
	switch {
	case ts.failure != nil:
		res.Status = StatusFailed
		if reason != "" {
			res.Status = StatusInterrupted
		}
		res.Error = ts.failure.Error()
		if res.FinalText == "" {
			res.FinalText = "The turn stopped because codex stopped (" + shortCause(ts.failure) + ")." +
				" Ask again to restart it; if this repeats, check that `codex` runs in a terminal and read the hermes-lsp log."
		}
	case ts.status == codex.TurnCompleted:
		res.Status, res.Completed = StatusCompleted, true
	case ts.status == codex.TurnInterrupted:
		res.Status = StatusInterrupted
		res.Error = reason
		if res.Error == "" {
			res.Error = "turn interrupted"
		}
	default:
		res.Status = StatusFailed
		res.Error = "turn ended status=" + ts.status
		if ts.turnErr != nil {
			if info := ts.turnErr.CodexErrorInfo.String(); info != "" {
				res.Error += ": " + info
			}
			res.Error += ": " + ts.turnErr.Message
		}
		if res.FinalText == "" {
			res.FinalText = failureAdvice(ts.turnErr)
		}
	}
	res.Partial = !res.Completed
	if ts.fallback != "" && res.Completed {
		res.Error = ""
	}

	res.TranscriptPath = s.h.store.appendTurn(s.folder, ts.input, res, approvals, ts.compaction)
	s.end(ts, res, added, ts.iterations, len(ts.compacted) > 0 && !ts.usageAfterCompaction)
	s.save()
	ts.result = res
	ts.emit(Event{Kind: EventTurnCompleted, Result: res})
	ts.queue.close()
	close(ts.done)
}

// failureAdvice tells a person what to do about a failed turn.
func failureAdvice(e *codex.TurnError) string {
	if e == nil {
		return "The turn failed without a reason from codex. Ask again; the hermes-lsp log may say more."
	}
	switch {
	case isAuthFailure(e):
		return "Codex could not authenticate: run `codex login` in a terminal (or set OPENAI_API_KEY), then ask again. (" + e.Message + ")"
	case isQuotaFailure(e):
		return "The model provider's usage limit is reached: " + e.Message +
			" Try again later, or configure hermes fallbackProviders to answer on another provider."
	}
	return "The turn failed: " + e.Message + " Ask again; if it repeats, the hermes-lsp log has details."
}

// shortCause says in a few words why codex stopped: its exit status, or the error's first line.
func shortCause(err error) string {
	var exit *codex.ExitError
	if errors.As(err, &exit) {
		return exit.Status
	}
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(strings.TrimSpace(s), ":")
}
