package agenthost_test

import (
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// BenchmarkTurn measures one whole turn through the host on the in-process fake codex: start, a
// tool call, an answer, usage, the result, the transcript and the state file written.
func BenchmarkTurn(b *testing.B) {
	fake := codextest.NewFake(b)
	fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("go test ./...", 0, "ok\n")
		ft.AgentMessage("all good")
		u := codex.TokenUsage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110}
		ft.Usage(u, u, 258400)
		ft.Complete(codex.TurnCompleted, nil)
	})
	h, err := agenthost.New(agenthost.Config{StateDir: b.TempDir(), StartCodex: fake.Start})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	s, err := h.Session(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		turn, err := s.Run(b.Context(), agenthost.Input{Prompt: "test it"})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := turn.Wait(b.Context()); err != nil || !res.Completed {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
