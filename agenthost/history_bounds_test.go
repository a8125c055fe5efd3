package agenthost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// TestHistoryBounds: a long thread's history keeps its newest turns, oldest first: at most
// HistoryMaxTurns, fewer when their text passes historyMaxBytes, and at most historyMaxItems items
// of a turn; truncated says turns were left out.
func TestHistoryBounds(t *testing.T) {
	// codex answers newest first.
	newestFirst := func(n int, items func(i int) []codex.Item) []codex.Turn {
		turns := make([]codex.Turn, n)
		for i := range n {
			turns[i] = codex.Turn{ID: fmt.Sprintf("turn-%d", n-i), Status: codex.TurnCompleted, Items: items(n - i)}
		}
		return turns
	}
	prompt := func(i int) []codex.Item {
		return []codex.Item{{Type: codex.ItemUserMessage, ID: "u", Content: []byte(fmt.Sprintf(`[{"type":"text","text":"prompt %d"}]`, i))}}
	}

	few, truncated := historyTurns(newestFirst(3, prompt))
	if truncated || len(few) != 3 || few[0].TurnID != "turn-1" || few[2].TurnID != "turn-3" || few[2].Items[0].Text != "prompt 3" {
		t.Errorf("three turns: truncated %v, %+v", truncated, few)
	}

	many, truncated := historyTurns(newestFirst(HistoryMaxTurns+10, prompt))
	if !truncated || len(many) != HistoryMaxTurns || many[0].TurnID != "turn-11" || many[len(many)-1].TurnID != fmt.Sprintf("turn-%d", HistoryMaxTurns+10) {
		t.Errorf("%d turns: truncated %v, %d kept from %s to %s", HistoryMaxTurns+10, truncated, len(many), many[0].TurnID, many[len(many)-1].TurnID)
	}

	out := strings.Repeat("o", 100*1024)
	big, truncated := historyTurns(newestFirst(40, func(int) []codex.Item {
		items := make([]codex.Item, 10)
		for i := range items {
			items[i] = codex.Item{Type: codex.ItemCommandExecution, ID: fmt.Sprint("call_", i), Command: "cat big", Status: codex.ItemCompleted, AggregatedOutput: &out}
		}
		return items
	}))
	size := 0
	for _, turn := range big {
		for _, it := range turn.Items {
			size += len(it.Output)
		}
	}
	if !truncated || len(big) == 0 || len(big) == 40 || size > historyMaxBytes || big[len(big)-1].TurnID != "turn-40" {
		t.Errorf("40 turns of 160 KiB: truncated %v, %d turns kept, %d bytes (at most %d), newest %s", truncated, len(big), size, historyMaxBytes, big[len(big)-1].TurnID)
	}

	one, _ := historyTurns(newestFirst(1, func(int) []codex.Item {
		items := make([]codex.Item, historyMaxItems+50)
		for i := range items {
			items[i] = codex.Item{Type: codex.ItemAgentMessage, ID: fmt.Sprint("msg_", i), Text: "hi"}
		}
		return items
	}))
	if n := len(one[0].Items); n != historyMaxItems {
		t.Errorf("a turn of %d items keeps %d, want %d", historyMaxItems+50, n, historyMaxItems)
	}

	answer := strings.Repeat("a", 100*1024)
	huge, _ := historyTurns(newestFirst(1, func(int) []codex.Item {
		items := make([]codex.Item, historyMaxItems)
		for i := range items {
			items[i] = codex.Item{Type: codex.ItemAgentMessage, ID: fmt.Sprint("msg_", i), Text: answer}
		}
		return items
	}))
	size = 0
	for _, it := range huge[0].Items {
		size += len(it.Text)
	}
	if len(huge[0].Items) == 0 || size > historyMaxBytes {
		t.Errorf("one turn of %d 64 KiB answers: %d items, %d bytes kept (at most %d)", historyMaxItems, len(huge[0].Items), size, historyMaxBytes)
	}
}
