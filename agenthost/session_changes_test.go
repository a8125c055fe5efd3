package agenthost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// patchFile is a turn handler that patches path from its content to after, twice when twice is set
// (the second patch appends a line), as codex does: announced, approved, written, completed.
func patchFile(t *testing.T, path string, writes ...string) func(ft *codextest.FakeTurn) {
	return func(ft *codextest.FakeTurn) {
		for _, text := range writes {
			var c codex.FileChange
			c.Path, c.Kind.Type, c.Diff = path, "update", "@@\n"
			_, _ = ft.ApplyPatch([]codex.FileChange{c}, func() {
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Error(err)
				}
			})
		}
		ft.Complete(codex.TurnCompleted, nil)
	}
}

// TestPatchEventsCarryImages: each completed patch's tool event carries, for the file it updated,
// its content before the turn's first patch of it and as this patch left it.
func TestPatchEventsCarryImages(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) { c.Yolo = true })
	path := filepath.Join(fh.folder, "calc.go")
	if err := os.WriteFile(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fh.fake.OnTurn(patchFile(t, path, "one\ntwo\n", "one\ntwo\nthree\n"))
	_, events := run(t, fh.session(t), "patch twice")
	var got [][2]string
	for _, ev := range ofKind(events, hermesproto.EventKindToolCompleted) {
		if ev.Tool.Name != "apply_patch" || len(ev.Tool.Changes) != 1 {
			continue
		}
		c := ev.Tool.Changes[0]
		got = append(got, [2]string{string(c.Before), string(c.After)})
	}
	want := [][2]string{{"one\n", "one\ntwo\n"}, {"one\n", "one\ntwo\nthree\n"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("the patches' images: %q, want %q", got, want)
	}
}

// TestRevertNoteInNextTurn: a revert noted for the thread is told to the model at the start of the
// thread's next turn, as a text of its own before the prompt, bounded and cleaned, once; it
// survives a restart; a thread that did not make the change is not told.
func TestRevertNoteInNextTurn(t *testing.T) {
	fake := codextest.NewFake(t)
	state := t.TempDir()
	fh := newFakeHostOn(t, fake, state, nil)
	var inputs [][]codex.UserInput
	fake.OnTurn(func(ft *codextest.FakeTurn) {
		inputs = append(inputs, ft.Params.Input)
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	first, _ := run(t, fh.session(t), "first")
	err := fh.session(t).NoteRevert(agenthost.RevertNote{
		ThreadID: first.ThreadID, TurnID: first.TurnID, Path: filepath.Join(fh.folder, "calc.go"), Line: 3,
		Added: 1, Removed: 2, Restored: "\tbefore := 1\n\tagain := 2\n", Undone: "\tafter := 1\x1b[31m red\n" + strings.Repeat("x", 5000),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}

	again := newFakeHostOn(t, fake, state, nil)
	again.folder = fh.folder
	run(t, again.session(t), "second")
	run(t, again.session(t), "third")
	if len(inputs) != 3 {
		t.Fatalf("%d turns", len(inputs))
	}
	second := inputs[1]
	if len(second) != 2 || second[1].Text != "second" {
		t.Fatalf("the second turn's input: %+v", second)
	}
	note := second[0].Text
	for _, want := range []string{"not from the user", "`calc.go` lines 3-4", "(+1 −2)", "\tbefore := 1\n\tagain := 2\n", "\tafter := 1 red"} {
		if !strings.Contains(note, want) {
			t.Errorf("the note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "\x1b") || len(note) > 6000 {
		t.Errorf("the note is not cleaned or not bounded (%d bytes):\n%q", len(note), note)
	}
	if len(inputs[2]) != 1 {
		t.Errorf("the note was told twice: %+v", inputs[2])
	}

	// A note of another thread waits for that thread.
	if err := again.session(t).NoteRevert(agenthost.RevertNote{ThreadID: "another", TurnID: "t", Path: "x", Line: 1, Added: 1}); err != nil {
		t.Fatal(err)
	}
	run(t, again.session(t), "fourth")
	if len(inputs[3]) != 1 {
		t.Errorf("a note of another thread was told: %+v", inputs[3])
	}
}

// TestChangedByHandUpdatesCheckpoint: a revert by hand of a file the turn left as it is makes the
// turn's checkpoint record the file as it is now; one changed since changes nothing.
func TestChangedByHandUpdatesCheckpoint(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) { c.Yolo = true })
	path := filepath.Join(fh.folder, "calc.go")
	if err := os.WriteFile(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fh.fake.OnTurn(patchFile(t, path, "one\ntwo\nthree\n"))
	res, _ := run(t, fh.session(t), "patch")
	s := fh.session(t)
	if changed, err := s.ChangedByHand(path, []byte("something else\n"), []byte("one\nthree\n")); err != nil || changed {
		t.Errorf("a file the turn did not leave so: changed %v, %v", changed, err)
	}
	if changed, err := s.ChangedByHand(path, []byte("one\ntwo\nthree\n"), []byte("one\nthree\n")); err != nil || !changed {
		t.Fatalf("changed %v, %v", changed, err)
	}
	cp, err := s.LoadCheckpoint(res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if f := cp.Files[0]; string(f.Before.Content) != "one\n" || string(f.After.Content) != "one\nthree\n" {
		t.Errorf("the checkpoint after the revert: before %q after %q", f.Before.Content, f.After.Content)
	}
}
