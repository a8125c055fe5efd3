package codextest

// This file is a turn as codex sends it: in thread/turns/list's history and while it runs.

import "github.com/hermes-lsp/hermes-lsp/codex"

// historyJSON is the turn as thread/turns/list answers with itemsView "full": every item it
// completed so far, and how it ended (inProgress while it runs).
func (ft *FakeTurn) historyJSON() map[string]any {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	status, completedAt, durationMs := ft.ended, any(nil), any(nil)
	if status == "" {
		status = codex.TurnInProgress
	} else {
		completedAt, durationMs = ft.started.Add(ft.duration).Unix(), ft.duration.Milliseconds()
	}
	items := make([]any, 0, len(ft.items))
	for _, it := range ft.items {
		items = append(items, it)
	}
	return map[string]any{
		"id": ft.TurnID, "items": items, "itemsView": "full", "status": status, "error": ft.turnErr,
		"startedAt": ft.started.Unix(), "completedAt": completedAt, "durationMs": durationMs,
	}
}

// turnJSON is the turn as codex sends it while it runs.
func (ft *FakeTurn) turnJSON(status string, started bool) map[string]any {
	var startedAt any
	if started {
		startedAt = ft.started.Unix()
	}
	return map[string]any{
		"id": ft.TurnID, "items": []any{}, "itemsView": "notLoaded", "status": status, "error": nil,
		"startedAt": startedAt, "completedAt": nil, "durationMs": nil,
	}
}
