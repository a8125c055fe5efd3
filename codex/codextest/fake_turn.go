package codextest

// This file is FakeTurn: what a turn handler sends, as codex would, and how the turn ends.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/sourcegraph/conc"
)

// FakeTurn is a running turn, as its handler sees it: what the client asked for, and the means to
// play the turn. Its methods write notifications in the order they are called; after the connection
// ended they do nothing (requests return ErrDisconnected).
type FakeTurn struct {
	// ThreadID is the turn's thread; TurnID is "turn-N", unique across connections.
	ThreadID string
	TurnID   string
	// Prompt is the text of the turn's input (for a compaction, "").
	Prompt string
	// Params are the params of turn/start (for a compaction, only the thread id).
	Params codex.TurnStartParams
	// Cwd is the turn's working directory: the params' or the thread's.
	Cwd string
	// Compaction says the turn was started by thread/compact/start.
	Compaction bool
	// ReviewTarget is review/start's target when the turn is a review (nil otherwise): the turn
	// handler plays it, typically ending with ExitReview.
	ReviewTarget json.RawMessage

	conn          *fakeConn
	started       time.Time
	interrupted   chan struct{}
	interruptOnce sync.Once
	steered       chan string

	mu          sync.Mutex
	completed   bool
	lastMessage map[string]any   // the last completed agentMessage item
	items       []map[string]any // the completed items, in order: the turn's history (thread/turns/list)
	ended       string           // how the turn ended ("" while it runs)
	turnErr     *codex.TurnError // why it failed
	duration    time.Duration    // how long it ran, once ended
	withdraw    []int64          // approvals left unanswered by an interrupt, resolved after turn/completed
}

// run plays the turn with h and completes it if h did not.
func (ft *FakeTurn) run(h func(*FakeTurn)) {
	h(ft)
	ft.mu.Lock()
	completed := ft.completed
	ft.mu.Unlock()
	if completed {
		return
	}
	select {
	case <-ft.interrupted:
		ft.Complete(codex.TurnInterrupted, nil)
	default:
		ft.Complete(codex.TurnCompleted, nil)
	}
}

// Done is closed when the turn's connection has ended (Kill, or the client closed): the handler must
// return.
func (ft *FakeTurn) Done() <-chan struct{} { return ft.conn.done() }

// Interrupted is closed when the client sends turn/interrupt for this turn. The fake has answered it;
// completing the turn is the handler's business (see CompleteOnInterrupt).
func (ft *FakeTurn) Interrupted() <-chan struct{} { return ft.interrupted }

// Steered delivers the text of every turn/steer for this turn, and of every turn/start sent while it
// runs (codex adds such input to the running turn). The fake has answered them.
func (ft *FakeTurn) Steered() <-chan string { return ft.steered }

// CompleteOnInterrupt waits until the client interrupts the turn, then completes it "interrupted",
// and reports true; or reports false when the connection ends first.
func (ft *FakeTurn) CompleteOnInterrupt() bool {
	select {
	case <-ft.interrupted:
		ft.Complete(codex.TurnInterrupted, nil)
		return true
	case <-ft.conn.done():
		return false
	}
}

func (ft *FakeTurn) steer(text string) bool {
	select {
	case ft.steered <- text:
		return true
	default:
		return false
	}
}

// Notify sends a notification. params gets the turn's threadId and turnId unless it has them; the
// message gets emittedAtMs, as codex's do.
func (ft *FakeTurn) Notify(method string, params map[string]any) {
	ft.conn.notify(method, ft.fill(params))
}

func (ft *FakeTurn) fill(params map[string]any) map[string]any {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	if _, ok := p["threadId"]; !ok {
		p["threadId"] = ft.ThreadID
	}
	if _, ok := p["turnId"]; !ok {
		p["turnId"] = ft.TurnID
	}
	return p
}

// Item sends item/started then item/completed for item, and returns its id. See StartItem.
func (ft *FakeTurn) Item(item map[string]any) string {
	id := ft.StartItem(item)
	done := maps.Clone(item)
	done["id"] = id
	ft.CompleteItem(done)
	return id
}

// StartItem sends item/started and returns the item's id. A missing id is made up from the type
// (msg_N, rs_N, call_N, ...); a missing status is "inProgress" for the types that have one.
func (ft *FakeTurn) StartItem(item map[string]any) string {
	it := ft.complete(item, codex.ItemInProgress)
	ft.Notify(codex.NotifyItemStarted, map[string]any{"item": it, "startedAtMs": time.Now().UnixMilli()})
	return it["id"].(string)
}

// CompleteItem sends item/completed. A missing status is "completed" for the types that have one.
// The last completed agentMessage is the turn's summary in turn/completed.
func (ft *FakeTurn) CompleteItem(item map[string]any) {
	it := ft.complete(item, codex.ItemCompleted)
	ft.mu.Lock()
	if it["type"] == codex.ItemAgentMessage {
		ft.lastMessage = it
	}
	ft.items = append(ft.items, it)
	ft.mu.Unlock()
	ft.Notify(codex.NotifyItemCompleted, map[string]any{"item": it, "completedAtMs": time.Now().UnixMilli()})
}

// complete returns a copy of item with its id and status filled in.
func (ft *FakeTurn) complete(item map[string]any, status string) map[string]any {
	it := maps.Clone(item)
	if it == nil {
		it = map[string]any{}
	}
	typ, _ := it["type"].(string)
	if id, _ := it["id"].(string); id == "" {
		it["id"] = ft.conn.f.nextID(idPrefix(typ))
	}
	if _, ok := it["status"]; !ok && hasStatus(typ) {
		it["status"] = status
	}
	return it
}

func idPrefix(itemType string) string {
	switch itemType {
	case codex.ItemAgentMessage:
		return "msg"
	case codex.ItemReasoning:
		return "rs"
	case codex.ItemUserMessage:
		return "user"
	case codex.ItemContextCompaction:
		return "compact"
	case codex.ItemCommandExecution, codex.ItemFileChange, codex.ItemMcpToolCall, codex.ItemDynamicToolCall:
		return "call"
	default:
		return "item"
	}
}

func hasStatus(itemType string) bool {
	switch itemType {
	case codex.ItemCommandExecution, codex.ItemFileChange, codex.ItemMcpToolCall, codex.ItemDynamicToolCall:
		return true
	}
	return false
}

// AgentMessage sends an agentMessage item: started, the text in a few item/agentMessage/delta, and
// completed with the whole text. It returns the item's id (msg_1, msg_2, ...).
func (ft *FakeTurn) AgentMessage(text string) string {
	id := ft.conn.f.nextID("msg")
	ft.StartItem(map[string]any{"type": codex.ItemAgentMessage, "id": id, "text": "", "phase": nil})
	for _, d := range chunks(text) {
		ft.Notify(codex.NotifyAgentMessageDelta, map[string]any{"itemId": id, "delta": d})
	}
	ft.CompleteItem(map[string]any{"type": codex.ItemAgentMessage, "id": id, "text": text, "phase": nil})
	return id
}

// Reasoning sends a reasoning item whose summary streams in item/reasoning/summaryTextDelta. It
// returns the item's id.
func (ft *FakeTurn) Reasoning(summary string) string {
	id := ft.conn.f.nextID("rs")
	ft.StartItem(map[string]any{"type": codex.ItemReasoning, "id": id, "summary": []string{}, "content": []string{}})
	ft.Notify("item/reasoning/summaryPartAdded", map[string]any{"itemId": id, "summaryIndex": 0})
	for _, d := range chunks(summary) {
		ft.Notify(codex.NotifyReasoningSummaryDelta, map[string]any{"itemId": id, "delta": d, "summaryIndex": 0})
	}
	ft.CompleteItem(map[string]any{"type": codex.ItemReasoning, "id": id, "summary": []string{summary}, "content": []string{}})
	return id
}

// chunks splits text into at most three deltas at word boundaries.
func chunks(text string) []string {
	words := strings.SplitAfter(text, " ")
	if text == "" {
		return nil
	}
	per := (len(words) + 2) / 3
	var out []string
	for i := 0; i < len(words); i += per {
		out = append(out, strings.Join(words[i:min(i+per, len(words))], ""))
	}
	return out
}

// Exec sends a commandExecution item that ran command: started, its output in one
// item/commandExecution/outputDelta, and completed (status "failed" for a non-zero exit code). It
// returns the item's id.
func (ft *FakeTurn) Exec(command string, exitCode int, output string) string {
	id := ft.conn.f.nextID("call")
	ft.StartItem(ft.command(id, command))
	ft.finishExec(id, command, exitCode, output)
	return id
}

func (ft *FakeTurn) command(id, command string) map[string]any {
	return map[string]any{
		"type": codex.ItemCommandExecution, "id": id, "command": command, "cwd": ft.Cwd,
		"processId": nil, "source": "agent", "status": codex.ItemInProgress,
		"commandActions":   []map[string]any{{"type": "unknown", "command": command}},
		"aggregatedOutput": nil, "exitCode": nil, "durationMs": nil,
	}
}

func (ft *FakeTurn) finishExec(id, command string, exitCode int, output string) {
	if output != "" {
		ft.Notify(codex.NotifyCommandOutputDelta, map[string]any{"itemId": id, "delta": output})
	}
	it := ft.command(id, command)
	it["status"] = codex.ItemCompleted
	if exitCode != 0 {
		it["status"] = codex.ItemFailed
	}
	it["aggregatedOutput"], it["exitCode"], it["durationMs"] = output, exitCode, 1
	ft.CompleteItem(it)
}

// RequestExecApproval asks the client to approve command, as codex does: the commandExecution
// item/started, then item/commandExecution/requestApproval, then, once answered,
// serverRequest/resolved. An accepted command completes at once (exit code 0, no output); a declined
// or cancelled one completes "declined". It returns the decision (for an object decision, its key).
// See ExecWithApproval for the errors.
func (ft *FakeTurn) RequestExecApproval(command string) (decision string, err error) {
	return ft.ExecWithApproval(command, 0, "")
}

// ExecWithApproval is RequestExecApproval for a command that, once accepted, exits with exitCode and
// prints output. The error is an answer with an error (*codex.Error), ErrInterrupted when the client
// interrupted the turn first (the request is withdrawn with serverRequest/resolved after
// turn/completed, and the item is left open, as codex does), or ErrDisconnected.
func (ft *FakeTurn) ExecWithApproval(command string, exitCode int, output string) (decision string, err error) {
	id := ft.conn.f.nextID("call")
	ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("active", "waitingOnApproval"))
	ft.StartItem(ft.command(id, command))
	decision, err = ft.approval(codex.RequestCommandApproval, map[string]any{
		"kind": "command", "itemId": id, "startedAtMs": time.Now().UnixMilli(), "environmentId": "local",
		"command": command, "cwd": ft.Cwd,
		"commandActions":              []map[string]any{{"type": "unknown", "command": command}},
		"proposedExecpolicyAmendment": strings.Fields(command),
		"availableDecisions":          []string{codex.DecisionAccept, codex.DecisionAcceptForSession, codex.DecisionDecline, codex.DecisionCancel},
	})
	if err != nil {
		return "", err
	}
	if accepted(decision) {
		ft.finishExec(id, command, exitCode, output)
	} else {
		it := ft.command(id, command)
		it["status"] = codex.ItemDeclined
		ft.CompleteItem(it)
	}
	return decision, nil
}

// RequestPatchApproval asks the client to approve a patch, as codex does: the fileChange item/started
// with the changes, then item/fileChange/requestApproval (reason and grantRoot null when empty),
// then, once answered, serverRequest/resolved; the item completes "completed" or "declined". Its
// results are those of ExecWithApproval.
func (ft *FakeTurn) RequestPatchApproval(changes []codex.FileChange, reason, grantRoot string) (string, error) {
	return ft.patch(changes, reason, grantRoot, nil)
}

// ApplyPatch is RequestPatchApproval for a patch that lands: when it is accepted, apply runs (the
// test writes the files, as codex does) before the item completes.
func (ft *FakeTurn) ApplyPatch(changes []codex.FileChange, apply func()) (string, error) {
	return ft.patch(changes, "", "", apply)
}

func (ft *FakeTurn) patch(changes []codex.FileChange, reason, grantRoot string, apply func()) (string, error) {
	id := ft.conn.f.nextID("call")
	item := map[string]any{"type": codex.ItemFileChange, "id": id, "changes": changes}
	ft.StartItem(item)
	ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("active", "waitingOnApproval"))
	decision, err := ft.approval(codex.RequestFileChangeApproval, map[string]any{
		"itemId": id, "startedAtMs": time.Now().UnixMilli(), "reason": nullIfEmpty(reason), "grantRoot": nullIfEmpty(grantRoot),
	})
	if err != nil {
		return "", err
	}
	item["status"] = codex.ItemDeclined
	if accepted(decision) {
		item["status"] = codex.ItemCompleted
		if apply != nil {
			apply()
		}
	}
	ft.CompleteItem(item)
	return decision, nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func accepted(decision string) bool {
	return strings.HasPrefix(decision, codex.DecisionAccept)
}

// approval sends an approval request and reads the decision; resolved or withdrawn, as codex does.
func (ft *FakeTurn) approval(method string, params map[string]any) (string, error) {
	id, raw, rpcErr, err := ft.request(method, params, true)
	if err != nil {
		return "", err
	}
	ft.conn.notify(codex.NotifyServerRequestResolved, map[string]any{"threadId": ft.ThreadID, "requestId": id})
	ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("active"))
	if rpcErr != nil {
		return "", rpcErr
	}
	var res struct {
		Decision json.RawMessage `json:"decision"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("codextest: %s answer %s: %w", method, raw, err)
	}
	var s string
	if json.Unmarshal(res.Decision, &s) == nil {
		return s, nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(res.Decision, &obj) == nil && len(obj) == 1 {
		for k := range obj {
			return k, nil
		}
	}
	return "", fmt.Errorf("codextest: %s answer %s has no decision", method, raw)
}

// Request sends any server request (params get threadId and turnId unless they have them) and waits
// for the answer: its result, or its error. The error is ErrInterrupted when the client interrupted
// the turn first, ErrDisconnected when the connection ended. No serverRequest/resolved is sent.
func (ft *FakeTurn) Request(method string, params map[string]any) (json.RawMessage, *codex.Error, error) {
	_, raw, rpcErr, err := ft.request(method, params, false)
	return raw, rpcErr, err
}

func (ft *FakeTurn) request(method string, params map[string]any, withdrawable bool) (int64, json.RawMessage, *codex.Error, error) {
	p, err := ft.conn.conn.Send(method, ft.fill(params))
	if err != nil {
		return 0, nil, nil, ErrDisconnected
	}
	id, _ := strconv.ParseInt(string(p.ID), 10, 64)
	// Stop waiting when the client interrupts the turn first.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var wg conc.WaitGroup
	defer wg.Wait()
	answered := make(chan struct{})
	defer close(answered)
	wg.Go(func() {
		select {
		case <-ft.interrupted:
			cancel(ErrInterrupted)
		case <-answered:
		}
	})
	var raw json.RawMessage
	err = p.Wait(ctx, &raw)
	var rpcErr *codex.Error
	switch {
	case err == nil:
		ft.conn.f.mu.Lock()
		ft.conn.f.answers = append(ft.conn.f.answers, Message{Method: method, Result: raw})
		ft.conn.f.mu.Unlock()
		return id, raw, nil, nil
	case errors.As(err, &rpcErr):
		return id, nil, rpcErr, nil
	case errors.Is(context.Cause(ctx), ErrInterrupted):
		if withdrawable {
			ft.mu.Lock()
			ft.withdraw = append(ft.withdraw, id)
			ft.mu.Unlock()
		}
		return id, nil, nil, ErrInterrupted
	}
	return id, nil, nil, ErrDisconnected
}

// Complete ends the turn with status (completed, interrupted or failed): for a failed turn with an
// error, thread/status/changed systemError and the error notification first; then turn/completed,
// whose items are the last agent message for a completed turn; then serverRequest/resolved for
// approvals the interrupt left unanswered. Only the first call counts.
func (ft *FakeTurn) Complete(status string, turnErr *codex.TurnError) {
	ft.mu.Lock()
	if ft.completed {
		ft.mu.Unlock()
		return
	}
	ft.completed = true
	last, withdraw := ft.lastMessage, ft.withdraw
	now := time.Now()
	ft.ended, ft.turnErr, ft.duration = status, turnErr, now.Sub(ft.started)
	ft.mu.Unlock()

	// The turn stops running before the client can know, so its next turn/start is a new turn.
	c := ft.conn
	c.mu.Lock()
	if c.running[ft.ThreadID] == ft {
		delete(c.running, ft.ThreadID)
	}
	c.mu.Unlock()

	if status == codex.TurnFailed && turnErr != nil {
		ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("systemError"))
		ft.Notify(codex.NotifyError, map[string]any{"error": turnErr, "willRetry": false})
	} else {
		ft.conn.notify(codex.NotifyThreadStatusChanged, ft.status("idle"))
	}
	turn := ft.turnJSON(status, true)
	turn["completedAt"] = now.Unix()
	turn["durationMs"] = now.Sub(ft.started).Milliseconds()
	turn["error"] = turnErr
	if status == codex.TurnCompleted && last != nil {
		turn["items"] = []any{last}
		turn["itemsView"] = "summary"
	}
	c.notify(codex.NotifyTurnCompleted, map[string]any{"threadId": ft.ThreadID, "turn": turn})
	for _, id := range withdraw {
		c.notify(codex.NotifyServerRequestResolved, map[string]any{"threadId": ft.ThreadID, "requestId": id})
	}
}

// status is the params of thread/status/changed for the turn's thread.
func (ft *FakeTurn) status(typ string, flags ...string) map[string]any {
	st := map[string]any{"type": typ}
	if typ == "active" {
		st["activeFlags"] = append([]string{}, flags...)
	}
	return map[string]any{"threadId": ft.ThreadID, "status": st}
}
