package acpagent

// This file turns a session's updates into codex's notifications: the answer and the reasoning as
// items with their deltas, the plan, the usage. Tool calls are tools.go's.

import (
	"context"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// handler is the Agent as the ACP client's Handler.
type handler struct{ a *Agent }

// SessionUpdate takes one update of a session's running turn. An update of no turn (the replay of
// session/load, or one that comes after its prompt's answer) is dropped.
func (h handler) SessionUpdate(_ context.Context, n *acp.SessionNotification) {
	a := h.a
	u := &n.Update
	a.mu.Lock()
	s := a.sessions[n.SessionID]
	if u.ConfigOptionUpdate != nil {
		// The session's options, models among them, may change between turns too.
		if m, ok := modelOptionOf(u.ConfigOptionUpdate.ConfigOptions); ok && s != nil {
			a.models = m
		}
	}
	a.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turn
	if t == nil {
		return
	}
	switch {
	case u.Kind == acp.SessionUpdateKindAgentMessageChunk && u.ContentChunk != nil:
		s.closeThought(t)
		s.streamText(t, &t.msg, codex.ItemAgentMessage, codex.NotifyAgentMessageDelta, u.ContentChunk)
	case u.Kind == acp.SessionUpdateKindAgentThoughtChunk && u.ContentChunk != nil:
		s.streamText(t, &t.thought, codex.ItemReasoning, codex.NotifyReasoningTextDelta, u.ContentChunk)
	case u.ToolCall != nil:
		s.toolCall(t, u.ToolCall)
	case u.ToolCallUpdate != nil:
		s.toolCallUpdate(t, u.ToolCallUpdate)
	case u.Plan != nil:
		s.plan(t, u.Plan)
	case u.UsageUpdate != nil:
		s.usageUpdate(t, u.UsageUpdate)
	}
}

// streamText adds a chunk to the item *cur of type typ (the answer, or the reasoning), starting it
// first when there is none or the chunk names another message, and sends the chunk as a delta.
func (s *session) streamText(t *turn, cur **textItem, typ, deltaMethod string, c *acp.ContentChunk) {
	text := blockText(c.Content)
	if *cur != nil && c.MessageID != "" && (*cur).messageID != "" && c.MessageID != (*cur).messageID {
		s.closeText(t, cur, typ)
	}
	if *cur == nil {
		t.seq++
		*cur = &textItem{id: fmt.Sprintf("%s-%d", typ, t.seq), messageID: c.MessageID}
		s.publish(t, codex.NotifyItemStarted, &codex.ItemParams{ThreadID: s.id, TurnID: t.id, Item: codex.Item{Type: typ, ID: (*cur).id}})
	}
	if text == "" {
		return
	}
	(*cur).text.WriteString(text)
	s.publish(t, deltaMethod, &codex.DeltaParams{ThreadID: s.id, TurnID: t.id, ItemID: (*cur).id, Delta: text})
}

// closeText completes the item *cur of type typ with its whole text.
func (s *session) closeText(t *turn, cur **textItem, typ string) {
	it := *cur
	if it == nil {
		return
	}
	*cur = nil
	item := codex.Item{Type: typ, ID: it.id}
	if typ == codex.ItemReasoning {
		item.Summary = []string{it.text.String()}
	} else {
		item.Text = it.text.String()
	}
	s.publish(t, codex.NotifyItemCompleted, &codex.ItemParams{ThreadID: s.id, TurnID: t.id, Item: item})
}

// closeThought completes the reasoning: the answer has begun, or a tool call.
func (s *session) closeThought(t *turn) { s.closeText(t, &t.thought, codex.ItemReasoning) }

// closeItems completes what is still open when the turn ends: the reasoning, the answer, and the
// tool calls the agent never said the end of (failed, with why).
func (s *session) closeItems(t *turn, why string) {
	s.closeThought(t)
	s.closeText(t, &t.msg, codex.ItemAgentMessage)
	for _, tc := range t.toolsInOrder() {
		if !tc.done {
			tc.status = acp.ToolCallStatusFailed
			tc.note = "[did not complete: " + why + "]"
			s.completeTool(t, tc)
		}
	}
}

// blockText is the text of a content block: its text, a link's name and address, or a mark for
// what has no text.
func blockText(b acp.ContentBlock) string {
	switch {
	case b.TextContent != nil:
		return b.TextContent.Text
	case b.ResourceLink != nil:
		return fmt.Sprintf("[%s](%s)", safetext.LineCut(b.ResourceLink.Name, 200), safetext.LineCut(b.ResourceLink.URI, 500))
	case b.ImageContent != nil:
		return "[image]"
	case b.AudioContent != nil:
		return "[audio]"
	case b.EmbeddedResource != nil:
		return "[resource]"
	}
	return ""
}

// plan reports the agent's plan, whole, as codex's plan: each entry a step, pending, inProgress or
// completed.
func (s *session) plan(t *turn, p *acp.Plan) {
	steps := make([]codex.PlanStep, 0, min(len(p.Entries), maxPlanSteps))
	for _, e := range p.Entries {
		if len(steps) == maxPlanSteps {
			break
		}
		status := codex.ItemInProgress
		switch e.Status {
		case acp.PlanEntryStatusPending:
			status = "pending"
		case acp.PlanEntryStatusCompleted:
			status = codex.ItemCompleted
		}
		steps = append(steps, codex.PlanStep{Step: safetext.LineCut(e.Content, maxStepChars), Status: status})
	}
	s.publish(t, codex.NotifyTurnPlanUpdated, &codex.TurnPlanParams{ThreadID: s.id, TurnID: t.id, Plan: steps})
}

// Bounds of a plan: how many steps are shown, and how long each may be.
const (
	maxPlanSteps = 100
	maxStepChars = 500
)

// usageUpdate reports the context the session holds: its window's size, and how much of it is
// used (the last prompt's size, as codex has it).
func (s *session) usageUpdate(t *turn, u *acp.UsageUpdate) {
	if u.Size > 0 {
		s.window = u.Size
	}
	used := max(0, u.Used)
	last := codex.TokenUsage{InputTokens: used, TotalTokens: used}
	s.publishUsage(t, codex.ThreadTokenUsage{Last: last, Total: s.total, ModelContextWindow: s.window})
}

// reportUsage reports a prompt's usage, as its answer gives it. codex's input tokens count the
// cached ones, read and written (agenthost.UsageFrom takes both out again for the fresh input);
// ACP's leave them out, so they are added back. The session's total grows by it.
func (s *session) reportUsage(t *turn, u *acp.PromptUsage) {
	read, written := max(0, u.CachedReadTokens), max(0, u.CachedWriteTokens)
	last := codex.TokenUsage{
		InputTokens:           max(0, u.InputTokens) + read + written,
		CachedInputTokens:     read,
		CacheWriteInputTokens: written,
		OutputTokens:          max(0, u.OutputTokens),
		ReasoningOutputTokens: max(0, u.ThoughtTokens),
	}
	last.TotalTokens = last.InputTokens + last.OutputTokens
	s.total.InputTokens += last.InputTokens
	s.total.CachedInputTokens += last.CachedInputTokens
	s.total.CacheWriteInputTokens += last.CacheWriteInputTokens
	s.total.OutputTokens += last.OutputTokens
	s.total.ReasoningOutputTokens += last.ReasoningOutputTokens
	s.total.TotalTokens += last.TotalTokens
	s.publishUsage(t, codex.ThreadTokenUsage{Last: last, Total: s.total, ModelContextWindow: s.window})
}

func (s *session) publishUsage(t *turn, u codex.ThreadTokenUsage) {
	t.usage = &u
	s.publish(t, codex.NotifyTokenUsageUpdated, &codex.TokenUsageParams{ThreadID: s.id, TurnID: t.id, TokenUsage: u})
}
