package lsp_test

import (
	"context"
	"net"
	"runtime/metrics"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// BenchmarkAsk measures one turn as the editor sees it, on the in-process fake codex: hermes.ask
// with the editor's progress token, then the progress's end.
func BenchmarkAsk(b *testing.B) {
	fake := codextest.NewFake(b)
	fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	folder, stateDir := b.TempDir(), b.TempDir() // removed after the server has stopped (cleanups run last first)
	srv := lsp.NewServer(lsp.Options{StartCodex: fake.Start})
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	ed, err := lsptest.Connect(b.Context(), clientEnd, lsptest.VSCode)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = ed.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			b.Error("the server did not stop")
		}
	})
	if _, err := ed.Initialize(b.Context(), []string{folder}, map[string]any{"stateDir": stateDir, "openTranscript": false}); err != nil {
		b.Fatal(err)
	}
	token := *protocol.NewProgressToken("bench")
	created := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(created)
	before := created[0].Value.Uint64()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ended := len(ed.Progress(token))
		if _, err := ed.ExecuteCommandWithToken(b.Context(), hermesproto.CmdAsk, token, map[string]any{"prompt": "hello"}); err != nil {
			b.Fatal(err)
		}
		if err := ed.AwaitProgressEnd(b.Context(), token, ended); err != nil {
			b.Fatal(err)
		}
	}
	metrics.Read(created)
	// The goroutines a turn starts, in the server, the fake codex and the editor together.
	b.ReportMetric(float64(created[0].Value.Uint64()-before)/float64(b.N), "goroutines/op")
}
