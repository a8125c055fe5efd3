package lsp_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestRealChangesUnderReview is the whole path on the real codex: the model's patch of two hunks in
// a file open in VS Code is two changes under review (listed, and diagnostics once VS Code reloads
// the buffer); reverting the first through its code action puts back that hunk only, in the buffer
// and on disk; and the model's next request carries the note of the revert.
func TestRealChangesUnderReview(t *testing.T) {
	env := codextest.NewReal(t)
	calc := filepath.Join(env.Work, "calc.txt")
	if err := os.WriteFile(calc, []byte(twentyLines), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Model.Enqueue(
		fakemodel.Patch("*** Begin Patch\n*** Update File: calc.txt\n@@\n line 2\n-line 3\n+LINE 3\n@@\n line 14\n-line 15\n+LINE 15\n+LINE 15b\n*** End Patch\n"),
		fakemodel.Message("Patched."),
		fakemodel.Message("Second turn."),
	)

	srv := lsp.NewServer(lsp.Options{ClientTimeout: 5 * time.Second})
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var edp atomic.Pointer[lsptest.Editor]
	ed, err := lsptest.Connect(ctx, clientEnd, lsptest.VSCode, appliesEdits(t, &edp))
	if err != nil {
		t.Fatal(err)
	}
	edp.Store(ed)
	t.Cleanup(func() {
		_ = ed.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop after the editor went away")
		}
		proctest.EndCodex(t, env.CodexHome)
	})
	settings := env.HermesSettings(filepath.Join(env.Home, "state"))
	settings["yolo"] = true
	if _, err := ed.Initialize(ctx, []string{env.Work}, settings); err != nil {
		t.Fatal(err)
	}
	if err := ed.OpenFile(ctx, calc, twentyLines); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ed: ed, folder: env.Work}
	f.ask(ctx, map[string]any{"prompt": "shout lines 3 and 15"})
	f.awaitEnd(ctx)
	if got := readText(t, calc); got != twoHunks {
		t.Fatalf("codex's patch left:\n%s", got)
	}
	if err := ed.SetFileText(ctx, calc, twoHunks); err != nil { // VS Code reloads the clean buffer
		t.Fatal(err)
	}
	if err := ed.Await(ctx, diagnosticsFor(calc, 2)); err != nil {
		t.Fatalf("no diagnostics of the two changes: %v\n%s", err, ed.State())
	}
	list := changesOf(t, f, map[string]any{"uri": string(uri.File(calc))})
	if len(list) != 2 || list[0].Range.Start.Line != 2 || list[1].Range.Start.Line != 14 || list[1].Added != 2 {
		t.Fatalf("hermes.changes: %+v", list)
	}

	revert := actionTitled(t, f, calc, 2, hermesproto.CodeActionTitleRevertChange)
	var res hermesproto.RevertChangeResult
	command(t, f, revert.Command.Command, argsOf(t, revert), &res)
	if len(res.Reverted) != 1 || res.Reverted[0] != list[0].ChangeID {
		t.Fatalf("revert: %+v", res)
	}
	if text, _, _ := ed.BufferText(calc); text != firstBack {
		t.Errorf("the buffer after the revert:\n%s", text)
	}
	if disk := readText(t, calc); disk != firstBack {
		t.Errorf("the file after the revert:\n%s", disk)
	}
	if left := changesOf(t, f, nil); len(left) != 1 || left[0].ChangeID != list[1].ChangeID {
		t.Errorf("the change left: %+v", left)
	}

	f.ask(ctx, map[string]any{"prompt": "what now?"})
	f.awaitEndN(ctx, 2)
	reqs := env.Model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{"not from the user", "calc.txt", "line 3: your change (+1 −1) is reverted", "what now?"} {
		if !strings.Contains(last, want) {
			t.Errorf("the model's next request lacks %q:\n%s", want, last)
		}
	}
}
