package lsp_test

// Tests of bad requests and of clients with fewer capabilities (eglot), and shutdown mid-turn.

import (
	"context"
	"net"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

func TestAskErrors(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk)
	if err == nil || !strings.Contains(err.Error(), "hermes:") {
		t.Errorf("ask without a prompt: %v", err)
	}
	_, err = f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": 42})
	if code, _ := lsptest.ErrorCode(err); code != jsonrpc2.InvalidParams {
		t.Errorf("a prompt of the wrong type: %v", err)
	}
	_, err = f.ed.ExecuteCommand(ctx, "hermes.nope")
	if err == nil {
		t.Error("an unknown command succeeded")
	}
	// The server is still up.
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdStatus); err != nil {
		t.Fatal(err)
	}
}

func TestBeforeInitialize(t *testing.T) {
	srv := lsp.NewServer(lsp.Options{})
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	ctx := testCtx(t)
	ed, err := lsptest.Connect(ctx, clientEnd, lsptest.VSCode)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ed.ExecuteCommand(ctx, hermesproto.CmdStatus)
	if code, _ := lsptest.ErrorCode(err); code != jsonrpc2.ServerNotInitialized {
		t.Errorf("before initialize: %v", err)
	}
	_ = ed.Close()
	<-served
	if srv.ExitCode() != 1 {
		t.Errorf("exit code without shutdown: %d", srv.ExitCode())
	}
}

func TestEglotWithoutWindowCapabilities(t *testing.T) {
	f := start(t, lsptest.Eglot, nil)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("ls", 0, "a\n")
		ft.AgentMessage("listed")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "list files"})
	f.awaitEnd(ctx)
	if n := len(f.ed.CreatedTokens()); n != 0 {
		t.Errorf("progress sent to a client without it: %d", n)
	}
	msgs := f.ed.Messages()
	if len(msgs) < 2 || !strings.Contains(msgs[0].Message, "list files") || !strings.Contains(msgs[len(msgs)-1].Message, "listed") {
		t.Errorf("start and end messages: %+v", msgs)
	}
	var logged bool
	for _, l := range f.ed.LogMessages() {
		logged = logged || strings.Contains(l.Message, "exec_command: ls")
	}
	if !logged {
		t.Errorf("no log line for the tool: %+v", f.ed.LogMessages())
	}
	if n := len(f.ed.ShowDocuments()); n != 0 {
		t.Errorf("showDocument sent to a client without it: %d", n)
	}
}

func TestShutdownDuringTurn(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("busy")
		ft.CompleteOnInterrupt()
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "work"})
	if _, err := f.fake.WaitRequest(ctx, codex.MethodTurnStart, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.fake.WaitRequest(ctx, codex.MethodTurnInterrupt, 1); err != nil {
		t.Fatalf("shutdown did not interrupt the turn: %v", err)
	}
	if err := f.ed.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-f.served:
		f.served <- err
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the server did not exit")
	}
	if f.srv.ExitCode() != 0 {
		t.Errorf("exit code %d after shutdown and exit", f.srv.ExitCode())
	}
}

// showsTurns is VS Code with the extension's chat view: it shows turns itself from hermes/turnEvent
// and says so in experimental.hermes.showsTurns.
func showsTurns() lsptest.Profile {
	p := lsptest.VSCode.Clone()
	p.Name = "VSCode+chat"
	p.Capabilities.Experimental = map[string]any{"hermes": map[string]any{"showsTurns": true}}
	return p
}

// TestOneAnswerSurface: a client that shows turns itself gets the answer once, in its own view: no
// answer message after the turn (the transcript still opens when the user chose openTranscript,
// after where the message would have gone). Without turn events the same client gets the message.
func TestOneAnswerSurface(t *testing.T) {
	const answer = "The answer, shown once."
	turn := func(ft *codextest.FakeTurn) {
		ft.AgentMessage(answer)
		ft.Complete(codex.TurnCompleted, nil)
	}
	t.Run("chat view", func(t *testing.T) {
		f := start(t, showsTurns(), map[string]any{"openTranscript": true})
		f.fake.OnTurn(turn)
		ctx := testCtx(t)
		f.ask(ctx, map[string]any{"prompt": "answer once"})
		if err := f.ed.Await(ctx, lsptest.ShowDocumentCount(1)); err != nil {
			t.Fatalf("the transcript the user chose to open: %v", err)
		}
		for _, m := range f.ed.Messages() {
			if strings.Contains(m.Message, answer) || strings.Contains(m.Message, "Transcript:") {
				t.Errorf("an answer message to a client that shows turns itself: %q", m.Message)
			}
		}
		if n := len(f.ed.State().Notifications[hermesproto.MethodTurnEvent]); n == 0 {
			t.Errorf("no hermes/turnEvent")
		}
	})
	t.Run("without turn events", func(t *testing.T) {
		f := start(t, showsTurns(), map[string]any{"turnEvents": false, "openTranscript": false})
		f.fake.OnTurn(turn)
		ctx := testCtx(t)
		f.ask(ctx, map[string]any{"prompt": "answer once"})
		if err := f.ed.Await(ctx, lsptest.MessageContaining(answer)); err != nil {
			t.Fatalf("no answer message without turn events: %v", err)
		}
	})
}
