package agenthost

// This file projects codex's notifications into the turn: events, the transcript's rows, tools,
// usage and compactions.

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// apply takes one notification into the turn; it reports whether the turn completed.
func (ts *turnRunner) apply(ev codex.Event) bool {
	ts.takeSteered()
	if ev.Err != nil {
		return false // malformed: logged by the client, never a tool event
	}
	turnID := ts.cur.turnID
	if turnID == "" {
		// A compaction turn learns its id from its turn/started.
		if v, ok := ev.Value.(*codex.TurnStartedParams); ok {
			a := ts.cur
			a.turnID = v.Turn.ID
			ts.moved(a, false)
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
			ts.emit(hermesproto.Event{Kind: hermesproto.EventKindAnswerDelta, Text: v.Delta})
		case codex.NotifyReasoningSummaryDelta, codex.NotifyReasoningTextDelta:
			ts.emit(hermesproto.Event{Kind: hermesproto.EventKindReasoningDelta, Text: v.Delta})
		case codex.NotifyCommandOutputDelta:
			ts.emit(hermesproto.Event{Kind: hermesproto.EventKindToolOutput, Text: v.Delta, Tool: &hermesproto.ToolEvent{ItemID: v.ItemID, Name: "exec_command"}})
		}
	case *codex.TurnPlanParams:
		ts.emit(hermesproto.Event{Kind: hermesproto.EventKindPlan, Plan: planOf(v.Plan), Text: v.Explanation})
	case *codex.TurnDiffParams:
		ts.emit(hermesproto.Event{Kind: hermesproto.EventKindDiff, Diff: v.Diff})
	case *codex.TokenUsageParams:
		u := v.TokenUsage
		ts.setUsage(&u, false)
		ts.noteContext(&u)
		ts.usageAfterCompaction = true
	case *codex.ErrorParams:
		if !v.WillRetry {
			e := v.Error
			ts.turnErr = &e
		}
		ts.emit(hermesproto.Event{Kind: hermesproto.EventKindError, Text: v.Error.Error()})
	case *codex.TurnCompletedParams:
		ts.status = v.Turn.Status
		if e := v.Turn.Error; e.Message != "" || e.CodexErrorInfo.Kind() != "" {
			ts.turnErr = &e
		}
		ts.closeOpen("turn " + v.Turn.Status)
		return true
	}
	return false
}

func (ts *turnRunner) itemStarted(item *codex.Item) {
	if item.Type == "" || item.ID == "" || !isTool(item) {
		return
	}
	ts.open[item.ID] = &openItem{item: *item, started: time.Now()}
	ts.emit(hermesproto.Event{Kind: hermesproto.EventKindToolStarted, Tool: &hermesproto.ToolEvent{
		ItemID: item.ID, CallID: ToolCallID(item), Name: ToolName(item),
		Args: ToolArgs(item), Preview: ToolPreview(item), Status: item.Status, Changes: toolChanges(item),
	}})
}

func (ts *turnRunner) itemCompleted(item *codex.Item) {
	switch {
	case item.Type == "" || item.ID == "":
		return
	case item.Type == codex.ItemAgentMessage:
		ts.finalText = item.Text
		ts.addMessages(hermesproto.Message{Role: "assistant", Content: item.Text, Reasoning: ts.takeReasoning()})
		ts.live.answer(item.Text)
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
func (ts *turnRunner) toolDone(item *codex.Item, took time.Duration, note string) {
	result, isErr := ToolResult(item)
	status := item.Status
	if note != "" {
		result, isErr, status = note, true, "incomplete"
	} else if countsAsIteration(item) {
		ts.iterations++
	}
	args := ToolArgs(item)
	call := hermesproto.ToolCall{ID: ToolCallID(item), Type: "function", Function: hermesproto.ToolFunction{Name: ToolName(item), Arguments: string(args)}}
	ts.addMessages(
		hermesproto.Message{Role: "assistant", ToolCalls: []hermesproto.ToolCall{call}, Reasoning: ts.takeReasoning()},
		hermesproto.Message{Role: "tool", ToolCallID: call.ID, Content: result},
	)
	ts.live.tool(item, took, ts.settledApprovals(), note)
	changes := toolChanges(item)
	if note == "" && item.Type == codex.ItemFileChange && item.Status == codex.ItemCompleted {
		ts.s.patchImages(ts.turn, item.ID, changes) // what the patch did, for the changes under review
	}
	// The event goes out once the row is on disk: a reader of the transcript told of it finds it.
	ts.live.hold(ts.cur.stamp(hermesproto.Event{Kind: hermesproto.EventKindToolCompleted, Tool: &hermesproto.ToolEvent{
		ItemID: item.ID, CallID: call.ID, Name: call.Function.Name, Args: args,
		Preview: ToolPreview(item), DurationMs: took.Milliseconds(), IsError: isErr, Result: result, Status: status,
		ExitCode: item.ExitCode, Changes: changes,
	}}))
}

func (ts *turnRunner) takeReasoning() string {
	r := ts.reasoning.String()
	ts.reasoning.Reset()
	return r
}

// closeOpen closes the items still open when the turn ended.
func (ts *turnRunner) closeOpen(why string) {
	for id, o := range ts.open {
		delete(ts.open, id)
		ts.toolDone(&o.item, time.Since(o.started), "[did not complete: "+why+"]")
	}
}

// setUsage takes a token usage update (chat says it is a chat fallback's, not the thread's), tells
// the session for its status, and reports it.
func (ts *turnRunner) setUsage(u *codex.ThreadTokenUsage, chat bool) {
	ts.usage, ts.chatUsage = u, chat
	usage := usageOf(u)
	ts.lastUsage.Store(&usage)
	ts.emit(hermesproto.Event{Kind: hermesproto.EventKindUsage, Usage: &usage})
}
