package agenthost_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// TestCheckpointsSurviveRestart: what a turn's patch changed (before and after) is recorded, kept
// under the state dir (0600), and read back by a new host on the same state dir.
func TestCheckpointsSurviveRestart(t *testing.T) {
	fake := codextest.NewFake(t)
	state := t.TempDir()
	fh := newFakeHostOn(t, fake, state, func(c *agenthost.Config) { c.Yolo = true })
	path := filepath.Join(fh.folder, "calc.go")
	if err := os.WriteFile(path, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake.OnTurn(func(ft *codextest.FakeTurn) {
		var c codex.FileChange
		c.Path, c.Kind.Type, c.Diff = path, "update", "@@\n-before\n+after\n"
		_, _ = ft.ApplyPatch([]codex.FileChange{c}, func() {
			if err := os.WriteFile(path, []byte("after\n"), 0o644); err != nil {
				t.Error(err)
			}
		})
		ft.Complete(codex.TurnCompleted, nil)
	})
	res, _ := run(t, fh.session(t), "change calc")
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}

	again := newFakeHostOn(t, fake, state, nil)
	again.folder = fh.folder
	cps, err := again.session(t).Checkpoints()
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 || cps[0].TurnID != res.TurnID || len(cps[0].Files) != 1 {
		t.Fatalf("checkpoints after a restart: %+v", cps)
	}
	if f := cps[0].Files[0]; f.Before.Content != nil || f.Before.Size != 7 || f.After.Size != 6 {
		t.Errorf("a listed checkpoint carries its contents, or not its sizes: %+v", f)
	}
	whole, err := again.session(t).LoadCheckpoint(res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	f := whole.Files[0]
	if f.Path != path || string(f.Before.Content) != "before\n" || string(f.After.Content) != "after\n" {
		t.Errorf("checkpoint file %s: before %q after %q", f.Path, f.Before.Content, f.After.Content)
	}
	matches, _ := filepath.Glob(filepath.Join(state, "checkpoints", "*", "*"))
	if len(matches) != 2 {
		t.Fatalf("checkpoint files %v, want a summary and its contents", matches)
	}
	for _, m := range matches {
		if fi, err := os.Stat(m); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("checkpoint file mode: %v %v", fi.Mode(), err)
		}
	}
}
