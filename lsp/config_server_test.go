package lsp_test

// Tests of folders and configuration: multi-root routing, settings changes, Helix's null configuration.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

func TestMultiRootRouting(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	outer := t.TempDir()
	inner := filepath.Join(outer, "sub")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{outer, inner} {
		if err := f.ed.AddFolder(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	innerFile := filepath.Join(inner, "x.go")
	if err := os.WriteFile(innerFile, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := f.ask(ctx, map[string]any{"prompt": "hi", "uri": workspace.URIFromPath(innerFile)})
	if res.Folder != inner {
		t.Fatalf("routed to %s, want the deepest folder %s", res.Folder, inner)
	}
	f.awaitEnd(ctx)
	for _, th := range f.fake.Threads() {
		if th.Cwd != inner {
			t.Errorf("thread cwd %s", th.Cwd)
		}
	}
	bad := []struct {
		uri  string
		want string
	}{
		{workspace.URIFromPath(filepath.Join(t.TempDir(), "elsewhere.go")), "outside every workspace folder"},
		{"untitled:Untitled-1", "not a file"},
		{workspace.URIFromPath(inner) + "/../../../etc/passwd", "outside"},
	}
	for _, b := range bad {
		_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "hi", "uri": b.uri})
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ask in %s: %v, want an error containing %q", b.uri, err, b.want)
		}
	}
	// A symlink inside a folder that points out of it is refused too.
	link := filepath.Join(inner, "escape")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "hi", "uri": workspace.URIFromPath(filepath.Join(link, "a.go"))}); err == nil {
		t.Error("a symlink out of the folder was accepted")
	}
	// Removing a folder drops it from routing.
	if err := f.ed.RemoveFolder(ctx, inner); err != nil {
		t.Fatal(err)
	}
	res = f.ask(ctx, map[string]any{"prompt": "hi", "uri": workspace.URIFromPath(innerFile)})
	if res.Folder != outer {
		t.Errorf("after removing %s, routed to %s", inner, res.Folder)
	}
	f.awaitEndN(ctx, 2)
}

// awaitEndN waits for n final messages.
func (f *fixture) awaitEndN(ctx context.Context, n int) {
	f.t.Helper()
	err := f.ed.Await(ctx, lsptest.Announced(n))
	if err != nil {
		f.t.Fatal(err)
	}
}

func TestConfigurationChanges(t *testing.T) {
	f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(answers(hermesproto.TrustActionAllow, hermesproto.ApprovalActionDeny)))
	decided := make(chan string, 4)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		d, _ := ft.RequestExecApproval("touch x")
		decided <- d
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)

	// approvals.mode false (YAML's off) pushed by didChangeConfiguration: the user allows it once,
	// then no prompt, accepted.
	if err := f.ed.ChangeConfiguration(ctx, map[string]any{"hermes": map[string]any{"approvals": map[string]any{"mode": false}, "noSuchKey": 1}}); err != nil {
		t.Fatal(err)
	}
	waitSettings(t, f, 1)
	f.ask(ctx, map[string]any{"prompt": "go"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("with approvals off: %q", got)
	}
	f.awaitEnd(ctx)
	if n := len(approvalPrompts(f.ed)); n != 0 {
		t.Fatalf("approvals off still asked: %d", n)
	}

	// A wrong type is an error in the editor and changes nothing.
	if err := f.ed.ChangeConfiguration(ctx, map[string]any{"hermes": map[string]any{"approvals": map[string]any{"mode": "manual"}, "yolo": "yes please"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, lsptest.MessageContaining("hermes.yolo")); err != nil {
		t.Fatalf("no error shown for a wrong type: %v", err)
	}
	f.ask(ctx, map[string]any{"prompt": "again"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("a rejected change applied: %q", got)
	}
	f.awaitEndN(ctx, 2)

	// Back to manual through a pull (null push, then workspace/configuration).
	f.ed.SetConfiguration("hermes", map[string]any{"approvals": map[string]any{"mode": "manual"}})
	if err := f.ed.ChangeConfiguration(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, lsptest.RequestCount(protocol.MethodWorkspaceConfiguration, 2)); err != nil {
		t.Fatalf("no pull: %v", err)
	}
	waitSettings(t, f, 2)
	f.ask(ctx, map[string]any{"prompt": "third"})
	if got := <-decided; got != codex.DecisionDecline {
		t.Fatalf("manual again: %q", got)
	}
	f.awaitEndN(ctx, 3)
}

// waitSettings waits until the server has applied n configuration changes (it says so in a log
// message each time).
func waitSettings(t *testing.T, f *fixture, n int) {
	t.Helper()
	err := f.ed.Await(testCtx(t), func(s *lsptest.State) bool {
		count := 0
		for _, m := range s.LogMessages {
			if strings.Contains(m.Message, "settings applied") {
				count++
			}
		}
		return count >= n
	})
	if err != nil {
		t.Fatalf("settings not applied: %v", err)
	}
}

func TestHelixNullConfigurationKeepsSettings(t *testing.T) {
	f := start(t, lsptest.Helix2501, map[string]any{"approvals": map[string]any{"mode": "off"}})
	decided := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		d, _ := ft.RequestExecApproval("ls")
		decided <- d
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	if err := f.ed.ChangeConfiguration(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, lsptest.RequestCount(protocol.MethodWorkspaceConfiguration, 2)); err != nil {
		t.Fatal(err)
	}
	f.ask(ctx, map[string]any{"prompt": "list"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("Helix's null configuration dropped approvals.mode off: %q", got)
	}
}
