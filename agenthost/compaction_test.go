package agenthost_test

import (
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestIneffectiveCompactions: a compaction is judged by the first model call after it, as the
// runtime contract judges one: a prompt of at least half the context window (and at least 64,000
// tokens) means it did not shrink the context enough. The session counts such compactions in a
// row; one that clears the threshold, or a new thread, starts again from 0. A compaction with no
// model call after it in its turn is judged by the next turn's first model call, not by the update
// codex sends again when that turn starts. The count survives a restart.
func TestIneffectiveCompactions(t *testing.T) {
	fh := newFakeHost(t, nil)
	const window = 400_000 // the threshold is 200,000
	call := func(ft *codextest.FakeTurn, prompt, window int64) {
		ft.ModelCall(codex.TokenUsage{InputTokens: prompt, OutputTokens: 10, TotalTokens: prompt + 10}, window)
	}
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		switch ft.Prompt {
		case "big": // compacted, and still 250,000 tokens
			call(ft, 390_000, window)
			ft.Item(map[string]any{"type": codex.ItemContextCompaction})
			call(ft, 250_000, window)
		case "threshold": // exactly at the threshold: not enough
			ft.Item(map[string]any{"type": codex.ItemContextCompaction})
			call(ft, 200_000, window)
		case "small": // compacted to 50,000 tokens
			ft.Item(map[string]any{"type": codex.ItemContextCompaction})
			call(ft, 50_000, window)
		case "twice": // compacted to 50,000 tokens, then again, and then 250,000: the last one counts
			ft.Item(map[string]any{"type": codex.ItemContextCompaction})
			call(ft, 50_000, window)
			ft.Item(map[string]any{"type": codex.ItemContextCompaction})
			call(ft, 250_000, window)
		case "after the compaction": // codex sends its last update again, then the model call's
			ft.ResendUsage(codex.TokenUsage{InputTokens: 390_000, TotalTokens: 390_010}, window)
			call(ft, 50_000, window)
		case "unknown window": // no window: the threshold is 64,000
			ft.Item(map[string]any{"type": codex.ItemContextCompaction})
			call(ft, 70_000, 0)
		default:
			call(ft, 1_000, window)
		}
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	steps := []struct {
		prompt string
		want   int
	}{
		{"big", 1}, {"threshold", 2}, {"plain", 2}, {"small", 0}, {"twice", 1},
	}
	for _, step := range steps {
		res, events := run(t, s, step.prompt)
		if got := s.Status().IneffectiveCompactions; got != step.want {
			t.Fatalf("after %q (compacted %v): %d ineffective compactions, want %d", step.prompt, res.Compacted, got, step.want)
		}
		if c := ofKind(events, hermesproto.EventKindCompaction); len(c) == 1 {
			want := hermesproto.Compaction{SessionID: s.ID(), OldSessionID: "", InPlace: false, Count: c[0].Compaction.Count,
				Runtime: "codex_app_server", ThreadID: res.ThreadID, OldThreadID: "", TurnID: res.TurnID}
			if *c[0].Compaction != want {
				t.Errorf("compaction event %+v, want %+v", *c[0].Compaction, want)
			}
		}
	}

	// Compact's turn sends no usage: its verdict waits for the next turn's first model call.
	turn, err := s.Compact(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := finish(t, turn); !res.Compacted {
		t.Fatalf("compact: %+v", res)
	}
	if got := s.Status().IneffectiveCompactions; got != 1 {
		t.Fatalf("after Compact, before any model call: %d, want 1 (not judged yet)", got)
	}
	run(t, s, "after the compaction")
	if got := s.Status().IneffectiveCompactions; got != 0 {
		t.Fatalf("after the model call that followed Compact: %d, want 0 (50,000 tokens, not the update sent again)", got)
	}
	run(t, s, "unknown window")
	if got := s.Status().IneffectiveCompactions; got != 1 {
		t.Fatalf("70,000 tokens in an unknown window: %d, want 1", got)
	}

	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	again := newFakeHostOn(t, fh.fake, fh.state, nil)
	again.folder = fh.folder
	s = again.session(t)
	if got := s.Status().IneffectiveCompactions; got != 1 {
		t.Fatalf("after a restart: %d, want 1", got)
	}
	if err := s.NewThread(); err != nil {
		t.Fatal(err)
	}
	if got := s.Status().IneffectiveCompactions; got != 0 {
		t.Errorf("for a new thread: %d, want 0", got)
	}
}
