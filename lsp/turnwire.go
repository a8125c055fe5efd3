package lsp

// This file converts the host's turn events and results to the hermes/turnEvent wire types.

import (
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// wireEvent is ev as hermes/turnEvent sends it.
func wireEvent(ev agenthost.Event) hermesproto.Event {
	out := hermesproto.Event{
		Kind: hermesproto.EventKind(ev.Kind), ThreadID: ev.ThreadID, TurnID: ev.TurnID, Time: ev.Time,
		Text: ev.Text, Diff: ev.Diff,
	}
	if t := ev.Tool; t != nil {
		out.Tool = &hermesproto.ToolEvent{
			ItemID: t.ItemID, CallID: t.CallID, Name: t.Name, Args: t.Args, Preview: t.Preview,
			DurationMs: t.DurationMs, IsError: t.IsError, Result: t.Result, Status: t.Status, ExitCode: t.ExitCode,
		}
	}
	for _, p := range ev.Plan {
		out.Plan = append(out.Plan, hermesproto.PlanStep{Step: p.Step, Status: p.Status})
	}
	if ev.Usage != nil {
		u := wireUsage(*ev.Usage)
		out.Usage = &u
	}
	if c := ev.Compaction; c != nil {
		out.Compaction = &hermesproto.Compaction{SessionID: c.SessionID, Count: c.Count, Runtime: c.Runtime, ThreadID: c.ThreadID, TurnID: c.TurnID}
	}
	if ev.Approval != nil {
		a := wireApproval(*ev.Approval)
		out.Approval = &a
	}
	if ev.Result != nil {
		r := wireResult(*ev.Result)
		out.Result = &r
	}
	return out
}

func wireUsage(u agenthost.Usage) hermesproto.Usage {
	return hermesproto.Usage{
		Prompt: u.Prompt, Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output,
		Completion: u.Completion, Reasoning: u.Reasoning, Total: u.Total, ContextWindow: u.ContextWindow, LastPrompt: u.LastPrompt,
	}
}

func wireApproval(a agenthost.Approval) hermesproto.Approval {
	out := hermesproto.Approval{
		ID: a.ID, Kind: hermesproto.ApprovalKind(a.Kind), Folder: a.Folder, ThreadID: a.ThreadID, TurnID: a.TurnID,
		ItemID: a.ItemID, Summary: a.Summary, Command: a.Command, Cwd: a.Cwd, GrantRoot: a.GrantRoot, Reason: a.Reason,
		Decision: hermesproto.Decision(a.Decision), DecidedBy: a.DecidedBy, AutoSource: a.AutoSource, Asked: a.Asked,
	}
	for _, c := range a.Changes {
		out.Changes = append(out.Changes, hermesproto.FileChange{
			Path: c.Path, Kind: hermesproto.FileChangeKind{Type: c.Kind.Type, MovePath: c.Kind.MovePath}, Diff: c.Diff,
		})
	}
	return out
}

func wireResult(r agenthost.Result) hermesproto.Result {
	out := hermesproto.Result{
		FinalText: r.FinalText, ToolIterations: r.ToolIterations, Status: r.Status, Completed: r.Completed,
		Partial: r.Partial, Error: r.Error, ThreadID: r.ThreadID, TurnID: r.TurnID, APICalls: r.APICalls,
		Usage: wireUsage(r.Usage), Compacted: r.Compacted, Fallback: r.Fallback, NewThread: r.NewThread,
		Retired: r.Retired, TranscriptPath: r.TranscriptPath, DurationMs: r.DurationMs,
		OmittedMessages: r.OmittedMessages,
	}
	if r.Messages != nil {
		// An empty transcript is sent as [], a missing one as null, as the host's type does.
		out.Messages = make([]hermesproto.Message, 0, len(r.Messages))
	}
	for _, m := range r.Messages {
		wm := hermesproto.Message{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, hermesproto.ToolCall{
				ID: tc.ID, Type: tc.Type, Function: hermesproto.ToolFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
			})
		}
		out.Messages = append(out.Messages, wm)
	}
	return out
}
