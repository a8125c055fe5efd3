package agenthost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// TestRealUndoCheckpointAndRevert: with the real codex, a patch turn's checkpoint has the file as
// it was before (absent) and after; thread/revert makes the thread forget the turn, so the next
// model request no longer carries it.
func TestRealUndoCheckpointAndRevert(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(
		fakemodel.Message("Noted: the first turn."),
		fakemodel.Patch(fakemodel.AddFilePatch("undo_me.txt", "written by the second turn\n")),
		fakemodel.Message("Patched."),
		fakemodel.Message("Third turn."),
	)
	h := realHost(t, env, func(c *agenthost.Config) { c.Yolo = true })
	s, err := h.Session(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := runToEnd(t, s, "remember the first turn"); !res.Completed {
		t.Fatalf("first turn: %+v", res)
	}
	second, _ := runToEnd(t, s, "PATCH-TURN-MARKER add a file")
	if !second.Completed {
		t.Fatalf("patch turn: %+v", second)
	}
	cps, err := s.Checkpoints()
	if err != nil || len(cps) != 1 || cps[0].TurnID != second.TurnID || len(cps[0].Files) != 1 {
		t.Fatalf("checkpoints: %+v %v", cps, err)
	}
	whole, err := s.LoadCheckpoint(second.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	f := whole.Files[0]
	if filepath.Base(f.Path) != "undo_me.txt" || !f.Before.Absent || string(f.After.Content) != "written by the second turn\n" {
		t.Fatalf("checkpoint: %s before %+v after %q", f.Path, f.Before, f.After.Content)
	}
	if err := os.Remove(f.Path); err != nil { // what undoing the turn does with a created file
		t.Fatal(err)
	}
	if err := s.RevertThread(t.Context(), second.ThreadID, second.TurnID); err != nil {
		t.Fatalf("thread/revert: %v", err)
	}
	if res, _ := runToEnd(t, s, "third"); !res.Completed {
		t.Fatalf("third turn: %+v", res)
	}
	reqs := env.Model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if strings.Contains(last, "PATCH-TURN-MARKER") {
		t.Error("the model request after the revert still carries the reverted turn")
	}
	if !strings.Contains(last, "remember the first turn") {
		t.Error("the revert lost the turn before it too")
	}
	// The reverted thread is listed once (codex lists a thread again after thread/revert).
	list, err := s.Threads(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("threads after the revert: %+v", list)
	seen := map[string]bool{}
	for _, th := range list {
		if seen[th.ID] {
			t.Errorf("thread %s listed twice: %+v", th.ID, list)
		}
		seen[th.ID] = true
	}
}

// TestRealConfiguredModel: the model codex's own configuration names (here the fake model's, from
// config.toml and -c) is what config/read reports for the folder: hermes.models marks it current.
func TestRealConfiguredModel(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	h := realHost(t, env, nil)
	s, err := h.Session(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, kv := range env.Model.CodexConfig() {
		if m, ok := strings.CutPrefix(kv, "model="); ok {
			want = strings.Trim(m, `"`)
		}
	}
	if got := s.ConfiguredModel(t.Context()); want == "" || got != want {
		t.Errorf("configured model %q, want %q", got, want)
	}
}
