//go:build unix

package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// TestAskOnFIFOErrorsAndExits: hermes.ask with a range in a FIFO of the workspace (not open in the
// editor) answers with an error at once instead of blocking on the FIFO, and the server still ends
// after shutdown and exit.
func TestAskOnFIFOErrorsAndExits(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	fifo := filepath.Join(f.folder, "pipe.go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	began := time.Now()
	_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{
		"prompt": "explain", "uri": workspace.URIFromPath(fifo),
		"range": protocol.Range{Start: protocol.Position{Line: 0}, End: protocol.Position{Line: 3}},
	})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ask on a FIFO: %v", err)
	}
	t.Logf("refused in %v", time.Since(began))
	if err := f.ed.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-f.served:
		f.served <- err // for the fixture's cleanup
	case <-time.After(2 * time.Second):
		t.Fatal("the server did not end within 2s of exit")
	}
}

// TestOpenFIFODocumentDoesNotBlock: a document the editor opens that is a FIFO (here outside the
// folder, where the editor may open anything) is not read as the buffer's saved state, and opening
// it never blocks the server: the next request is answered.
func TestOpenFIFODocumentDoesNotBlock(t *testing.T) {
	f := start(t, lsptest.Helix2501, nil)
	fifo := filepath.Join(t.TempDir(), "pipe.go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Release a server blocked opening the FIFO for reading, so that a failure ends.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	ctx, cancel := context.WithTimeout(testCtx(t), 10*time.Second)
	defer cancel()
	if err := f.ed.OpenFile(ctx, fifo, "package pipe\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdStatus); err != nil {
		t.Fatalf("hermes.status after opening a FIFO: %v", err)
	}
}

// TestShowDiffNeverFollowsPlantedLinks: symlinks planted at the names an approval's diff could be
// guessed to have (<stateDir>/diffs/a1.diff to a9.diff) are never written through; the diff goes to
// a new file with a random name, which is removed once the approval is decided. A world-writable
// diffs folder is made private.
func TestShowDiffNeverFollowsPlantedLinks(t *testing.T) {
	answers := []string{hermesproto.ApprovalActionShowDiff, hermesproto.ApprovalActionAllowOnce}
	hook := func(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		title := answers[0]
		answers = answers[1:]
		return lsptest.ChooseAction(title)(ctx, p)
	}
	stateDir := t.TempDir()
	diffs := filepath.Join(stateDir, "diffs")
	if err := os.Mkdir(diffs, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(diffs, 0o777); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 9; i++ {
		if err := os.Symlink(victim, filepath.Join(diffs, "a"+string(rune('0'+i))+".diff")); err != nil {
			t.Fatal(err)
		}
	}
	f := start(t, lsptest.VSCode, map[string]any{"stateDir": stateDir}, lsptest.WithShowMessageRequestHook(hook))
	decided := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		var change codex.FileChange
		change.Path = filepath.Join(ft.Cwd, "hello.txt")
		change.Kind.Type = "add"
		change.Diff = "hello\n"
		d, _ := ft.RequestPatchApproval([]codex.FileChange{change}, "greet", "")
		decided <- d
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "add hello"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("decision %q", got)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Fatalf("the planted link was written through: %q", b)
	}
	docs := f.ed.ShowDocuments()
	if len(docs) == 0 {
		t.Fatal("no diff shown")
	}
	shown, _ := workspace.PathFromURI(string(docs[0].URI))
	if filepath.Dir(shown) != diffs || strings.HasPrefix(filepath.Base(shown), "a") && len(filepath.Base(shown)) < 8 {
		t.Fatalf("diff shown at %s", shown)
	}
	// Removed once decided: the approval is answered before codex hears of it.
	if _, err := os.Lstat(shown); !os.IsNotExist(err) {
		t.Errorf("the diff file is still there after the decision: %v", err)
	}
	if info, err := os.Stat(diffs); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("diffs folder mode %v (%v), want 0700", info.Mode().Perm(), err)
	}
}
