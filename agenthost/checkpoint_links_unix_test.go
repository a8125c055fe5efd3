//go:build unix

package agenthost_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// TestCheckpointsRecordOnlyTheFolder: a patch that names a file outside the folder (by its path,
// or through a link inside it that leads out) is not recorded: undoing the turn could otherwise
// write there. The folder's own file is.
func TestCheckpointsRecordOnlyTheFolder(t *testing.T) {
	fake := codextest.NewFake(t)
	fh := newFakeHostOn(t, fake, t.TempDir(), func(c *agenthost.Config) { c.Yolo = true })
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(fh.folder, "link")); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(fh.folder, "in.txt")
	paths := []string{inside, filepath.Join(outside, "direct.txt"), filepath.Join(fh.folder, "link", "through.txt")}
	fake.OnTurn(func(ft *codextest.FakeTurn) {
		var changes []codex.FileChange
		for _, p := range paths {
			var c codex.FileChange
			c.Path, c.Kind.Type, c.Diff = p, "add", "+x\n"
			changes = append(changes, c)
		}
		_, _ = ft.ApplyPatch(changes, func() {
			for _, p := range paths {
				if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
					t.Error(err)
				}
			}
		})
		ft.Complete(codex.TurnCompleted, nil)
	})
	run(t, fh.session(t), "write three files")
	cps, err := fh.session(t).Checkpoints()
	if err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints: %+v, %v", cps, err)
	}
	if files := cps[0].Files; len(files) != 1 || files[0].Path != inside {
		t.Errorf("recorded %+v, want only %s", files, inside)
	}
}
