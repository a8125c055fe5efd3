package acptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/internal/jsonrpc"
)

// Why a turn's context ended, besides the end of the connection.
var (
	errCancelled = errors.New("acptest: the client cancelled the prompt")
	errEnded     = errors.New("acptest: the turn ended")
)

// Turn is one prompt being played: what the client asked, and what the agent does about it. Its
// methods are for the prompt handler's goroutine (OnPrompt).
type Turn struct {
	// SessionID is the prompt's session, Prompt what the client sent.
	SessionID string
	Prompt    []acp.ContentBlock

	c      *conn
	s      *Session
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func newTurn(c *conn, s *Session, prompt []acp.ContentBlock) *Turn {
	ctx, cancel := context.WithCancelCause(c.ctx)
	return &Turn{SessionID: s.ID, Prompt: prompt, c: c, s: s, ctx: ctx, cancel: cancel}
}

// Text is the prompt's text: its text blocks, joined.
func (t *Turn) Text() string {
	var s string
	for _, b := range t.Prompt {
		if b.TextContent != nil {
			s += b.TextContent.Text
		}
	}
	return s
}

// Done is closed when the client cancels the prompt (session/cancel) or the connection ends.
func (t *Turn) Done() <-chan struct{} { return t.ctx.Done() }

// Cancelled reports whether the client cancelled the prompt (session/cancel).
func (t *Turn) Cancelled() bool { return errors.Is(context.Cause(t.ctx), errCancelled) }

// WaitCancel waits for the client to cancel the prompt, or the connection to end, and reports
// whether the client cancelled it.
func (t *Turn) WaitCancel() bool {
	<-t.ctx.Done()
	return t.Cancelled()
}

// StopReason returns reason, or acp.StopReasonCancelled when the client cancelled the prompt: what
// an agent must answer then.
func (t *Turn) StopReason(reason string) string {
	if t.Cancelled() {
		return acp.StopReasonCancelled
	}
	return reason
}

// Update sends a session/update of the prompt's session, and keeps it in the session's history
// (what session/load replays).
func (t *Turn) Update(u acp.SessionUpdate) {
	t.record(u)
	_ = t.c.rpc.Notify(acp.MethodSessionUpdate, acp.SessionNotification{SessionID: t.SessionID, Update: u})
}

// UpdateRaw sends a session/update whose update is raw JSON (a kind the package may not know, a
// member of the wrong type). It is not kept in the history.
func (t *Turn) UpdateRaw(update json.RawMessage) {
	t.Notify(acp.MethodSessionUpdate, map[string]any{"sessionId": t.SessionID, "update": update})
}

// Notify sends any notification to the client, its params as given.
func (t *Turn) Notify(method string, params any) {
	_ = t.c.rpc.Notify(method, params)
}

func (t *Turn) record(u acp.SessionUpdate) {
	a := t.c.a
	a.mu.Lock()
	t.s.History = append(t.s.History, u)
	a.changes++
	t.s.updated = a.changes
	a.mu.Unlock()
}

// Message streams a chunk of the answer (agent_message_chunk).
func (t *Turn) Message(text string) {
	t.Update(acp.SessionUpdate{Kind: acp.SessionUpdateKindAgentMessageChunk, ContentChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}})
}

// Thought streams a chunk of the reasoning (agent_thought_chunk).
func (t *Turn) Thought(text string) {
	t.Update(acp.SessionUpdate{Kind: acp.SessionUpdateKindAgentThoughtChunk, ContentChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}})
}

// ToolCall starts a tool call (tool_call).
func (t *Turn) ToolCall(call acp.ToolCall) {
	t.Update(acp.SessionUpdate{Kind: acp.SessionUpdateKindToolCall, ToolCall: &call})
}

// ToolCallUpdate updates a tool call (tool_call_update).
func (t *Turn) ToolCallUpdate(u acp.ToolCallUpdate) {
	t.Update(acp.SessionUpdate{Kind: acp.SessionUpdateKindToolCallUpdate, ToolCallUpdate: &u})
}

// Plan sends the plan's entries (plan).
func (t *Turn) Plan(entries ...acp.PlanEntry) {
	t.Update(acp.SessionUpdate{Kind: acp.SessionUpdateKindPlan, Plan: &acp.Plan{Entries: entries}})
}

// Usage sends the context's use: used tokens of size (usage_update).
func (t *Turn) Usage(used, size int64) {
	t.Update(acp.SessionUpdate{Kind: acp.SessionUpdateKindUsageUpdate, UsageUpdate: &acp.UsageUpdate{Used: used, Size: size}})
}

// Permission is a permission request of the agent's, sent and not answered yet.
type Permission struct {
	t    *Turn
	p    *pending
	sent acp.RequestPermissionRequest
}

// AskPermission sends session/request_permission for the tool call with the options given; Wait
// waits for the answer, Withdraw withdraws it.
func (t *Turn) AskPermission(toolCall acp.ToolCallUpdate, options ...acp.PermissionOption) (*Permission, error) {
	req := acp.RequestPermissionRequest{SessionID: t.SessionID, ToolCall: toolCall, Options: orEmpty(options)}
	p, err := t.c.send(acp.MethodSessionRequestPermission, req)
	if err != nil {
		return nil, err
	}
	return &Permission{t: t, p: p, sent: req}, nil
}

// RequestPermission asks for a permission and waits for the outcome: acp.RequestPermissionOutcomeKindCancelled,
// or the option the client selected.
func (t *Turn) RequestPermission(toolCall acp.ToolCallUpdate, options ...acp.PermissionOption) (acp.RequestPermissionOutcome, error) {
	p, err := t.AskPermission(toolCall, options...)
	if err != nil {
		return acp.RequestPermissionOutcome{}, err
	}
	return p.Wait()
}

// Wait waits for the client's answer. An error answer is an *acp.Error; ErrDisconnected says the
// connection ended first.
func (p *Permission) Wait() (acp.RequestPermissionOutcome, error) {
	var res acp.RequestPermissionResponse
	if err := p.p.wait(&res); err != nil {
		return acp.RequestPermissionOutcome{}, err
	}
	return res.Outcome, nil
}

// Withdraw withdraws the request ($/cancel_request); the client still answers it.
func (p *Permission) Withdraw() {
	_ = p.t.c.rpc.Notify(acp.MethodCancelRequest, map[string]json.RawMessage{"requestId": p.p.id})
}

// ReadTextFile asks the client for a file's text (fs/read_text_file): from line (1-based; 0 for the
// start), at most limit lines (0 for all).
func (t *Turn) ReadTextFile(path string, line, limit int64) (string, error) {
	p, err := t.c.send(acp.MethodFsReadTextFile, acp.ReadTextFileRequest{SessionID: t.SessionID, Path: path, Line: line, Limit: limit})
	if err != nil {
		return "", err
	}
	var res acp.ReadTextFileResponse
	if err := p.wait(&res); err != nil {
		return "", err
	}
	return res.Content, nil
}

// WriteTextFile asks the client to write a file (fs/write_text_file).
func (t *Turn) WriteTextFile(path, content string) error {
	p, err := t.c.send(acp.MethodFsWriteTextFile, acp.WriteTextFileRequest{SessionID: t.SessionID, Path: path, Content: content})
	if err != nil {
		return err
	}
	return p.wait(nil)
}

// Call sends any request to the client (terminal/create, one the client does not know) and waits
// for its answer, decoded into result (which may be nil). An error answer is an *acp.Error.
func (t *Turn) Call(method string, params, result any) error {
	p, err := t.c.send(method, params)
	if err != nil {
		return err
	}
	return p.wait(result)
}

// Crash ends the agent as a crash does: its last words (on stderr in a process of its own, as
// plain text on its output in process) and then nothing more. A prompt handler that crashes
// returns "" (no answer).
func (t *Turn) Crash(lastWords ...string) {
	if t.c.a.t == nil {
		t.c.a.exit(lastWords)
		return
	}
	t.c.kill(lastWords)
}

// pending is a request of the agent's to the client, sent and not answered yet.
type pending struct {
	c      *conn
	method string
	id     json.RawMessage
	p      *jsonrpc.Pending
}

// send sends a request to the client.
func (c *conn) send(method string, params any) (*pending, error) {
	p, err := c.rpc.Send(method, params)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDisconnected, err)
	}
	return &pending{c: c, method: method, id: p.ID, p: p}, nil
}

// wait waits for the answer (recorded in Answers) and decodes its result into result.
func (p *pending) wait(result any) error {
	var raw json.RawMessage
	err := p.p.Wait(context.Background(), &raw)
	var rpcErr *acp.Error
	switch {
	case errors.As(err, &rpcErr):
		p.c.a.record(Message{ID: p.id, Method: p.method, Error: rpcErr}, true)
		return err
	case err != nil:
		return fmt.Errorf("%w: %w", ErrDisconnected, err)
	}
	p.c.a.record(Message{ID: p.id, Method: p.method, Result: raw}, true)
	if result == nil {
		return nil
	}
	return json.Unmarshal(raw, result)
}
