package codextest

// This file is a fake turn's token usage: the updates codex sends, and the thread's running total.

import "github.com/hermes-lsp/hermes-lsp/codex"

// Usage sends thread/tokenUsage/updated: the last model call's usage, the thread's total, and the
// context window (0 sends null).
func (ft *FakeTurn) Usage(last, total codex.TokenUsage, window int64) {
	var w any
	if window != 0 {
		w = window
	}
	ft.Notify(codex.NotifyTokenUsageUpdated, map[string]any{
		"tokenUsage": map[string]any{"last": last, "total": total, "modelContextWindow": w},
	})
}

// ModelCall reports one model request's usage as codex does: last is the call's own, total the
// thread's running total with it added (kept per thread, across turns and connections).
func (ft *FakeTurn) ModelCall(last codex.TokenUsage, window int64) {
	f := ft.conn.f
	f.mu.Lock()
	var total codex.TokenUsage
	if th := f.threads[ft.ThreadID]; th != nil {
		th.total = addTokens(th.total, last)
		total = th.total
	}
	f.mu.Unlock()
	ft.Usage(last, total, window)
}

// ResendUsage sends the thread's running total again with last, as codex does when a turn starts
// (before any model call of that turn).
func (ft *FakeTurn) ResendUsage(last codex.TokenUsage, window int64) {
	f := ft.conn.f
	f.mu.Lock()
	var total codex.TokenUsage
	if th := f.threads[ft.ThreadID]; th != nil {
		total = th.total
	}
	f.mu.Unlock()
	ft.Usage(last, total, window)
}

func addTokens(a, b codex.TokenUsage) codex.TokenUsage {
	return codex.TokenUsage{
		InputTokens:           a.InputTokens + b.InputTokens,
		CachedInputTokens:     a.CachedInputTokens + b.CachedInputTokens,
		CacheWriteInputTokens: a.CacheWriteInputTokens + b.CacheWriteInputTokens,
		OutputTokens:          a.OutputTokens + b.OutputTokens,
		ReasoningOutputTokens: a.ReasoningOutputTokens + b.ReasoningOutputTokens,
		TotalTokens:           a.TotalTokens + b.TotalTokens,
	}
}
