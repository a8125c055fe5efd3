package agenthost_test

// Tests of token accounting and compaction bookkeeping.

import (
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestTokenAccounting: a turn's usage is its last model call's (codex's `last`: context %), while
// the session's totals grow by codex's running total (`total`): a turn with two model calls counts
// both, and the update codex re-sends when a turn starts counts nothing.
func TestTokenAccounting(t *testing.T) {
	fh := newFakeHost(t, nil)
	usage := codex.TokenUsage{InputTokens: 80, CachedInputTokens: 20, OutputTokens: 25, ReasoningOutputTokens: 5, TotalTokens: 130}
	early := codex.TokenUsage{InputTokens: 10, CachedInputTokens: 4, OutputTokens: 2, ReasoningOutputTokens: 1, TotalTokens: 12}
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		if ft.Prompt == "again" {
			ft.ResendUsage(usage, 1000) // what codex sends at a turn's start: the previous update
		}
		ft.ModelCall(early, 1000)
		ft.AgentMessage("done")
		ft.ModelCall(usage, 1000) // the last update of the turn is the turn's usage
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	res, events := run(t, s, "hello")
	want := hermesproto.Usage{Prompt: 80, Input: 60, CacheRead: 20, CacheWrite: 0, Output: 25, Completion: 25, Reasoning: 5, Total: 130, ContextWindow: 1000, LastPrompt: 80}
	if res.Usage != want {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
	if len(ofKind(events, hermesproto.EventKindUsage)) != 2 {
		t.Errorf("usage events: %d", len(ofKind(events, hermesproto.EventKindUsage)))
	}
	if st := s.Status(); st.Usage.Total != 142 || st.Usage.Prompt != 90 || st.Usage.CacheRead != 24 || st.Usage.Reasoning != 6 {
		t.Errorf("totals after one turn of two calls: %+v, want total 142", st.Usage)
	}
	res2, _ := run(t, s, "again")
	if res2.Usage.Total != 130 {
		t.Errorf("second turn usage %+v", res2.Usage)
	}
	st := s.Status()
	if st.Usage.Prompt != 180 || st.Usage.Input != 132 || st.Usage.CacheRead != 48 || st.Usage.Total != 284 || st.Usage.Reasoning != 12 {
		t.Errorf("session totals %+v, want total 284 (two turns of 142; the re-sent update counts nothing)", st.Usage)
	}
	if st.ContextPercent != 8 { // the last prompt, 80 of a 1000-token window
		t.Errorf("context percent %d", st.ContextPercent)
	}
}

func TestUsageFromCacheWrite(t *testing.T) {
	u := agenthost.UsageFrom(codex.TokenUsage{InputTokens: 100, CachedInputTokens: 30, CacheWriteInputTokens: 10, OutputTokens: 7, TotalTokens: 107}, 1000)
	if u.Prompt != 100 || u.Input != 60 || u.CacheWrite != 10 || u.ContextPercent() != 10 {
		t.Fatalf("%+v", u)
	}
}

func TestCompaction(t *testing.T) {
	fh := newFakeHost(t, nil)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Item(map[string]any{"type": codex.ItemContextCompaction})
		ft.AgentMessage("done")
		u := codex.TokenUsage{InputTokens: 300000, TotalTokens: 300000}
		ft.Usage(u, u, 400000)
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	res, events := run(t, s, "hello")
	if !res.Completed || !res.Compacted || res.Usage.LastPrompt != 300000 {
		t.Fatalf("result: %+v", res)
	}
	comp := ofKind(events, hermesproto.EventKindCompaction)
	if len(comp) != 1 {
		t.Fatalf("compaction events: %d", len(comp))
	}
	want := hermesproto.Compaction{SessionID: s.ID(), Count: 1, Runtime: "codex_app_server", ThreadID: res.ThreadID, TurnID: res.TurnID}
	if *comp[0].Compaction != want {
		t.Errorf("compaction %+v, want %+v", *comp[0].Compaction, want)
	}
	if s.Status().Compactions != 1 {
		t.Errorf("session compactions %d", s.Status().Compactions)
	}
	// The contract's numbers: 300,000 tokens after the compaction, in a 400,000-token window (the
	// threshold is half of it), did not shrink the context enough.
	if n := s.Status().IneffectiveCompactions; n != 1 {
		t.Errorf("ineffective compactions %d, want 1", n)
	}

	// Compact runs thread/compact/start, a turn of its own.
	turn, err := s.Compact(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cres, cevents := finish(t, turn)
	if !cres.Completed || !cres.Compacted || len(ofKind(cevents, hermesproto.EventKindCompaction)) != 1 {
		t.Fatalf("compact: %+v", cres)
	}
	if _, err := fh.fake.WaitRequest(t.Context(), codex.MethodThreadCompact, 1); err != nil {
		t.Fatal(err)
	}
	if s.Status().Compactions != 2 {
		t.Errorf("compactions after Compact: %d", s.Status().Compactions)
	}
}

// TestCompactionBookkeeping: a turn that compacts counts one compaction however
// codex announces it (two contextCompaction items and the older thread/compacted here); without a
// usage update after it the last prompt is unknown (context % 0) until the next update sets it.
func TestCompactionBookkeeping(t *testing.T) {
	fh := newFakeHost(t, nil)
	before := codex.TokenUsage{InputTokens: 800, TotalTokens: 800}
	after := codex.TokenUsage{InputTokens: 100, TotalTokens: 100}
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		switch ft.Prompt {
		case "fill":
			ft.ModelCall(before, 1000)
		case "compact":
			ft.ModelCall(before, 1000)
			ft.Item(map[string]any{"type": codex.ItemContextCompaction})
			ft.Notify(codex.NotifyThreadCompacted, map[string]any{})
			ft.Item(map[string]any{"type": codex.ItemContextCompaction})
			ft.AgentMessage("compacted")
		default:
			ft.ModelCall(after, 1000)
		}
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	run(t, s, "fill")
	if pct := s.Status().ContextPercent; pct != 80 {
		t.Fatalf("context %d%% before compaction, want 80", pct)
	}
	res, events := run(t, s, "compact")
	if !res.Compacted || len(ofKind(events, hermesproto.EventKindCompaction)) != 1 || s.Status().Compactions != 1 {
		t.Fatalf("compacted %v, %d compaction events, session count %d: want one", res.Compacted,
			len(ofKind(events, hermesproto.EventKindCompaction)), s.Status().Compactions)
	}
	if pct := s.Status().ContextPercent; pct != 0 {
		t.Errorf("context %d%% after a compaction with no usage since: want 0 (unknown)", pct)
	}
	run(t, s, "after")
	if pct := s.Status().ContextPercent; pct != 10 {
		t.Errorf("context %d%% after the next usage, want 10", pct)
	}
}
