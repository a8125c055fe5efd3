package agenthost_test

import (
	"sync/atomic"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestTurnKnowsItsIDs checks the ids a Turn reports: codex's when Run returns, the session's while
// the turn runs, the result's at its end; a fallback's retry and a compaction's late id included.
func TestTurnKnowsItsIDs(t *testing.T) {
	t.Run("prompt", func(t *testing.T) {
		fh := newFakeHost(t, nil)
		release := make(chan struct{})
		fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
			select {
			case <-release:
			case <-ft.Done():
				return
			}
			ft.AgentMessage("done")
		})
		s := fh.session(t)
		turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "hello"})
		if err != nil {
			t.Fatal(err)
		}
		threadID, turnID := turn.ThreadID(), turn.TurnID()
		if threadID == "" || turnID == "" {
			t.Fatalf("ids when Run returned: thread %q turn %q", threadID, turnID)
		}
		if st := s.Status(); st.ThreadID != threadID || st.Turn == nil || st.Turn.ID != turnID || st.Turn.State != agenthost.StatusRunning {
			t.Errorf("status while the turn runs: %+v (turn %+v), want thread %s turn %s", st, st.Turn, threadID, turnID)
		}
		close(release)
		res, events := finish(t, turn)
		if res.ThreadID != threadID || res.TurnID != turnID || turn.ThreadID() != threadID || turn.TurnID() != turnID {
			t.Errorf("result ids %s/%s, after the end %s/%s; when Run returned %s/%s",
				res.ThreadID, res.TurnID, turn.ThreadID(), turn.TurnID(), threadID, turnID)
		}
		if len(events) == 0 {
			t.Fatal("no events")
		}
		if events[0].Kind != hermesproto.EventKindTurnStarted || events[0].TurnID != turnID {
			t.Errorf("first event %+v, want turn/started of %s", events[0], turnID)
		}
	})

	t.Run("fallback retry", func(t *testing.T) {
		fh := newFakeHost(t, func(c *agenthost.Config) {
			c.Fallbacks = []agenthost.FallbackProvider{
				{Name: "back up", Kind: agenthost.FallbackResponses, BaseURL: "http://127.0.0.1:9/v1", Model: "backup-model"},
			}
		})
		var turns atomic.Int32
		read := make(chan struct{}) // the test has read the first turn's id: it may fail now
		fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
			if turns.Add(1) == 1 {
				select {
				case <-read:
				case <-ft.Done():
				}
				ft.Complete(codex.TurnFailed, turnError(`"usageLimitExceeded"`, "You've hit your usage limit."))
				return
			}
			ft.AgentMessage("answered by the backup")
		})
		s := fh.session(t)
		turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "hello"})
		if err != nil {
			t.Fatal(err)
		}
		first := turn.TurnID()
		close(read)
		res, _ := finish(t, turn)
		if !res.Completed || res.APICalls != 2 {
			t.Fatalf("result: %+v", res)
		}
		if turn.TurnID() != res.TurnID || turn.TurnID() == first || turn.ThreadID() != res.ThreadID {
			t.Errorf("after the retry the turn says %s/%s, the result %s/%s (first turn %s)",
				turn.ThreadID(), turn.TurnID(), res.ThreadID, res.TurnID, first)
		}
	})

	t.Run("compaction", func(t *testing.T) {
		fh := newFakeHost(t, nil)
		s := fh.session(t)
		run(t, s, "hello")
		turn, err := s.Compact(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		res, _ := finish(t, turn)
		if res.TurnID == "" || turn.TurnID() != res.TurnID || turn.ThreadID() != res.ThreadID {
			t.Errorf("compaction turn says %s/%s, its result %s/%s", turn.ThreadID(), turn.TurnID(), res.ThreadID, res.TurnID)
		}
	})
}

// TestEventsAskedAfterTheEnd asks for a turn's events only once it has ended: they are all kept and
// delivered then, and the host still closes.
func TestEventsAskedAfterTheEnd(t *testing.T) {
	fh := newFakeHost(t, nil)
	s := fh.session(t)
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	<-turn.Done()
	var events []hermesproto.Event
	for ev := range turn.Events() {
		events = append(events, ev)
	}
	if len(events) < 2 || events[0].Kind != hermesproto.EventKindTurnStarted || events[len(events)-1].Kind != hermesproto.EventKindTurnCompleted {
		t.Fatalf("events asked for after the end: %+v", events)
	}
	if ev, ok := recvOrClosed(t, turn.Events()); ok {
		t.Fatalf("event %+v asked for again", ev)
	}
	closed := make(chan error, 1)
	go func() { closed <- fh.Close() }()
	if err := recv(t, closed, "the host's Close"); err != nil {
		t.Fatal(err)
	}
}
