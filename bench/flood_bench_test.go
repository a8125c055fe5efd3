package bench_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/sourcegraph/conc"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/bench"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// BenchmarkTurnEvents measures codex notifications from the codex pipe to the editor's progress:
// each op is one turn of 100 tool items and 1000 answer deltas (1405 notifications) from the
// zero-latency fake codex, in process, through the server to the editor (VS Code's profile, the
// default settings). ns/event is the op's time per notification, fake codex included; a CPU
// profile of it (-cpuprofile) shows the host's share.
func BenchmarkTurnEvents(b *testing.B) {
	spec := bench.FakeSpec{Tools: 100, Deltas: 1000}
	ed := serveOnFake(b, spec)
	token := *protocol.NewProgressToken("bench")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		before := len(ed.Progress(token))
		if _, err := ed.ExecuteCommandWithToken(b.Context(), hermesproto.CmdAsk, token, map[string]any{"prompt": "flood"}); err != nil {
			b.Fatal(err)
		}
		if err := ed.AwaitProgressEnd(b.Context(), token, before); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spec.Notifications()), "ns/event")
}

// BenchmarkHostTurn is the host-only row of make bench in process: a turn of six answer deltas on
// the zero-latency fake codex, asked as VS Code asks (hermes.ask without a token: the server creates
// one), timed to the progress's end.
func BenchmarkHostTurn(b *testing.B) {
	ed := serveOnFake(b, bench.FakeSpec{Deltas: 6})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ed.Forget() // as make bench does: the editor's record of past turns is not the host's cost
		created := len(ed.State().CreatedTokens)
		if _, err := ed.ExecuteCommand(b.Context(), hermesproto.CmdAsk, map[string]any{"prompt": "hello"}); err != nil {
			b.Fatal(err)
		}
		if err := ed.Await(b.Context(), func(s *lsptest.State) bool {
			if len(s.CreatedTokens) <= created {
				return false
			}
			evs := s.Progress[s.CreatedTokens[created]]
			return len(evs) > 0 && evs[len(evs)-1].Kind == protocol.WorkDoneProgressKindEnd
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// serveOnFake starts a server in process on a pipe, its codex the zero-latency fake playing spec,
// and returns its initialized editor (VS Code's profile, the default settings).
func serveOnFake(b *testing.B, spec bench.FakeSpec) *lsptest.Editor {
	folder, stateDir := b.TempDir(), b.TempDir() // removed after the server has stopped (cleanups run last first)
	var fakes conc.WaitGroup
	start := func(ctx context.Context, opts codex.Options) (*codex.Client, error) {
		clientR, serverW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		serverR, clientW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		fakes.Go(func() {
			_ = bench.ServeFakeCodex(serverR, serverW, spec)
			_ = serverW.Close()
			_ = serverR.Close()
		})
		return codex.NewClient(ctx, clientR, clientW, opts)
	}
	srv := lsp.NewServer(lsp.Options{StartCodex: start})
	serverEnd, clientEnd := osPipes(b) // as an editor's pipes to the server's process: buffered by the kernel
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
		fakes.Wait()
	})
	if _, err := ed.Initialize(b.Context(), []string{folder}, map[string]any{"stateDir": stateDir, "openTranscript": false}); err != nil {
		b.Fatal(err)
	}
	return ed
}

// osPipes returns the two ends of a connection made of two OS pipes.
func osPipes(b *testing.B) (io.ReadWriteCloser, io.ReadWriteCloser) {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return pipeEnd{r1, w2}, pipeEnd{r2, w1}
}

type pipeEnd struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeEnd) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeEnd) Close() error                { return errors.Join(p.w.Close(), p.r.Close()) }
