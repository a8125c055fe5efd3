package agenthost_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// TestTranscriptsBetweenTurns: a session may keep its thread's transcripts open from one turn to the
// next; a transcript removed between turns is written afresh at its path by the next turn (not into
// the removed file), and a symbolic link planted there is not written through.
func TestTranscriptsBetweenTurns(t *testing.T) {
	fh := newFakeHost(t, nil)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("answer to " + ft.Prompt)
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	first, _ := run(t, s, "first")
	jsonl, md, err := agenthost.TranscriptPaths(fh.state, first.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	second, _ := run(t, s, "second")
	if text := read(md); !strings.Contains(text, "> first") || !strings.Contains(text, "> second") {
		t.Fatalf("the transcript after two turns:\n%s", text)
	}

	for _, p := range []string{jsonl, md} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	third, _ := run(t, s, "third")
	if third.ThreadID != second.ThreadID {
		t.Fatalf("the third turn ran on thread %s, want %s", third.ThreadID, second.ThreadID)
	}
	if text := read(md); !strings.Contains(text, "> third") || !strings.Contains(text, "answer to third") || strings.Contains(text, "> second") {
		t.Errorf("the transcript written again after its removal:\n%s", text)
	}
	if text := read(jsonl); !strings.Contains(text, `"third"`) {
		t.Errorf("the JSONL transcript written again after its removal:\n%s", text)
	}

	if runtime.GOOS == "windows" {
		return // symbolic links need privileges there
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(md); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, md); err != nil {
		t.Fatal(err)
	}
	run(t, s, "fourth")
	if data := read(target); data != "keep\n" {
		t.Errorf("the turn wrote through a link planted at the transcript's path: %q", data)
	}
	if text := read(jsonl); !strings.Contains(text, `"fourth"`) {
		t.Errorf("the JSONL transcript lacks the fourth turn:\n%s", text)
	}
}
