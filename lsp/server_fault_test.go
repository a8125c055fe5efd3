package lsp_test

// Fault tests of the server in process: a codex binary that is missing, not executable or dies at
// once; a codex that stops answering; approvals answered after their turn ended.

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/leak"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// serveWith serves a server with opts on a pipe and initializes an editor of profile on it, with one
// folder and init settings (over a fresh stateDir). The server must stop once the editor goes away.
func serveWith(t *testing.T, opts lsp.Options, profile lsptest.Profile, init map[string]any) (*lsptest.Editor, string) {
	t.Helper()
	srv := lsp.NewServer(opts)
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	ctx := testCtx(t)
	ed, err := lsptest.Connect(ctx, clientEnd, profile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ed.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop after the editor went away")
		}
	})
	folder := t.TempDir()
	settings := map[string]any{"stateDir": t.TempDir()}
	for k, v := range init {
		settings[k] = v
	}
	if _, err := ed.Initialize(ctx, []string{folder}, settings); err != nil {
		t.Fatal(err)
	}
	return ed, folder
}

// TestFaultCodexBinaryUnusable: a codex binary that is missing, not executable, a directory, or one
// that dies at once. The first ask fails with an error that says what is wrong, the editor shows
// it, and the server stays up: status answers and the next ask fails the same way. With prewarm, the
// editor hears of it at startup.
func TestFaultCodexBinaryUnusable(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "codex-not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dies := filepath.Join(dir, "codex-dies")
	if err := os.WriteFile(dies, []byte("#!/bin/sh\necho 'codex: this platform is not supported' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		want       []string // in the ask's error and the editor's message
	}{
		{"missing", filepath.Join(dir, "no-such-codex"), []string{"no-such-codex", "no such file", "codex.path"}},
		{"not executable", notExec, []string{"codex-not-executable", "permission denied"}},
		{"a directory", dir, []string{dir, "codex.path"}},
		{"dies at once", dies, []string{"exit status 3", "this platform is not supported"}},
	}
	for _, tc := range cases {
		for _, prewarm := range []bool{false, true} {
			name := tc.name
			if prewarm {
				name += " with prewarm"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ed, _ := serveWith(t, lsp.Options{CodexPath: tc.path, ClientTimeout: 5 * time.Second}, lsptest.VSCode,
					map[string]any{"prewarm": prewarm})
				ctx := testCtx(t)
				if prewarm {
					if err := ed.Await(ctx, lsptest.MessageContaining("Hermes could not start codex")); err != nil {
						t.Fatalf("no message about codex at startup: %v", err)
					}
				}
				for attempt := 1; attempt <= 2; attempt++ {
					_, err := ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "hello"})
					if err == nil {
						t.Fatalf("ask %d succeeded with codex %s", attempt, tc.path)
					}
					for _, w := range tc.want {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("ask %d: error %q does not say %q", attempt, err, w)
						}
					}
					if err := ed.Await(ctx, func(s *lsptest.State) bool {
						n := 0
						for _, m := range s.ShowMessages {
							if m.Type == protocol.MessageTypeError && strings.Contains(m.Message, "Hermes could not start the turn") {
								n++
							}
						}
						return n >= attempt
					}); err != nil {
						t.Fatalf("ask %d: no error message in the editor: %v", attempt, err)
					}
					if _, err := ed.ExecuteCommand(ctx, hermesproto.CmdStatus); err != nil {
						t.Fatalf("status after ask %d: %v", attempt, err)
					}
				}
				if err := ed.Shutdown(ctx); err != nil {
					t.Fatalf("shutdown: %v", err)
				}
				_ = ed.Exit(ctx)
			})
		}
	}
}

// TestFaultCodexStopsAnswering: codex stops answering anything, in the middle of a turn or before a
// turn starts. The deadline (turnTimeoutSeconds) fires: the turn ends, or the ask fails, in bounded
// time with a clear message; codex is restarted and the next ask completes.
func TestFaultCodexStopsAnswering(t *testing.T) {
	t.Run("mid-turn", func(t *testing.T) {
		t.Parallel()
		// The turn starts under the default timeout, and turnTimeoutSeconds is lowered once codex has
		// gone silent: the deadline that fires is the fault's, never a slow start's.
		f := startWith(t, lsp.Options{MinTurnTimeout: 300 * time.Millisecond}, lsptest.VSCode, nil)
		stalled := make(chan struct{})
		f.fake.OnTurn(func(ft *codextest.FakeTurn) {
			ft.AgentMessage("the first half")
			f.fake.Stall()
			close(stalled)
			<-ft.Done()
		})
		ctx := testCtx(t)
		f.ask(ctx, map[string]any{"prompt": "work"})
		// The turn's runner, whose deadline follows the setting, has begun once an answer is out.
		if err := f.ed.Await(ctx, turnEventOf("answerDelta")); err != nil {
			t.Fatal(err)
		}
		select {
		case <-stalled:
		case <-ctx.Done():
			t.Fatal("codex did not stop answering")
		}
		began := time.Now()
		deliver(t, f, "push", map[string]any{"turnTimeoutSeconds": 0.3})
		f.awaitEnd(ctx)
		took := time.Since(began)
		if took > 10*time.Second {
			t.Errorf("the stalled turn took %v to end", took)
		}
		msgs := f.ed.Messages()
		last := msgs[len(msgs)-1]
		if last.Type != protocol.MessageTypeWarning || !strings.Contains(last.Message, "turn timed out") {
			t.Errorf("final message: %+v", last)
		}
		events := progressOf(f.ed)
		if len(events) == 0 || events[len(events)-1].Kind != protocol.WorkDoneProgressKindEnd {
			t.Errorf("progress did not end: %+v", events)
		}
		deliver(t, f, "push", map[string]any{"turnTimeoutSeconds": 0}) // the default again, for the next start
		waitSettings(t, f, 2)
		f.fake.OnTurn(nil)
		f.ask(ctx, map[string]any{"prompt": "again"})
		if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes ("+filepath.Base(f.folder)+"): ok")); err != nil {
			t.Fatal(err)
		}
		if n := len(f.fake.Starts()); n != 2 {
			t.Errorf("codex started %d times, want 2 (the stalled one restarted)", n)
		}
	})
	t.Run("before the turn starts", func(t *testing.T) {
		t.Parallel()
		f := startWith(t, lsp.Options{MinTurnTimeout: 300 * time.Millisecond}, lsptest.VSCode, map[string]any{"turnTimeoutSeconds": 0.3})
		ctx := testCtx(t)
		f.ask(ctx, map[string]any{"prompt": "first"})
		f.awaitEnd(ctx)
		f.fake.Stall() // codex is up and idle, and answers nothing from now on
		began := time.Now()
		_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "second"})
		took := time.Since(began)
		if err == nil {
			t.Fatal("an ask on a silent codex succeeded")
		}
		if !strings.Contains(err.Error(), "codex did not answer") {
			t.Errorf("error %q does not say codex did not answer", err)
		}
		if took > 5*time.Second {
			t.Errorf("the ask took %v to fail", took)
		}
		if err := f.ed.Await(ctx, lsptest.MessageContaining("codex did not answer")); err != nil {
			t.Fatal(err)
		}
		f.ask(ctx, map[string]any{"prompt": "third"})
		if err := f.ed.Await(ctx, lsptest.Announced(2)); err != nil {
			t.Fatal(err)
		}
		if n := len(f.fake.Starts()); n != 2 {
			t.Errorf("codex started %d times, want 2 (the silent one restarted)", n)
		}
	})
}

// TestFaultApprovalAnsweredAfterTurnEnded: an approval is still waiting when its turn ends (stopped
// by the user); answering it afterwards, with hermes.approve or with a late showMessageRequest
// answer, is a clear error or ignored, never a crash, and the next turn runs.
func TestFaultApprovalAnsweredAfterTurnEnded(t *testing.T) {
	t.Run("hermes.approve", func(t *testing.T) {
		t.Parallel()
		f := start(t, lsptest.Helix2501, nil)
		f.fake.OnTurn(func(ft *codextest.FakeTurn) {
			_, err := ft.RequestExecApproval("rm -rf build")
			if errors.Is(err, codextest.ErrInterrupted) {
				ft.Complete(codex.TurnInterrupted, nil)
			}
		})
		ctx := testCtx(t)
		f.ask(ctx, map[string]any{"prompt": "clean"})
		if err := f.ed.Await(ctx, lsptest.MessageContaining("hermes.approve")); err != nil {
			t.Fatal(err)
		}
		id := pendingApproval(t, f.ed)
		if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdCancel, map[string]any{}); err != nil {
			t.Fatal(err)
		}
		f.awaitEnd(ctx)
		for _, d := range []string{"once", "session", "deny", "stop"} {
			_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdApprove, map[string]any{"approvalId": id, "decision": d})
			code, _ := lsptest.ErrorCode(err)
			if code != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "no such pending approval") {
				t.Errorf("approve %s after the turn ended: %v", d, err)
			}
		}
		f.fake.OnTurn(nil)
		f.ask(ctx, map[string]any{"prompt": "again"})
		if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes ("+filepath.Base(f.folder)+"): ok")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("late showMessageRequest answer", func(t *testing.T) {
		t.Parallel()
		ended := make(chan struct{})
		answered := make(chan struct{})
		f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(
			func(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
				// The person answers only after the turn has ended, whatever the server cancelled.
				<-ended
				defer close(answered)
				return &protocol.MessageActionItem{Title: hermesproto.ApprovalActionAllowOnce}, nil
			}))
		decided := make(chan error, 1)
		f.fake.OnTurn(func(ft *codextest.FakeTurn) {
			_, err := ft.RequestExecApproval("make deploy")
			decided <- err
			if errors.Is(err, codextest.ErrInterrupted) {
				ft.Complete(codex.TurnInterrupted, nil)
			}
		})
		ctx := testCtx(t)
		f.ask(ctx, map[string]any{"prompt": "deploy"})
		if err := f.ed.Await(ctx, lsptest.ShowMessageRequestCount(1)); err != nil {
			t.Fatal(err)
		}
		if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdCancel, map[string]any{}); err != nil {
			t.Fatal(err)
		}
		f.awaitEnd(ctx)
		if err := <-decided; !errors.Is(err, codextest.ErrInterrupted) {
			t.Errorf("the approval was decided (%v) though its turn was stopped first", err)
		}
		close(ended)
		<-answered
		f.fake.OnTurn(nil)
		f.ask(ctx, map[string]any{"prompt": "again"})
		if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes ("+filepath.Base(f.folder)+"): ok")); err != nil {
			t.Fatal(err)
		}
		if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdStatus); err != nil {
			t.Fatal(err)
		}
	})
}

// pendingApproval returns the id of the one approval hermes.status lists.
func pendingApproval(t *testing.T, ed *lsptest.Editor) string {
	t.Helper()
	raw, err := ed.ExecuteCommand(testCtx(t), hermesproto.CmdStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Folders []hermesproto.FolderStatus `json:"folders"`
	}
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Folders) != 1 || len(st.Folders[0].PendingApprovals) != 1 {
		t.Fatalf("status: %s (%v)", raw, err)
	}
	return st.Folders[0].PendingApprovals[0].ApprovalID
}

// TestFaultSequentialTurnsThroughServer runs 500 turns one after another through the server (each
// with progress on the editor's token, a tool call and the final message) and checks the process
// does not grow: goroutines and open file descriptors after turn 500 are those after turn 100, and
// the live heap grows by no more than what the fake editor and fake codex record of each turn. (The
// agent host's own test, TestFaultThousandTurns, runs 1000.)
func TestFaultSequentialTurnsThroughServer(t *testing.T) {
	if testing.Short() {
		t.Skip("500 turns; skipped with -short")
	}
	const turns = 500
	f := start(t, lsptest.VSCode, map[string]any{"turnEvents": false, "openTranscript": false})
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("make", 0, "ok\n")
		ft.AgentMessage("built")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	token := *protocol.NewProgressToken("bench")
	var at100 leak.Sample
	for i := 1; i <= turns; i++ {
		if _, err := f.ed.ExecuteCommandWithToken(ctx, hermesproto.CmdAsk, token, map[string]any{"prompt": "build"}); err != nil {
			t.Fatalf("ask %d: %v", i, err)
		}
		// The turn's final message is the i-th message (no other message is sent).
		if err := f.ed.Await(ctx, func(s *lsptest.State) bool { return len(s.ShowMessages) >= i }); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if i == 100 {
			at100 = leak.Take(t)
		}
	}
	end := leak.Take(t)
	t.Logf("after 100 turns: %+v; after %d: %+v", at100, turns, end)
	// The editor records each message and progress value (about 2 kB a turn) and the fake codex each
	// request: 400 turns may add 4 MiB in all; a leak of the server's own per-turn state would show.
	leak.Check(t, at100, end, 4<<20)
	msgs := f.ed.Messages()
	if len(msgs) != turns || !strings.Contains(msgs[turns-1].Message, "built") {
		t.Errorf("%d messages, the last %+v", len(msgs), msgs[len(msgs)-1])
	}
}

// TestFaultReversedRange: a selection made upwards (its end before its start) in a file that is not
// open in the editor, found by FuzzAskArgs: hermes.ask failed with an internal error (a slice out of
// range, recovered). The turn now starts, with the lines in order.
func TestFaultReversedRange(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	path := f.file("notes.txt", "zero\none\ntwo\nthree\nfour\nfive\nsix\n")
	f.ask(ctx, map[string]any{
		"prompt": "tidy these",
		"uri":    workspace.URIFromPath(path),
		"range":  map[string]any{"start": map[string]any{"line": 4, "character": 2}, "end": map[string]any{"line": 1, "character": 0}},
	})
	f.awaitEnd(ctx)
	req, err := f.fake.WaitRequest(ctx, codex.MethodTurnStart, 1)
	if err != nil {
		t.Fatal(err)
	}
	var tp codex.TurnStartParams
	if err := json.Unmarshal(req.Params, &tp); err != nil || len(tp.Input) == 0 {
		t.Fatalf("turn/start params: %s (%v)", req.Params, err)
	}
	if prompt := tp.Input[0].Text; !strings.Contains(prompt, "(lines 2-5)") || !strings.Contains(prompt, "one\ntwo\nthree\nfour\n```") {
		t.Errorf("prompt:\n%s", prompt)
	}
}
