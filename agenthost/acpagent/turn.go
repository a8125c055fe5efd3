package acpagent

// This file is a turn: one session/prompt, from turn/started to the turn/completed its answer's
// stop reason makes, and the session it runs in.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// session is an ACP session of the agent's: a thread. Its lock orders what is made of the
// session's updates, requests and prompt: each event goes to the host's notification hook and to
// the streams under it, so that the host sees every event in the order its streams do.
type session struct {
	a      *Agent
	id     string
	folder string // the session's cwd: the one folder its files may be read and written in

	mu     sync.Mutex
	turn   *turn                // the running turn; nil between turns
	subs   map[*stream]struct{} // Subscribe's streams
	total  codex.TokenUsage     // the usage of the session's prompts here, summed
	window int64                // the context window, as the last usage_update gave it
}

// turn is the running prompt's state; its session's lock guards it.
type turn struct {
	id     string
	stream *stream
	// ctx ends when the turn does: the permission requests still asked about end with it.
	ctx    context.Context
	cancel context.CancelFunc

	seq       int              // items numbered so far
	msg       *textItem        // the answer being streamed
	thought   *textItem        // the reasoning being streamed
	tools     map[string]*tool // by the agent's toolCallId
	usage     *codex.ThreadTokenUsage
	cancelled bool // session/cancel was sent
}

// textItem is an agentMessage or reasoning item being streamed.
type textItem struct {
	id        string
	messageID string // the agent's messageId, when it gives one: another starts a new item
	text      strings.Builder
}

// turnSeq numbers the turns of this process, for their ids.
var turnSeq atomic.Uint64

// newTurnID returns a turn id that no other turn of the folder has, in this process or another:
// fit to name a checkpoint file ([A-Za-z0-9_-]).
func newTurnID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("acp-%s-%d", hex.EncodeToString(b[:]), turnSeq.Add(1))
}

// Subscribe streams the events of the session's turns until closed.
func (a *Agent) Subscribe(threadID string) agenthost.Stream {
	s, err := a.session(threadID)
	if err != nil {
		return newEndedStream(err)
	}
	st := a.newStream(func(st *stream) {
		s.mu.Lock()
		delete(s.subs, st)
		s.mu.Unlock()
	})
	if st == nil {
		return newEndedStream(errClosed)
	}
	s.mu.Lock()
	s.subs[st] = struct{}{}
	s.mu.Unlock()
	// The agent may have ended before the subscription was added: watch would not see it then.
	select {
	case <-a.client.Done():
		st.end(a.client.Err())
	case <-a.ctx.Done():
		st.end(errClosed)
	default:
	}
	return st
}

// endSubscriptions ends the session's subscriptions: the agent has ended.
func (s *session) endSubscriptions(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.subs {
		st.end(err)
	}
}

// StartTurn sends p's input to the session p.ThreadID as a prompt and returns at once, with the
// turn's stream: turn/started first, then what the agent does, then turn/completed.
func (a *Agent) StartTurn(ctx context.Context, p codex.TurnStartParams) (*codex.Turn, agenthost.Stream, error) {
	blocks, err := a.promptOf(p.Input)
	if err != nil {
		return nil, nil, err
	}
	return a.startPrompt(ctx, p.ThreadID, p.Model, blocks)
}

// startPrompt starts a turn of blocks on the session threadID (its model set first, when given).
func (a *Agent) startPrompt(ctx context.Context, threadID, model string, blocks []acp.ContentBlock) (*codex.Turn, agenthost.Stream, error) {
	s, err := a.session(threadID)
	if err != nil {
		return nil, nil, err
	}
	if err := a.setModel(ctx, s.id, model); err != nil {
		a.log.Warn("the turn runs on the agent's model: it did not take the one chosen", "agent", a.name, "model", model, "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turn != nil {
		return nil, nil, fmt.Errorf("a prompt is running in the session %s already: wait for it, or stop it first", s.id)
	}
	if err := a.client.Err(); err != nil {
		return nil, nil, err
	}
	st := a.newStream(nil)
	if st == nil {
		return nil, nil, errClosed
	}
	t := &turn{id: newTurnID(), stream: st, tools: map[string]*tool{}}
	t.ctx, t.cancel = context.WithCancel(a.ctx)
	prompt := func() {
		res, err := a.client.PromptWithUsage(a.ctx, s.id, blocks)
		s.end(t, res, err)
	}
	// Registered before the prompt can end (s.end takes s.mu, held until then).
	if !a.spawn(prompt) {
		t.cancel()
		st.end(errClosed)
		return nil, nil, errClosed
	}
	s.turn = t
	started := codex.Turn{ID: t.id, Status: codex.TurnInProgress, Items: []codex.ThreadItem{}}
	s.publish(t, codex.NotifyTurnStarted, &codex.TurnStartedParams{ThreadID: s.id, Turn: started})
	return &started, t.stream, nil
}

// promptOf makes the turn's input the prompt's content blocks: text as text, a file as a link to
// it (resource_link, which every ACP agent takes).
func (a *Agent) promptOf(input []codex.UserInput) ([]acp.ContentBlock, error) {
	var blocks []acp.ContentBlock
	for _, in := range input {
		switch {
		case in.Type == "text":
			blocks = append(blocks, acp.TextBlock(in.Text))
		case in.Path != "" && filepath.IsAbs(in.Path):
			link := &acp.ResourceLink{Name: filepath.Base(in.Path), URI: workspace.URIFromPath(in.Path)}
			blocks = append(blocks, acp.ContentBlock{Kind: acp.ContentBlockKindResourceLink, ResourceLink: link})
		default:
			return nil, fmt.Errorf("the ACP agent %s takes text and files; not an input of type %q", a.name, in.Type)
		}
	}
	if len(blocks) == 0 {
		return nil, errors.New("an empty prompt")
	}
	return blocks, nil
}

// InterruptTurn cancels the session's prompt (session/cancel): the agent ends it with the stop
// reason cancelled, and the permission requests it is waiting on are answered "cancelled". A turn
// that has ended already is left as it is.
func (a *Agent) InterruptTurn(ctx context.Context, threadID, turnID string) error {
	s, err := a.session(threadID)
	if err != nil {
		return err
	}
	s.mu.Lock()
	t := s.turn
	if t == nil || t.id != turnID {
		s.mu.Unlock()
		return nil
	}
	t.cancelled = true
	s.mu.Unlock()
	if err := a.client.Cancel(s.id); err != nil {
		return fmt.Errorf("session/cancel: %w", err)
	}
	return nil
}

// publish hands the event of t to the host's notification hook, then to t's stream and the
// session's subscriptions. s.mu is held.
func (s *session) publish(t *turn, method string, v any) {
	params, err := json.Marshal(v)
	if err != nil {
		s.a.log.Warn("an event that does not encode", "method", method, "err", err)
		return
	}
	ev := codex.Event{Method: method, ThreadID: s.id, TurnID: t.id, Params: params, Value: v}
	if s.a.opts.OnNotification != nil {
		s.a.opts.OnNotification(ev)
	}
	t.stream.push(ev)
	for st := range s.subs {
		st.push(ev)
	}
}

// end ends the turn t with the prompt's answer (or its failure): the items still open are
// completed, the usage and any error reported, and turn/completed sent with the status the stop
// reason makes.
func (s *session) end(t *turn, res *acp.PromptAnswer, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer t.stream.end(nil)
	t.cancel()
	if s.turn == t {
		s.turn = nil
	}
	why := "the turn ended"
	if err != nil {
		why = "the prompt failed"
	}
	s.closeItems(t, why)
	if res != nil && res.Usage != nil {
		s.reportUsage(t, res.Usage)
	}
	done := codex.Turn{ID: t.id, Status: codex.TurnCompleted, Items: []codex.ThreadItem{}}
	var warning string
	switch {
	case err != nil:
		done.Status = codex.TurnFailed
		done.Error = codex.TurnError{Message: s.a.failure(err)}
	case res.StopReason == acp.StopReasonEndTurn:
	case res.StopReason == acp.StopReasonCancelled:
		done.Status = codex.TurnInterrupted
	case res.StopReason == acp.StopReasonMaxTokens:
		warning = s.a.name + " stopped: the model reached its limit of output tokens (max_tokens). Ask it to go on, or to do less at once."
	case res.StopReason == acp.StopReasonMaxTurnRequests:
		warning = s.a.name + " stopped: the turn reached the agent's limit of model requests (max_turn_requests). Ask it to go on."
	case res.StopReason == acp.StopReasonRefusal:
		warning = s.a.name + " refused to go on with this prompt (refusal)."
	case t.cancelled:
		done.Status = codex.TurnInterrupted // a stop reason it does not know, after a cancel
	default:
		warning = fmt.Sprintf("%s stopped for a reason hermes-lsp does not know: %q.", s.a.name, safetext.LineCut(res.StopReason, 80))
	}
	if warning != "" {
		s.publish(t, codex.NotifyError, &codex.ErrorParams{ThreadID: s.id, TurnID: t.id, Error: codex.TurnError{Message: warning}})
	}
	if done.Status == codex.TurnFailed {
		s.publish(t, codex.NotifyError, &codex.ErrorParams{ThreadID: s.id, TurnID: t.id, Error: done.Error})
	}
	s.publish(t, codex.NotifyTurnCompleted, &codex.TurnCompletedParams{ThreadID: s.id, Turn: done})
}

// failure is what a person is told of a prompt that failed: its error, with what the agent wrote
// last on its stderr when the error does not carry it already, and what to do about a sign-in.
func (a *Agent) failure(err error) string {
	msg := a.explain(err).Error()
	if tail := strings.TrimSpace(a.client.StderrTail(20)); tail != "" && !strings.Contains(msg, tail) {
		msg += "\n" + a.name + "'s last output:\n" + tail
	}
	return msg
}

// explain adds what to do to an error of the agent's that asks for it: a sign-in.
func (a *Agent) explain(err error) error {
	var rpcErr *acp.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == acp.ErrorCodeAuthenticationRequired {
		return fmt.Errorf("%w: %s wants you to sign in: run it once in a terminal (or give it its key in hermes.agent.env), then ask again", err, a.name)
	}
	return err
}
