package agenthost

// This file is a thread's history as codex keeps it (thread/turns/list with every item), made fit
// for an editor to show: the prompts, the answers, the tool calls and the compactions of its newest
// turns, each text cleaned of what could act on a terminal or an editor and bounded.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// Bounds of a thread's history: codex's text (the model's, a tool's, a repository's) is hostile,
// and a long thread must not make one answer of many megabytes.
const (
	// HistoryMaxTurns is the most turns ThreadHistory returns: the newest.
	HistoryMaxTurns = 50
	// historyMaxItems is the most items of one turn: its first ones (fewer when their text passes
	// historyMaxBytes).
	historyMaxItems = 400
	// historyMaxText bounds a prompt, an answer or a diff, in bytes.
	historyMaxText = 64 * 1024
	// historyMaxOutput bounds a tool's output, in bytes.
	historyMaxOutput = 16 * 1024
	// historyMaxBytes bounds the text of the whole history: older turns beyond it are left out.
	historyMaxBytes = 2 * 1024 * 1024
	// historyMaxLine bounds one-line fields (ids, names, statuses, an error's first words).
	historyMaxLine = 200
)

// ThreadHistory returns the newest turns of one of the folder's threads (threadID; empty: the
// folder's thread), oldest first, as codex keeps them. A folder with no thread yet has an empty
// history, and codex is not started for it. Any other thread must be one of the folder's
// (thread/list, filtered to its cwd), as for ResumeThread.
func (s *Session) ThreadHistory(ctx context.Context, threadID string) (hermesproto.ThreadHistory, error) {
	h := hermesproto.ThreadHistory{Folder: s.folder, Turns: []hermesproto.HistoryTurn{}}
	current, _, err := s.thread()
	if err != nil {
		return h, err
	}
	if threadID == "" {
		threadID = current
	}
	if threadID == "" {
		return h, nil
	}
	if !isFileID(threadID) {
		return h, fmt.Errorf("%q is not a thread id", safetext.LineCut(threadID, 80))
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	client, _, err := s.h.codexClient(ctx)
	if err != nil {
		return h, err
	}
	if threadID != current {
		found, err := folderHasThread(ctx, client, s.folder, threadID)
		if err != nil {
			return h, err
		}
		if !found {
			return h, fmt.Errorf("thread %s is not one of %s's threads", threadID, s.folder)
		}
	}
	res, err := client.ListTurns(ctx, codex.ThreadTurnsListParams{
		ThreadID: threadID, Limit: HistoryMaxTurns, SortDirection: "desc", ItemsView: json.RawMessage(`"full"`),
	})
	if err != nil {
		return h, fmt.Errorf("thread/turns/list: %w", err)
	}
	h.ThreadID = threadID
	h.Turns, h.Truncated = historyTurns(res.Data)
	h.Truncated = h.Truncated || res.NextCursor != ""
	return h, nil
}

// historyTurns makes codex's turns, newest first, the history's, oldest first: as many of the
// newest as fit in historyMaxBytes (truncated says some were left out), at most HistoryMaxTurns.
func historyTurns(turns []codex.Turn) (out []hermesproto.HistoryTurn, truncated bool) {
	out = []hermesproto.HistoryTurn{}
	size := 0
	for i, t := range turns {
		if i == HistoryMaxTurns {
			truncated = true
			break
		}
		ht, n := historyTurn(t)
		if size+n > historyMaxBytes && len(out) > 0 {
			truncated = true
			break
		}
		size += n
		out = append(out, ht)
	}
	slices.Reverse(out)
	return out, truncated
}

// historyTurn is one turn of the history, and about how many bytes of text it holds.
func historyTurn(t codex.Turn) (hermesproto.HistoryTurn, int) {
	ht := hermesproto.HistoryTurn{
		TurnID: safetext.LineCut(t.ID, historyMaxLine), Status: safetext.LineCut(t.Status, historyMaxLine),
		DurationMs: max(0, t.DurationMs), Items: []hermesproto.HistoryItem{},
	}
	if t.Error.Message != "" || t.Error.CodexErrorInfo.Kind() != "" {
		ht.Error = safetext.CutBytes(safetext.Clean(t.Error.Error()), historyMaxOutput)
	}
	size := len(ht.TurnID) + len(ht.Error)
	for i := range t.Items {
		if len(ht.Items) == historyMaxItems {
			break
		}
		it, ok := historyItem(&t.Items[i])
		if !ok {
			continue
		}
		n := len(it.ItemID) + len(it.Text) + len(it.Name) + len(it.Preview) + len(it.Output) + len(it.Diff)
		if size+n > historyMaxBytes {
			break // a turn alone never passes the whole history's bound: its first items are kept
		}
		size += n
		ht.Items = append(ht.Items, it)
	}
	return ht, size
}

// historyItem is what the history shows of an item: a prompt, an answer, a tool call or a
// compaction. Reasoning, plans and review markers are not shown (ok false).
func historyItem(item *codex.Item) (hermesproto.HistoryItem, bool) {
	it := hermesproto.HistoryItem{ItemID: safetext.LineCut(item.ID, historyMaxLine)}
	switch {
	case item.Type == codex.ItemUserMessage:
		it.Kind = hermesproto.HistoryItemKindUser
		it.Text = historyText(userText(item.Content), historyMaxText)
	case item.Type == codex.ItemAgentMessage:
		it.Kind = hermesproto.HistoryItemKindAnswer
		it.Text = historyText(item.Text, historyMaxText)
	case item.Type == codex.ItemContextCompaction:
		it.Kind = hermesproto.HistoryItemKindCompaction
	case isTool(item):
		it.Kind = hermesproto.HistoryItemKindTool
		it.Name = safetext.LineCut(ToolName(item), historyMaxLine)
		it.Preview = safetext.LineCut(ToolPreview(item), previewMax)
		it.Status = safetext.LineCut(item.Status, historyMaxLine)
		result, isErr := ToolResult(item)
		it.IsError = isErr
		if item.ExitCode != nil {
			code := *item.ExitCode
			it.ExitCode = &code
		}
		if item.DurationMs != nil {
			it.DurationMs = max(0, *item.DurationMs)
		}
		if item.Type == codex.ItemCommandExecution && item.AggregatedOutput != nil {
			result = *item.AggregatedOutput // the exit code has its own field
		}
		it.Output = historyText(result, historyMaxOutput)
		if changes := toolChanges(item); len(changes) > 0 {
			it.Diff = historyText(hermesproto.Approval{Changes: changes}.Diff(), historyMaxText)
		}
	default:
		return it, false
	}
	return it, true
}

// historyText is text of codex's for the history: without control characters, at most n bytes.
func historyText(s string, n int) string {
	if len(s) > 4*n {
		s = s[:4*n] // Clean never grows text: cut what cannot be kept first, to clean less
	}
	return safetext.CutBytes(safetext.Clean(s), n)
}

// userText is the text of a userMessage item's content (codex's UserInput list): its text parts,
// one after the other; other inputs (images, files) are named.
func userText(content json.RawMessage) string {
	var inputs []codex.UserInput
	if json.Unmarshal(content, &inputs) != nil {
		return ""
	}
	parts := make([]string, 0, len(inputs))
	for _, in := range inputs {
		switch {
		case in.Type == "text":
			parts = append(parts, in.Text)
		case in.Path != "":
			parts = append(parts, "["+in.Type+": "+in.Path+"]")
		case in.Type != "":
			parts = append(parts, "["+in.Type+"]")
		}
	}
	return strings.Join(parts, "\n")
}
