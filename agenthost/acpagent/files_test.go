package acpagent_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
)

// TestReadTextFile: the agent reads a file the editor has open as the editor has it (unsaved edits
// too), another from the disk, from a line on and a number of lines; nothing outside its folder.
func TestReadTextFile(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	open, closed := filepath.Join(h.folder, "open.go"), filepath.Join(h.folder, "sub", "closed.go")
	writeFile(t, open, "on disk\n")
	writeFile(t, closed, "1\n2\n3\n4\n")
	outside := filepath.Join(t.TempDir(), "secret")
	writeFile(t, outside, "secret\n")
	if err := os.Symlink(outside, filepath.Join(h.folder, "link")); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	h.buffers[open] = "unsaved\n"
	h.buffers[outside] = "open but outside\n"
	h.mu.Unlock()
	type read struct {
		path        string
		line, limit int64
	}
	reads := []read{
		{open, 0, 0}, {closed, 0, 0}, {closed, 2, 2}, {closed, 4, 10}, {closed, 9, 1},
		{outside, 0, 0}, {filepath.Join(h.folder, "link"), 0, 0}, {filepath.Join(h.folder, "..", "x"), 0, 0},
		{"relative.go", 0, 0}, {filepath.Join(h.folder, "missing.go"), 0, 0},
	}
	got := make([]string, len(reads))
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		for i, r := range reads {
			text, err := t.ReadTextFile(r.path, r.line, r.limit)
			got[i] = text
			if err != nil {
				got[i] = "error"
				var rpcErr *acp.Error
				if errors.As(err, &rpcErr) && rpcErr.Code == acp.ErrorCodeResourceNotFound {
					got[i] = "not found"
				}
			}
		}
		return acp.StopReasonEndTurn
	})
	h.turn(thread, "read")
	want := []string{"unsaved\n", "1\n2\n3\n4\n", "2\n3\n", "4\n", "", "error", "error", "error", "error", "not found"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("read %+v: %q, want %q", reads[i], got[i], want[i])
		}
	}
}

// TestWriteTextFile: the agent's write goes to the disk inside its folder, announced as a
// fileChange item before (the host sees the file as it was) and completed after; a write an edit
// of the turn announced is not announced again; a write outside the folder, or with no turn
// running, is refused.
func TestWriteTextFile(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	a, b, edited := filepath.Join(h.folder, "a.txt"), filepath.Join(h.folder, "dir", "b.txt"), filepath.Join(h.folder, "e.txt")
	writeFile(t, a, "old\n")
	writeFile(t, edited, "before edit\n")
	outside := filepath.Join(t.TempDir(), "x.txt")
	errs := make([]error, 4)
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		errs[0] = t.WriteTextFile(a, "new\n")
		errs[1] = t.WriteTextFile(b, "created\n")
		t.ToolCall(acp.ToolCall{ToolCallID: "e", Kind: acp.ToolKindEdit, Title: "Edit e.txt", Locations: []acp.ToolCallLocation{{Path: edited}}})
		errs[2] = t.WriteTextFile(edited, "after edit\n")
		t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "e", Status: acp.ToolCallStatusCompleted})
		errs[3] = t.WriteTextFile(outside, "nope\n")
		return acp.StopReasonEndTurn
	})
	evs := h.turn(thread, "write")
	wantEvents(t, evs,
		"turn/started",
		"item/started fileChange inProgress update:a.txt",
		"item/completed fileChange completed update:a.txt",
		"item/started fileChange inProgress add:b.txt",
		"item/completed fileChange completed add:b.txt",
		"item/started fileChange inProgress update:e.txt",
		"item/completed fileChange completed update:e.txt",
		"turn/completed completed",
	)
	for i, err := range errs[:3] {
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if errs[3] == nil || !strings.Contains(errs[3].Error(), "outside") {
		t.Errorf("a write outside the folder: %v", errs[3])
	}
	for path, want := range map[string]string{a: "new\n", b: "created\n", edited: "after edit\n"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s holds %q, want %q", path, got, want)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the file outside the folder was written")
	}
	h.mu.Lock()
	atStart := h.atStart
	h.mu.Unlock()
	for path, want := range map[string]string{a: "old\n", b: "<absent>", edited: "before edit\n"} {
		if atStart[path] != want {
			t.Errorf("when its item started, %s held %q, want %q", filepath.Base(path), atStart[path], want)
		}
	}
	for _, ev := range evs {
		if d := describe(ev); strings.Contains(d, "a.txt") && strings.Contains(d, "started") {
			if diff := ev.Params; !strings.Contains(string(diff), `-old\n+new\n`) {
				t.Errorf("the write's change: %s", diff)
			}
		}
	}

	// No turn runs: a write is refused, the file left alone.
	var late error
	release, done := make(chan struct{}), make(chan struct{})
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		go func() {
			defer close(done)
			<-release
			late = t.WriteTextFile(a, "late\n")
		}()
		return acp.StopReasonEndTurn
	})
	h.turn(thread, "go")
	close(release) // the turn has ended
	<-done
	if late == nil {
		t.Error("a write with no turn running was taken")
	}
	if got, _ := os.ReadFile(a); string(got) != "new\n" {
		t.Errorf("a.txt holds %q after a write with no turn running", got)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
