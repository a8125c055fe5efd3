package acpagent_test

import (
	"strconv"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
)

// BenchmarkTurnUpdates measures a turn of 1000 answer chunks and 100 tool calls (started, updated,
// completed) from the agent's updates to the turn's stream, through the host's hook.
func BenchmarkTurnUpdates(b *testing.B) {
	h := newHarness(b, acptest.Config{})
	thread := h.thread()
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		for i := range 1000 {
			t.Message("chunk ")
			if i%10 == 0 {
				id := strconv.Itoa(i)
				t.ToolCall(acp.ToolCall{ToolCallID: id, Kind: acp.ToolKindRead, Title: "Read"})
				t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusCompleted})
			}
		}
		return acp.StopReasonEndTurn
	})
	b.ResetTimer()
	for range b.N {
		h.mu.Lock()
		h.seen = nil
		h.mu.Unlock()
		h.turn(thread, "go")
	}
}
